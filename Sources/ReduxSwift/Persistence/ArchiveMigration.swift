/// Upgrades an archived state from one schema version to the next.
///
/// A migration receives the archived state as a JSON object of the types `JSONSerialization`
/// decodes (`[String: Any]` holding strings, `NSNumber`s, arrays, dictionaries and `NSNull`) and
/// changes it in place to the shape of the next version. Values it does not touch are written back
/// exactly as they were read (`-0.0` and strings starting with U+FEFF included):
///
/// ```swift
/// let archive = StateArchive<AppState>(
///     file: url,
///     schemaVersion: 3,
///     migrations: [
///         // Version 2 renamed "items" to "todos".
///         ArchiveMigration(from: 1) { state in
///             state["todos"] = state.removeValue(forKey: "items")
///         },
///         // Version 3 added "filter".
///         ArchiveMigration(from: 2) { state in
///             state["filter"] = "all"
///         },
///     ])
/// ```
///
/// A file of version 1 runs both migrations in order, then decodes as `AppState`. A migration that
/// throws stops the load with ``PersistenceError/Reason/migrationFailed(from:detail:)`` and leaves
/// the file as it was; one that stores a value JSON cannot hold (a `Date`, a NaN) stops it with
/// ``PersistenceError/Reason/wrongShape(detail:)``.
public struct ArchiveMigration: Sendable {
    /// The version this migration upgrades from; it produces version `fromVersion + 1`.
    public let fromVersion: Int
    let body: @Sendable (inout [String: Any]) throws -> Void

    /// Creates a migration from `version` to `version + 1`.
    ///
    /// - Parameters:
    ///   - version: The schema version the archived state has before this migration runs.
    ///   - body: Changes the decoded JSON object to the shape of version `version + 1`.
    public init(from version: Int, _ body: @escaping @Sendable (inout [String: Any]) throws -> Void) {
        fromVersion = version
        self.body = body
    }
}

/// Upgrades an archived state from one schema version to the next.
///
/// A migration receives the archived state as a JSON object and changes it in place to the shape
/// of the next version. Values it does not touch are written back exactly as they were read
/// (`-0.0`, strings starting with U+FEFF, `Decimal`s and integers with more digits than a `Double`
/// holds included), and every file a load without migration reads, a migration reads too:
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
/// throws stops the load with ``PersistenceError/Kind/migrationFailed(from:detail:)`` and leaves
/// the file as it was.
///
/// ## Reading and writing values
///
/// The object holds the same types on every platform, because ReduxSwift reads the archive itself:
/// `String` for strings, `NSNumber` for numbers and booleans, `NSNull` for null, `[Any]` for
/// arrays and `[String: Any]` for objects. Read a value with a cast to the type the previous
/// version declared. `NSNumber` casts follow the same rule on Apple platforms and Linux: a cast
/// succeeds when the number is exactly a value of that type, and fails otherwise.
///
/// ```swift
/// ArchiveMigration(from: 1) { state in
///     let count = state["count"] as? Int ?? 0          // 3 reads as 3; 3.5 fails
///     let price = state["price"] as? Double ?? 0       // 2.5, and 2 (a Double 2.0 is saved as 2)
///     let done = state["done"] as? Bool ?? false
///     if var settings = state["settings"] as? [String: Any] {
///         settings["scale"] = (settings["scale"] as? Double ?? 1) * 2
///         state["settings"] = settings
///     }
///     state["total"] = Double(count) * price
///     state["done"] = nil                              // removes the member
/// }
/// ```
///
/// - A cast converts; it does not check the JSON kind. `true` reads as the `Int` 1, and the
///   numbers 0 and 1 read as `Bool`s, on every platform. Read each member as the type your
///   previous version declared.
/// - A fraction does not read as an `Int`, nor a negative number as a `UInt`. To convert with
///   loss, cast to `NSNumber` and use `intValue`, `int64Value` or `doubleValue`.
/// - Read floating-point numbers as `Double`, not `Float`, and integers beyond 2⁵³ as `Int` or
///   `Int64`: casts that would round differ by platform (`0.1 as? Float` is rounded on Apple
///   platforms and fails on Linux).
/// - A number with more digits than a `Double` holds (such as
///   `3.14159265358979323846264338327950288`, or an integer beyond `UInt64`) is an
///   `NSDecimalNumber`: it reads exactly as a `Decimal`, and rounded as a `Double`. Other numbers
///   do not read as a `Decimal` on every platform: read them as `Double` and convert with
///   `Decimal(string: "\(double)")`, the `Decimal` `JSONDecoder` reads from the same text. Avoid
///   `NSNumber.decimalValue`, which rounds (`19.99` gives `19.98999999999999488`).
///
/// Write Swift values: `String`, any integer or floating-point type, `Bool`, `Decimal` (written
/// with all its digits), arrays and `[String: Any]` dictionaries of them, and `NSNull()` (or a
/// `nil` element of an array of optionals) for null. A value JSON cannot represent (including an
/// `NSArray` or `NSDictionary` that contains itself, and arrays and objects nested deeper than 512
/// levels) stops the load with ``PersistenceError/Kind/migrationFailed(from:detail:)`` naming its path,
/// such as `state.todos[2].due`, and leaves the file as it was: write it as the state's own
/// encoding does, a `Date` as `date.timeIntervalSinceReferenceDate`, `Data` as
/// `data.base64EncodedString()`, a `URL` as `url.absoluteString`, a `UUID` as `uuid.uuidString`, a
/// NaN or infinite `Double` as the string `"NaN"`, `"Infinity"` or `"-Infinity"`, and a dictionary
/// with other keys than strings with its keys as strings.
public struct ArchiveMigration: Sendable {
    /// The version this migration upgrades from; it produces version `fromVersion + 1`.
    public let fromVersion: Int
    let body: @Sendable (inout [String: Any]) throws -> Void
    /// The same change made to the archive's JSON as the library reads it, for the one-line member
    /// migrations: a load whose migrations all have one never converts the state to Foundation
    /// objects and back.
    let edit: (@Sendable (inout JSONValue) -> Void)?
    /// For a migration that only reshapes the state (renames, removes, or adds members where they
    /// are missing) and never changes a value: the edit that applies it to a state that may
    /// already have its result, changing nothing there (a rename keeps a member the new name
    /// already holds). `nil` for every other migration.
    let reshape: (@Sendable (inout JSONValue) -> Void)?

    /// Creates a migration from `version` to `version + 1`.
    ///
    /// ```swift
    /// ArchiveMigration(from: 1) { state in
    ///     state["todos"] = state.removeValue(forKey: "items")
    /// }
    /// ```
    ///
    /// A ``StateArchive`` takes migrations from versions below its schema version (its initializer
    /// stops the program otherwise), any number from each, and runs those from one version in the
    /// order given.
    ///
    /// - Parameters:
    ///   - version: The schema version the archived state has before this migration runs.
    ///   - body: Changes the decoded JSON object to the shape of version `version + 1`.
    public init(from version: Int, _ body: @escaping @Sendable (inout [String: Any]) throws -> Void) {
        fromVersion = version
        self.body = body
        edit = nil
        reshape = nil
    }

    /// A member migration: `body` changes every object at `steps` of the state, as Foundation
    /// objects, and `edit` makes the same change to it as JSON.
    init(
        from version: Int, at steps: [MemberPath.Step],
        _ body: @escaping @Sendable (inout [String: Any]) -> Void,
        edit: (@Sendable (inout [String: JSONValue]) -> Void)?,
        reshape: (@Sendable (inout [String: JSONValue]) -> Void)? = nil
    ) {
        fromVersion = version
        if let reshape {
            self.reshape = { (state: inout JSONValue) in state.forEachObject(at: steps[...], reshape) }
        } else {
            self.reshape = nil
        }
        self.body = { state in try MemberPath.forEachObject(at: steps, in: &state, body) }
        if let edit {
            self.edit = { (state: inout JSONValue) in state.forEachObject(at: steps[...], edit) }
        } else {
            self.edit = nil
        }
    }
}

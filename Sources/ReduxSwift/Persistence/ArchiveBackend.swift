import Foundation

/// Where a ``StateArchive`` keeps its bytes: a file, a `UserDefaults` key, or your own storage.
///
/// ReduxSwift ships ``FileArchiveBackend`` (the default) and ``UserDefaultsArchiveBackend``.
/// A backend stores one blob of bytes and must keep the previous blob intact until a new one has
/// completely replaced it. ``StateArchive`` serializes its own calls, so a backend need not
/// handle two of them at once from the same archive.
public protocol ArchiveBackend: Sendable {
    /// The archive's location for a person to read in errors, such as a file path.
    var location: String { get }

    /// Reads the archived bytes.
    ///
    /// - Parameter limit: The largest size to read; larger data is refused with
    ///   ``PersistenceError/Kind/tooLarge(bytes:limit:)``.
    /// - Returns: The bytes, or `nil` when nothing has been archived yet.
    func read(limit: Int) throws(PersistenceError) -> Data?

    /// Replaces the archived bytes, returning only when they are durable.
    ///
    /// If it throws, the previously archived bytes must be unchanged.
    func write(_ data: Data) throws(PersistenceError)

    /// Moves the archived bytes to a new location that ends in `suffix`, so that later writes
    /// cannot overwrite them.
    ///
    /// - Returns: The new location, or `nil` when there was nothing to move.
    func setAside(suffix: String) throws(PersistenceError) -> String?
}

import Foundation

/// Where a ``StateArchive`` keeps its bytes: a file, a `UserDefaults` key, or your own storage.
///
/// ReduxSwift ships ``FileArchiveBackend`` (the default) and ``UserDefaultsArchiveBackend``.
/// A backend stores one blob of bytes and must keep the previous blob intact until a new one has
/// completely replaced it. ``StateArchive`` serializes its own calls, so a backend need not
/// handle two of them at once from the same archive.
///
/// Archives know which of them share a file or a `UserDefaults` key, and a load that fails through
/// one makes all of them refuse to save over the data. They cannot know it of your own backends:
/// an archive on one refuses only its own saves.
///
/// The two backends that ship also keep data beside the archive: the previous archive while an
/// upgraded one has not loaded yet, and the unmerged state saved while the archive cannot be read
/// (see ``StateArchive``). An archive on a backend of your own keeps neither: a load that upgrades
/// it does not write it back, and saves are refused while it cannot be read.
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

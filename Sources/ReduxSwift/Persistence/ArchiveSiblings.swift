import Foundation

/// A backend that can keep data beside its own, under a suffix: a file beside the archive file, or
/// a key beside the archive's `UserDefaults` key.
///
/// ``FileArchiveBackend`` and ``UserDefaultsArchiveBackend`` are such backends. An archive uses
/// the storage beside its own for two things:
///
/// - the previous archive, kept when a load upgrades an archive and writes it back, until the
///   upgraded one has loaded once (``ArchiveSiblings/previousSuffix(version:)``);
/// - the unmerged state, where saves go while the archive cannot be read
///   (``ArchiveSiblings/unmergedSuffix``).
///
/// On a backend of the app's own, neither is kept: a load that upgrades does not write back, and
/// saves are refused while the archive cannot be read.
protocol SiblingStorage: ArchiveBackend {
    /// The storage beside this one, named by adding `suffix` to its name.
    func sibling(_ suffix: String) -> any SiblingStorage

    /// Whether something is stored. Storage whose state cannot be known counts as holding
    /// something, so that nothing is written over it.
    func exists() -> Bool

    /// Removes what is stored, durably; does nothing when nothing is.
    func remove() throws(PersistenceError)

    /// The suffixes, each starting with `prefix`, of the storage beside this one that holds
    /// something.
    func siblingSuffixes(startingWith prefix: String) -> [String]
}

/// The names of the storage kept beside an archive's own.
enum ArchiveSiblings {
    /// Where saves go while the archive cannot be read: `AppState.json.unmerged` beside
    /// `AppState.json`, `com.example.myapp.AppState.unmerged` beside `com.example.myapp.AppState`.
    static let unmergedSuffix = ".unmerged"

    /// The start of every suffix of a previous archive.
    static let previousPrefix = ".previous-v"

    /// The suffix of the previous archive of schema version `version`: `.previous-v1`.
    static func previousSuffix(version: Int) -> String {
        previousPrefix + "\(version)"
    }

    /// The schema version a previous archive's suffix names, and its place among copies of the same
    /// version (1, then 2 for `-2`…), or `nil` for a suffix that does not name one.
    static func previousVersion(of suffix: String) -> (version: Int, copy: Int)? {
        guard suffix.hasPrefix(previousPrefix) else { return nil }
        let parts = suffix.dropFirst(previousPrefix.count).split(
            separator: "-", omittingEmptySubsequences: false)
        guard let version = parts.first.flatMap({ Int($0) }) else { return nil }
        switch parts.count {
        case 1: return (version, 1)
        case 2: return Int(parts[1]).map { (version, $0) }
        default: return nil
        }
    }

    /// The schema version an archive says it was written with, read from its first bytes where
    /// the archives ReduxSwift writes say it (`{"schemaVersion":2,…`), or from the whole JSON.
    static func schemaVersion(in data: Data) -> Int? {
        let key = Data(#"{"schemaVersion":"#.utf8)
        if data.starts(with: key) {
            let digits = data.dropFirst(key.count).prefix(19).prefix {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
            }
            if !digits.isEmpty, digits.count <= 18 { return Int(String(decoding: digits, as: UTF8.self)) }
        }
        struct Version: Decodable { let schemaVersion: Int }
        return try? JSONDecoder().decode(Version.self, from: data).schemaVersion
    }
}

/// Whether the load under way filled members from ``ArchiveDefaults``: such an archive is written
/// back, upgraded, as a migrated one is.
final class ArchiveUpgradeNote: Sendable {
    private let filled = LockedValue(false)

    /// The note of the load under way on this thread, if it keeps one.
    @TaskLocal static var current: ArchiveUpgradeNote?

    /// Notes, for the load under way, that a member was filled from its default.
    static func noteFilled() {
        current?.filled.withLock { $0 = true }
    }

    /// Whether a member was filled.
    var didFill: Bool { filled.withLock { $0 } }
}

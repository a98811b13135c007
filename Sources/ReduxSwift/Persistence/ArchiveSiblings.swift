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

    /// The schema version an archive says it was written with, read from its first member where
    /// the archives ReduxSwift writes say it (`{"schemaVersion":2,…`, or with spaces and line
    /// breaks between), or else from the whole JSON.
    static func schemaVersion(in data: Data) -> Int? {
        if let version = leadingSchemaVersion(in: data) { return version }
        struct Version: Decodable { let schemaVersion: Int }
        return try? JSONDecoder().decode(Version.self, from: data).schemaVersion
    }

    /// The version in an archive that starts `{"schemaVersion":N`, with whitespace allowed between
    /// the tokens; `nil` for any other.
    static func leadingSchemaVersion(in data: Data) -> Int? {
        var bytes = data.prefix(256)[...]
        func skipSpace() {
            bytes = bytes.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        }
        func take(_ token: String) -> Bool {
            skipSpace()
            guard bytes.starts(with: token.utf8) else { return false }
            bytes = bytes.dropFirst(token.utf8.count)
            return true
        }
        guard take("{"), take(#""schemaVersion""#), take(":") else { return nil }
        skipSpace()
        let digits = bytes.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        let next = bytes.dropFirst(digits.count).first
        // A version followed by `.`, `e` or more digits than an Int holds is not one the library wrote.
        guard !digits.isEmpty, digits.count <= 18,
            next.map({ $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "}") || $0 <= 0x20 }) ?? false
        else { return nil }
        return Int(String(decoding: digits, as: UTF8.self))
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

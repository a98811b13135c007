import Foundation
import Testing

@testable import ReduxSwift

// Version 1 of a notes app's state.
enum NotesV1 {
    struct Note: Codable, Equatable {
        var id: Int
        var text: String
    }

    struct State: StateProtocol, Equatable {
        var notes: [Note] = []
    }
}

// Version 2 renames `text` to `body` (a migration), and adds `pinned` to each note and `sort` to
// the state (filled from `ArchiveDefaults`).
enum NotesV2 {
    struct Note: Codable, Equatable, ArchiveDefaults {
        var id = 0
        var body = ""
        var pinned = false
    }

    struct State: StateProtocol, Equatable, ArchiveDefaults {
        var notes: [Note] = []
        var sort = "date"
    }

    static let migrations = [ArchiveMigration(from: 1, renaming: "text", to: "body", in: "notes[]")]
}

/// Where a test keeps its archive: a file in a temporary directory, or a key in a `UserDefaults`
/// suite of its own.
enum StorageKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case file
    case userDefaults

    var description: String { rawValue }
}

/// An archive's place, and what is kept beside it, seen from outside the library.
final class ArchivePlace {
    let kind: StorageKind
    let directory = TemporaryDirectory()
    let suiteName = "ReduxSwiftTests-\(UUID().uuidString)"
    let defaults: UserDefaults
    /// The `UserDefaults` backend's size limit.
    let sizeLimit: Int?

    init(_ kind: StorageKind, sizeLimit: Int? = nil) {
        self.kind = kind
        self.sizeLimit = sizeLimit
        defaults = UserDefaults(suiteName: suiteName)!
    }

    deinit {
        defaults.removePersistentDomain(forName: suiteName)
    }

    /// The file, or the key, of the archive, with `suffix` added.
    func url(_ suffix: String = "") -> URL { directory.file("Notes.json" + suffix) }
    func key(_ suffix: String = "") -> String { "app.Notes" + suffix }

    var backend: any ArchiveBackend {
        switch kind {
        case .file: FileArchiveBackend(url: url())
        case .userDefaults:
            UserDefaultsArchiveBackend(
                name: "Notes", namespace: "app", defaults: defaults, sizeLimit: sizeLimit)
        }
    }

    /// The location the library names for the data kept under `suffix`.
    func location(_ suffix: String = "") -> String {
        switch kind {
        case .file: url(suffix).path
        case .userDefaults: #"UserDefaults key "\#(key(suffix))""#
        }
    }

    func data(_ suffix: String = "") -> Data? {
        switch kind {
        case .file: try? Data(contentsOf: url(suffix))
        case .userDefaults: defaults.data(forKey: key(suffix))
        }
    }

    func write(_ data: Data, _ suffix: String = "") {
        switch kind {
        case .file: try! data.write(to: url(suffix))
        case .userDefaults: defaults.set(data, forKey: key(suffix))
        }
    }

    func write(_ text: String, _ suffix: String = "") {
        write(Data(text.utf8), suffix)
    }

    /// The suffixes of what is kept: `""` for the archive, `".previous-v1"`, `".unmerged"`…,
    /// sorted; copies set aside as corrupt are shown as `".corrupt"`.
    var kept: [String] {
        let names: [String]
        switch kind {
        case .file:
            names = directory.names.filter { $0.hasPrefix("Notes.json") }.map {
                String($0.dropFirst("Notes.json".count))
            }
        case .userDefaults:
            names = (defaults.persistentDomain(forName: suiteName) ?? [:]).keys
                .filter { $0.hasPrefix("app.Notes") && !$0.hasSuffix("#setAside") }
                .map { String($0.dropFirst("app.Notes".count)) }
        }
        return names.map { name in
            guard let range = name.range(of: ".corrupt-") else { return name }
            return String(name[..<range.lowerBound]) + ".corrupt"
        }.sorted()
    }

    func v1Archive() -> StateArchive<NotesV1.State> {
        StateArchive(backend: backend)
    }

    func v2Archive(sizeLimit: Int = StateArchive<NotesV2.State>.defaultSizeLimit) -> StateArchive<
        NotesV2.State
    > {
        StateArchive(backend: backend, schemaVersion: 2, migrations: NotesV2.migrations, sizeLimit: sizeLimit)
    }

    /// An archive of version 3, which version 2 cannot read.
    func v3Archive() -> StateArchive<NotesV2.State> {
        StateArchive(
            backend: backend, schemaVersion: 3,
            migrations: NotesV2.migrations + [ArchiveMigration(from: 2) { _ in }])
    }
}

extension NotesV1.State {
    static let sample = NotesV1.State(notes: [.init(id: 1, text: "milk"), .init(id: 2, text: "eggs")])
}

extension NotesV2.State {
    /// ``NotesV1/State/sample``, upgraded.
    static let sample = NotesV2.State(notes: [.init(id: 1, body: "milk"), .init(id: 2, body: "eggs")])
}

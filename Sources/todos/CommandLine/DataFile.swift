import Foundation
import ReduxSwift

/// The data file, `todos.json` in the data directory: reading it at launch, in the user's words
/// when that fails.
///
/// `StateArchive.restore(default:)` would set aside any file it cannot load and start from the
/// default. The app decides for itself, with `load()`: it sets aside only a damaged file. Any
/// other it leaves as it is, and the launch stops, since a list saved in its place would hide it:
/// a file from a newer `todos`, which that version still reads, one this version cannot read
/// without a migration it lacks, or one the system does not let this launch read.
enum DataFile {
    static let name = "todos.json"

    /// The archive of the data file in `directory`.
    static func archive(in directory: URL) -> StateArchive<AppState> {
        StateArchive(file: directory.appendingPathComponent(name))
    }

    /// The todos saved in `archive`; an empty list when there are none, or when the file is damaged.
    ///
    /// A damaged file is kept aside, renamed `todos.json.corrupt-<time>`, and `warn` hears where.
    ///
    /// - Throws: ``CommandError/dataFileUnusable(_:)`` when the file is left as it is: it was
    ///   saved by a newer `todos`, it needs a migration, the system refuses to read it, or it is
    ///   damaged and cannot be moved aside.
    static func restore(from archive: StateArchive<AppState>, warn: (String) -> Void) throws(CommandError)
        -> AppState
    {
        let loadError: PersistenceError
        do {
            return try archive.load() ?? AppState()
        } catch {
            loadError = error
        }
        switch loadError.kind {
        case .newerVersion(let found, let supported):
            throw .dataFileUnusable(
                "\(loadError.location) was saved by a newer version of todos (data format \(found); this "
                    + "one reads up to format \(supported)) and is left untouched; use the newer todos, "
                    + "or another --data-dir")
        case .system, .needsMigration:
            throw .dataFileUnusable("\(message(loadError)) The file is left untouched.")
        default:
            break
        }
        let keptAt: String?
        do {
            keptAt = try archive.setAside()
        } catch {
            throw .dataFileUnusable(
                "\(message(loadError)) It is left untouched, since it cannot be moved aside either: "
                    + message(error))
        }
        warn(
            "\(message(loadError)) "
                + (keptAt.map { "It was kept at \($0), and todos starts with an empty list." }
                    ?? "todos starts with an empty list."))
        return AppState()
    }

    /// `error`'s sentence, such as "cannot save /…/todos.json: …", to follow `todos: `.
    static func message(_ error: PersistenceError) -> String {
        let sentence = error.description
        return sentence.prefix(1).lowercased() + sentence.dropFirst()
    }
}

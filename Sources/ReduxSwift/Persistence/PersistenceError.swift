/// The error thrown when a state cannot be loaded from, saved to, or set aside in an archive.
///
/// Its ``kind`` says what went wrong; it names the archive's ``location`` (a file path or a
/// `UserDefaults` key) and the ``stage`` that failed (loading, saving or setting aside), and its
/// description says all three in one sentence:
///
/// ```swift
/// do {
///     let state = try archive.load()
/// } catch {
///     print(error)  // "Cannot load /home/ada/.local/share/MyApp/AppState.json: the file is empty."
/// }
/// ```
///
/// A failed load never changes what is archived, and a failed save never replaces it.
public struct PersistenceError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The stage of the archive's life that failed.
    public enum Stage: Sendable, Equatable {
        /// Reading and decoding the archived state.
        case load
        /// Encoding and writing a state.
        case save
        /// Moving unreadable data out of the way so a fresh start cannot overwrite it.
        case setAside
    }

    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// A directory is where the archive file should be.
        case isDirectory
        /// Something other than a regular file or a directory is where the archive file should be,
        /// such as a FIFO or a device; `fileType` names it ("a FIFO", "a character device"…).
        case notRegularFile(fileType: String)
        /// The archive is larger than the archive's size limit, so it was not read.
        case tooLarge(bytes: Int, limit: Int)
        /// The archive holds no bytes at all.
        case empty
        /// The bytes are not JSON, for example a truncated file or random bytes.
        case notJSON(detail: String)
        /// The JSON nests arrays and objects deeper than the parser accepts.
        case tooDeep(limit: Int)
        /// The JSON is valid but is not an archive: it has no `schemaVersion` or no `state`, or
        /// migrations need its state to be an object and it is not. The detail says what was found.
        case wrongShape(detail: String)
        /// The archive is one of this state's, written by an earlier version of its types, and the
        /// current types cannot read a value in it without a migration: a member was renamed
        /// (to an optional too) or changed type, an enum holds a case it no longer has, or a
        /// member is missing from a type that is not ``ArchiveDefaults``.
        ///
        /// `path` is where, such as `state.cart.lines[3].giftWrap`; `detail` says what was found;
        /// `migration` is the Swift code of an ``ArchiveMigration`` that fixes it, to register
        /// with the next schema version:
        ///
        /// ```
        /// Cannot load /…/AppState.json: it needs a migration at state.cart.lines[0].name (…). Raise
        /// schemaVersion to 2 and add ArchiveMigration(from: 1, renaming: "title", to: "name",
        /// in: "cart.lines[]").
        /// ```
        ///
        /// These are the first change a load found. A load in a debug build looks for every change
        /// the archive needs, and ``PersistenceError/migrationProblems`` lists them all, in the same
        /// form (a release build, what its first read finds);
        /// ``PersistenceError/suggestedMigrations`` is their migrations, ready to paste.
        ///
        /// The archive is not damaged, so ``StateArchive/restore(default:onProblem:)`` leaves it
        /// where it is: no save replaces it until a load succeeds, and saves go beside it, to the
        /// unmerged state (see ``StateArchive/loadUnmerged()``).
        case needsMigration(path: String, detail: String, migration: String)
        /// The archive was written by a newer schema version than this program knows.
        case newerVersion(found: Int, supported: Int)
        /// No migration is registered from this version to the next.
        ///
        /// When the archived state, as the migrations before that version leave it, does not
        /// decode as the current state, ``PersistenceError/migrationProblems`` names every change
        /// it needs, with migrations from this version, as for
        /// ``needsMigration(path:detail:migration:)``: schemaVersion was raised before the
        /// migrations were written.
        case missingMigration(from: Int)
        /// A migration from this version threw, or the migrations up to the current version left a
        /// value JSON cannot hold (reported as from the last version before the current one).
        case migrationFailed(from: Int, detail: String)
        /// The state could not be encoded as JSON.
        case encodingFailed(detail: String)
        /// A save was refused because it would overwrite an archive that failed to load and has
        /// not been set aside, on a backend that cannot keep data beside it (a backend of the
        /// app's own).
        case wouldOverwriteUnreadableArchive
        /// A save was refused because it would overwrite the unmerged state: changes an earlier
        /// launch saved beside an archive that cannot be read, which this process has neither
        /// loaded nor written (as after a failed ``StateArchive/load()``, which does not continue
        /// from them as ``StateArchive/restore(default:onProblem:)`` does), or which failed to load
        /// too. They are kept until a build reads them (see ``StateArchive/loadUnmerged()``).
        case wouldOverwriteUnmergedState
        /// The operating system refused a call, such as `"write"`, with its `errno` and message.
        case system(call: String, errno: Int32, message: String)
    }

    /// What went wrong.
    public let kind: Kind
    /// The stage that failed: loading, saving or setting aside.
    public let stage: Stage
    /// The file path or `UserDefaults` key of the archive.
    public let location: String
    /// Every change an archive needs before the current types can read it, for an error whose kind
    /// is ``Kind/needsMigration(path:detail:migration:)``; empty for any other.
    ///
    /// A load that needs a migration, in a debug build, looks past each change it finds (applying
    /// the migration it shows, or a stand-in value where the migration needs the app's) to find
    /// the next, so one launch names them all; a release build lists what its first read finds
    /// and says so. The first is the one ``kind`` names:
    ///
    /// ```swift
    /// do {
    ///     _ = try archive.load()
    /// } catch {
    ///     for problem in error.migrationProblems {
    ///         print(problem.path, problem.migration)
    ///         // state.defaultCurrency ArchiveMigration(from: 1, adding: "defaultCurrency", value: "EUR")
    ///         // state.expenses[0].memo ArchiveMigration(from: 1, renaming: <#"note", or delete this line#>, to: "memo", in: "expenses[]")
    ///     }
    /// }
    /// ```
    public let migrationProblems: [MigrationProblem]

    /// Creates an error; archive backends use it to report their own failures.
    ///
    /// ```swift
    /// throw PersistenceError(.system(call: "write", errno: EIO, message: "I/O error"), stage: .save, location: location)
    /// ```
    ///
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - stage: The stage that failed.
    ///   - location: The file path, key or other name that identifies the archive to a person.
    public init(_ kind: Kind, stage: Stage, location: String) {
        self.kind = kind
        self.stage = stage
        self.location = location
        if case .needsMigration(let path, let detail, let migration) = kind {
            migrationProblems = [
                MigrationProblem(path: path, kind: .other, detail: detail, migration: migration)
            ]
        } else {
            migrationProblems = []
        }
    }

    /// An error needing the migrations of `problems`, the first of which `kind` names.
    init(_ kind: Kind, stage: Stage, location: String, migrationProblems problems: [MigrationProblem]) {
        self.kind = kind
        self.stage = stage
        self.location = location
        migrationProblems = problems
    }

    /// This error, with its changes and their migrations, naming `location`: a file read as an
    /// archive is read (a fixture, the unmerged state).
    func naming(_ location: String) -> PersistenceError {
        PersistenceError(kind, stage: stage, location: location, migrationProblems: migrationProblems)
    }

    /// The migrations of every problem in ``migrationProblems``, in order, as a Swift array literal
    /// ready to paste as a ``StateArchive``'s `migrations:` argument (or into it); `nil` when there
    /// are none.
    ///
    /// ```swift
    /// [
    ///     ArchiveMigration(from: 1, adding: "defaultCurrency", value: "EUR"),
    ///     ArchiveMigration(from: 1, adding: "tags", json: "[]", in: "expenses[]"),
    ///     ArchiveMigration(from: 1, renaming: <#"note", or delete this line#>, to: "memo", in: "expenses[]"),
    /// ]
    /// ```
    ///
    /// A ``StateArchive`` runs the migrations from one version in the order given. A line with a
    /// placeholder, `<#…#>`, needs a value or a choice only the app knows, and does not compile
    /// until it has one.
    public var suggestedMigrations: String? {
        guard !migrationProblems.isEmpty else { return nil }
        // Two places that need the same migration (an element of a member, and another) get one line.
        var written: Set<String> = []
        let lines = migrationProblems.map(\.migration).filter { written.insert($0).inserted }
        return "[\n" + lines.map { "    \($0),\n" }.joined() + "]"
    }

    /// A sentence naming the stage, the location and what went wrong, such as
    /// `Cannot load /path/AppState.json: the file is empty.`
    public var description: String {
        let verb: String
        switch stage {
        case .load: verb = "load"
        case .save: verb = "save"
        case .setAside: verb = "set aside"
        }
        if case .missingMigration(let version) = kind, let migrations = suggestedMigrations {
            let listed = migrationProblems.enumerated().map { index, problem in
                "\n\(index + 1). At \(problem.path): \(problem.detail)"
            }
            let changes =
                migrationProblems.count == 1 ? "this change" : "these \(migrationProblems.count) changes"
            return "Cannot \(verb) \(location): no migration is registered from schema version \(version) to "
                + "\(version + 1), and the archive needs one for \(changes):\(listed.joined())\nAdd these "
                + "migrations:\nmigrations: \(migrations)"
        }
        if migrationProblems.count > 1, let migrations = suggestedMigrations {
            let version = Self.migrationVersion(migrationProblems[0].migration).map { "to \($0 + 1) " } ?? ""
            let listed = migrationProblems.enumerated().map { index, problem in
                "\n\(index + 1). At \(problem.path): \(problem.detail)"
            }
            return "Cannot \(verb) \(location): it needs a migration for each of these "
                + "\(migrationProblems.count) changes:\(listed.joined())\nRaise schemaVersion \(version)and add "
                + "these migrations\(Self.sameRelease(migrationProblems)):\nmigrations: \(migrations)"
        }
        let explanation = Self.explain(kind, stage: stage)
        return "Cannot \(verb) \(location): \(Self.endingSentence(explanation))"
    }

    /// `text` with a period, unless a detail quoted from another error already ends the sentence.
    static func endingSentence(_ text: String) -> String {
        text.last.map { ".?!".contains($0) } == true ? text : text + "."
    }

    /// For advice found after the migrations to version N, which gives migrations from N: how to
    /// add them to version N instead, when it has not shipped, and, for a conversion, that a
    /// migration from N also meets the archives version N wrote; empty otherwise.
    private static func sameRelease(_ problems: [MigrationProblem]) -> String {
        guard let problem = problems.first, let version = migrationVersion(problem.migration), version > 1,
            problem.detail.hasPrefix("after migrating to version \(version)")
        else { return "" }
        let converts = problems.contains { $0.migration.contains(", converting: ") }
        return " (or, if version \(version) has not shipped yet, keep schemaVersion at \(version) and add "
            + "them after the migrations from version \(version - 1), with from: \(version - 1)"
            + (converts
                ? "; if it has, a migration from version \(version) also converts the archives version "
                    + "\(version) wrote, so return a value that already reads as the current type as it is"
                : "")
            + ")"
    }

    /// The version in `migration`'s `ArchiveMigration(from: N`.
    private static func migrationVersion(_ migration: String) -> Int? {
        guard let start = migration.range(of: "(from: ")?.upperBound else { return nil }
        return Int(migration[start...].prefix { $0.isNumber })
    }

    private static func explain(_ kind: Kind, stage: Stage) -> String {
        switch kind {
        case .tooLarge(let bytes, let limit) where stage == .save:
            return
                "the archive would be \(bytes) bytes, more than the limit of \(limit) bytes that a load "
                + "reads, so the next launch would refuse it; keep large data such as images in files of "
                + "their own, or raise the archive's sizeLimit"
        case .isDirectory:
            return "it is a directory"
        case .notRegularFile(let fileType):
            return "it is \(fileType), not a regular file"
        case .tooLarge(let bytes, let limit):
            return "it is \(bytes) bytes, more than the limit of \(limit) bytes"
        case .empty:
            return "the file is empty"
        case .notJSON(let detail):
            return "it is not valid JSON (\(detail)); it may be truncated or damaged"
        case .tooDeep(let limit):
            return "its JSON nests deeper than \(limit) levels"
        case .wrongShape(let detail):
            return "it is valid JSON but not an archive of this state (\(detail))"
        case .needsMigration(let path, let detail, let migration):
            let version =
                migrationVersion(migration).map { "Raise schemaVersion to \($0 + 1) and add " } ?? "Add "
            let sameRelease = Self.sameRelease([
                .init(path: path, kind: .other, detail: detail, migration: migration)
            ])
            return "it needs a migration at \(path) (\(detail)). \(version)\(migration)\(sameRelease)"
        case .newerVersion(let found, let supported):
            return
                "it was written by schema version \(found), newer than version \(supported) of this program"
        case .missingMigration(let version):
            return "no migration is registered from schema version \(version) to \(version + 1)"
        case .migrationFailed(let version, let detail):
            return "the migration from schema version \(version) failed: \(detail)"
        case .encodingFailed(let detail):
            return "the state could not be encoded: \(detail)"
        case .wouldOverwriteUnmergedState:
            return
                "it holds changes saved while the archive could not be read, which this process has not "
                + "loaded or could not read, so no save replaces them: restore(default:) continues from "
                + "them, and once a build reads the archive, loadUnmerged() hands them back to merge and "
                + "removeUnmerged() removes them (setAside() moves the archive, not these changes)"
        case .wouldOverwriteUnreadableArchive:
            return
                "it holds data that failed to load, which is kept: a save replaces it only once a load "
                + "succeeds or it is set aside (StateArchive.setAside())"
        case .system(let call, let errno, let message):
            return "\(call) failed: \(message) (errno \(errno))"
        }
    }
}

extension PersistenceError {
    /// One change an archive needs before the current types can read it: where, what, and the
    /// ``ArchiveMigration`` that makes it.
    ///
    /// ``PersistenceError/migrationProblems`` lists those a load found:
    ///
    /// ```swift
    /// if let problem = error.migrationProblems.first, case .renamedMember(let old) = problem.kind {
    ///     print("\(problem.path) was called \(old) before")  // state.expenses[0].memo was called ["note"] before
    /// }
    /// ```
    public struct MigrationProblem: Sendable, Equatable, CustomStringConvertible {
        /// What changed.
        public enum Kind: Sendable, Equatable {
            /// The archive lacks a member the current type needs and has no default for.
            case missingMember
            /// The archive lacks the member (or it is an optional, which would read as `nil`) but
            /// holds, in the same object, members the current type does not read whose values read
            /// as its type: its name before a rename is one of `from`. With several names, or when
            /// another member the object lacks could take the same name, the archive cannot tell
            /// which became which, and the migration asks the app to choose.
            case renamedMember(from: [String])
            /// The archive holds a member the current type does not read, whose value a load would
            /// drop: named when a version's migrations are missing and the archive shows nothing
            /// else they must change.
            case removedMember
            /// The archived value has a type the current type does not read, such as a string
            /// where it reads a number.
            case changedType
            /// The archived value has the right JSON type but the current type refuses it: an enum
            /// case it no longer has, or a number its field cannot hold.
            case invalidValue
            /// Another change, which only a migration with a body can make.
            case other
        }

        /// Where, such as `state.expenses[0].memo`: the first place the load met it; the migration
        /// applies to every object of the same path.
        public let path: String
        /// What changed.
        public let kind: Kind
        /// What the load found, and why the migration fixes it.
        public let detail: String
        /// The Swift code of an ``ArchiveMigration`` that makes the change, for the next schema
        /// version; a placeholder, `<#…#>`, marks what only the app knows.
        public let migration: String

        init(path: String, kind: Kind, detail: String, migration: String) {
            self.path = path
            self.kind = kind
            self.detail = detail
            self.migration = migration
        }

        /// `path: detail`, then the migration.
        public var description: String { "\(path): \(detail). \(migration)" }
    }
}

extension PersistenceError.Kind {
    /// Whether the bytes are damaged: not an archive at all. Only such data is set aside as corrupt.
    var isDamage: Bool {
        switch self {
        case .empty, .notJSON, .tooDeep, .wrongShape: return true
        default: return false
        }
    }
}

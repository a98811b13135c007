import Foundation

/// Saves a store's state between launches and restores it, in a versioned JSON format.
///
/// An archive pairs a backend (a file by default, or `UserDefaults`) with the state's schema
/// version and the migrations from older versions. Restore the state when you create the store,
/// and let a ``PersistenceService`` save it as it changes:
///
/// ```swift
/// final class AppStore: Store<AppState>, @unchecked Sendable {
///     static let archive = StateArchive<AppState>(
///         file: FileArchiveBackend.defaultDirectory(forApplication: "MyApp")
///             .appendingPathComponent("AppState.json"))
///     static let shared = AppStore()
///
///     private init() {
///         super.init(
///             reducers: AppReducers.reducers,
///             state: Self.archive.restore(default: AppState()) { problem in
///                 Task { @MainActor in showDataProblem(problem.description) }
///             })
///     }
/// }
///
/// let persistence = PersistenceService(store: AppStore.shared, archive: AppStore.archive)
/// ```
///
/// ## Format
///
/// The archive holds `{"schemaVersion":N,"state":…}`, where the state is the store's own JSON
/// snapshot. Loading the current version decodes in one pass. An older version is read into a
/// `[String: Any]`, upgraded by the registered ``ArchiveMigration``s one version at a time, then
/// decoded. A newer version is refused with
/// ``PersistenceError/Kind/newerVersion(found:supported:)``.
///
/// ## An update migrates once
///
/// A ``load()`` (and so a ``restore(default:onProblem:)``) that upgrades an archive, through
/// migrations or by filling members from ``ArchiveDefaults``, writes the upgraded archive back,
/// after the checks of a save, so that later launches load it as it is. The archive it replaces
/// is kept beside it first, named for its schema version (`AppState.json.previous-v1`; for
/// `UserDefaults`, the key with that suffix, counted in the backend's size limit), and removed by
/// the first load that reads the upgraded one. When the write-back fails, the load still succeeds,
/// the archive stays as it was, and the failure is reported
/// (``RestoreProblem/notWrittenBack(_:)``). When a later launch finds the upgraded archive
/// damaged while the previous one is still kept, ``restore(default:onProblem:)`` sets the damaged
/// one aside and upgrades the previous one again (``RestoreProblem/restoredPrevious(from:)``).
/// ``loadFixture(at:)`` never writes back.
///
/// ## Nothing is lost
///
/// A load that fails throws a ``PersistenceError`` naming the location and the reason, and never
/// changes the archive. From then on no save replaces the unreadable data, until it is set aside
/// with ``setAside()`` or a later ``load()`` succeeds: saves go beside it, to the unmerged state
/// (`AppState.json.unmerged`, or the key with that suffix), which
/// ``restore(default:onProblem:)`` continues from at the next launch that still cannot read the
/// archive, and which a build that reads the archive hands back to merge (``loadUnmerged()``).
/// A save never replaces an unmerged state that this process has not loaded or written; it is then
/// refused with ``PersistenceError/Kind/wouldOverwriteUnmergedState``.
/// ``restore(default:onProblem:)`` sets damaged data aside for you, renamed with a
/// `.corrupt-<timestamp>` suffix, and starts from the default; saves then go to the archive.
///
/// This holds for every archive of the same file (``FileArchiveBackend``, by its standardized
/// path) or of the same key in the same `UserDefaults` object (``UserDefaultsArchiveBackend``) in
/// this process, whichever of them loaded, even one created later; a ``setAside()`` or a
/// successful ``load()`` through any of them ends it for all. These archives also take turns: a
/// save of one never runs while another loads. Two limits:
///
/// - Another process knows nothing of it: a process that has not itself failed to load the data
///   saves over it.
/// - An archive on a backend of your own keeps nothing beside it: it neither writes an upgraded
///   archive back nor saves while the data cannot be read (saves are refused), and it refuses only
///   its own saves, since ReduxSwift cannot tell when two of your backends are the same storage.
public final class StateArchive<State: StateProtocol>: Sendable {
    /// Where the bytes are kept.
    public let backend: any ArchiveBackend
    /// Where the data is, for a person to read: the file's path, or the `UserDefaults` key.
    ///
    /// ```swift
    /// print("Your data is in \(AppStore.archive.location)")
    /// ```
    public var location: String { backend.location }
    /// The schema version this program writes, 1 or more.
    public let schemaVersion: Int
    /// Whether object members whose names start with `_` are left out of the archive.
    ///
    /// Such members (Flask's "internal properties") are typically caches or transient flags. When
    /// they are left out, the state's `init(from:)` must accept their absence, for example by
    /// declaring them optional or by decoding them with `decodeIfPresent`. A save checks this: if
    /// the state cannot be decoded without them, it is refused with
    /// ``PersistenceError/Kind/encodingFailed(detail:)`` and the archive keeps the last state saved.
    ///
    /// The only names starting with `_` that are kept are `_` followed by one or more ASCII digits
    /// (`_0`, `_12`…): Swift gives them to the unlabelled associated values of enum cases. `_`,
    /// `__` and `_1a` are left out. The rule applies to every JSON object, so the keys of a
    /// `[String: Value]` dictionary that start with `_` are left out too.
    public let excludesUnderscoredKeys: Bool
    /// The largest archive, in bytes, that ``load()`` reads; larger ones are refused unread.
    public let sizeLimit: Int

    /// The migrations from each version, in the order given.
    let migrations: [Int: [ArchiveMigration]]
    /// Reads an archive that writes a float as a string, as most do (see
    /// ``EncodedSnapshot/floatStrings``).
    private let decoder: JSONDecoder
    /// Reads an archive that writes none.
    private let strictDecoder: JSONDecoder
    /// Runs backend calls one at a time and records a failed load, shared by every archive of the
    /// same file or `UserDefaults` key in this process.
    let sharedLocation: ArchiveLocation
    /// The key under which `sharedLocation` is shared, released when this archive goes away.
    private let locationKey: ArchiveLocation.Key?

    /// The default ``sizeLimit``: 64 MiB.
    public static var defaultSizeLimit: Int { 64 << 20 }

    /// Creates an archive on any backend.
    ///
    /// ```swift
    /// let archive = StateArchive<AppState>(
    ///     backend: UserDefaultsArchiveBackend(name: "AppState", namespace: "com.example.myapp"),
    ///     schemaVersion: 2, migrations: [ArchiveMigration(from: 1, removing: "legacyFlag")])
    /// ```
    ///
    /// - Precondition: `schemaVersion` is 1 or more, and each migration is from a version below
    ///   `schemaVersion`. The program stops otherwise.
    ///
    /// - Parameters:
    ///   - backend: Where the bytes are kept.
    ///   - schemaVersion: The version of the state's JSON shape that this program writes. Raise it
    ///     when the shape changes, and add migrations from the previous version.
    ///   - migrations: The migrations from each older version you still accept to the next one.
    ///     Several from the same version run in the order given, so that the lines a
    ///     ``PersistenceError/suggestedMigrations`` shows can be pasted as they are.
    ///   - excludesUnderscoredKeys: Whether to leave out object members whose names start with `_`.
    ///   - sizeLimit: The largest archive to read, in bytes.
    public init(
        backend: any ArchiveBackend,
        schemaVersion: Int = 1,
        migrations: [ArchiveMigration] = [],
        excludesUnderscoredKeys: Bool = false,
        sizeLimit: Int = StateArchive.defaultSizeLimit
    ) {
        precondition(schemaVersion >= 1, "schemaVersion must be 1 or more, not \(schemaVersion)")
        var table: [Int: [ArchiveMigration]] = [:]
        for migration in migrations {
            precondition(
                migration.fromVersion < schemaVersion,
                "A migration from version \(migration.fromVersion) needs schemaVersion \(migration.fromVersion + 1) "
                    + "or more, not \(schemaVersion): it turns an archive of version \(migration.fromVersion) "
                    + "into one of version \(migration.fromVersion + 1), so raise schemaVersion to "
                    + "\(migration.fromVersion + 1)")
            table[migration.fromVersion, default: []].append(migration)
        }
        self.backend = backend
        self.schemaVersion = schemaVersion
        self.migrations = table
        self.excludesUnderscoredKeys = excludesUnderscoredKeys
        self.sizeLimit = sizeLimit
        let decoder = SnapshotCoder.makeDecoder()
        decoder.userInfo[ArchiveFormat.currentVersionKey] = schemaVersion
        self.decoder = decoder
        let strictDecoder = SnapshotCoder.makeDecoder(floatStrings: nil)
        strictDecoder.userInfo[ArchiveFormat.currentVersionKey] = schemaVersion
        self.strictDecoder = strictDecoder
        (sharedLocation, locationKey) = ArchiveLocation.acquire(for: backend)
    }

    deinit {
        if let locationKey { ArchiveLocation.release(locationKey) }
    }

    /// Creates an archive kept in a JSON file, written atomically (see ``FileArchiveBackend``).
    ///
    /// ```swift
    /// let archive = StateArchive<AppState>(file: URL(fileURLWithPath: "/var/lib/myapp/state.json"))
    /// ```
    ///
    /// An app whose state changed shape raises the schema version and passes the migrations from
    /// the previous one, such as those a failed load suggests
    /// (``PersistenceError/suggestedMigrations``):
    ///
    /// ```swift
    /// let archive = StateArchive<ExpenseState>(
    ///     file: FileArchiveBackend.defaultDirectory(forApplication: "Expenses")
    ///         .appendingPathComponent("ExpenseState.json"),
    ///     schemaVersion: 2,
    ///     migrations: [
    ///         ArchiveMigration(from: 1, adding: "tags", json: "[]", in: "expenses[]"),
    ///         ArchiveMigration(from: 1, renaming: "note", to: "memo", in: "expenses[]"),
    ///         ArchiveMigration(from: 1, adding: "defaultCurrency", value: "EUR"),
    ///     ])
    /// ```
    ///
    /// - Precondition: `url` is a file URL; `schemaVersion` is 1 or more; and each migration is
    ///   from a version below `schemaVersion`. The program stops otherwise.
    ///
    /// - Parameters:
    ///   - url: The archive file. The file and its directories need not exist yet.
    ///   - schemaVersion: The version of the state's JSON shape that this program writes. Raise it
    ///     when the shape changes, and add migrations from the previous version.
    ///   - migrations: The migrations from each older version you still accept to the next one.
    ///     Several from the same version run in the order given.
    ///   - excludesUnderscoredKeys: Whether to leave out object members whose names start with `_`.
    ///   - sizeLimit: The largest archive to read, in bytes.
    public convenience init(
        file url: URL,
        schemaVersion: Int = 1,
        migrations: [ArchiveMigration] = [],
        excludesUnderscoredKeys: Bool = false,
        sizeLimit: Int = StateArchive.defaultSizeLimit
    ) {
        self.init(
            backend: FileArchiveBackend(url: url), schemaVersion: schemaVersion, migrations: migrations,
            excludesUnderscoredKeys: excludesUnderscoredKeys, sizeLimit: sizeLimit)
    }

    // MARK: Loading

    /// Loads the archived state, or returns `nil` when nothing has been archived.
    ///
    /// ```swift
    /// let state = try archive.load() ?? AppState()
    /// ```
    ///
    /// An archive that needed migrations or ``ArchiveDefaults`` to load is written back upgraded,
    /// keeping the previous one beside it until the upgraded one has loaded once (see
    /// ``StateArchive``). A write-back that fails does not fail the load: the archive stays as it
    /// was, and a debug build reports the failure as a runtime warning (a release build prints a
    /// line to standard error); ``restore(default:onProblem:)`` hands it to its handler instead.
    ///
    /// - Throws: ``PersistenceError`` naming the location and what went wrong. The archive is left as
    ///   it was, and no archive of its location in this process saves over it until it is set aside
    ///   or loads; saves go beside it instead: see ``StateArchive`` for which archives that covers.
    public func load() throws(PersistenceError) -> State? {
        var problems: [RestoreProblem] = []
        let state = try load(reporting: &problems, advisingFrom: { nil })
        for problem in problems {
            RuntimeWarning.report("\(problem)", releaseBuildsToo: true)
        }
        return state
    }

    /// Decodes an archive's bytes as ``load()`` does, and says whether they were upgraded: migrated
    /// from an older schema version, or filled with the defaults of ``ArchiveDefaults`` types.
    ///
    /// A load that needs migrations takes the values of members they add from the state
    /// `defaultState` makes, when it makes one.
    ///
    /// - Returns: The state; whether it was upgraded; and, when it was, the upgraded archive when the
    ///   load has it: bytes that decode as the state with `JSONDecoder` alone, for a write-back
    ///   that need not encode the state again.
    func decodeNotingUpgrade(_ data: Data, advisingFrom defaultState: () -> State? = { nil })
        throws(PersistenceError) -> (state: State, upgraded: Bool, archive: Data?)
    {
        let note = ArchiveUpgradeNote()
        let decoded = ArchiveUpgradeNote.$current.withValue(note) {
            Result { () throws(PersistenceError) in try decodeKeepingJSON(data, defaultState: defaultState) }
        }
        let loaded = try decoded.get()
        let migrated = ArchiveSiblings.schemaVersion(in: data).map { $0 < schemaVersion } ?? false
        let upgraded = migrated || note.didFill
        return (loaded.state, upgraded, upgraded ? loaded.archive : nil)
    }

    /// Loads the archived state, or starts from `defaultState` when there is none or it cannot be read;
    /// `onProblem` hears of anything the user should know.
    ///
    /// This is the one-liner for a store's initializer:
    ///
    /// ```swift
    /// super.init(
    ///     reducers: AppReducers.reducers,
    ///     state: Self.archive.restore(default: AppState()) { problem in
    ///         Task { @MainActor in showDataProblem(problem.description) }
    ///     })
    /// ```
    ///
    /// It loads as ``load()`` does, so an archive of an earlier version is upgraded and written back.
    /// Then:
    ///
    /// - When the archive is damaged (empty, not JSON, or JSON that is not an archive), it is set
    ///   aside (a file is renamed with a `.corrupt-<timestamp>` suffix, a `UserDefaults` value is
    ///   moved to such a key) so that the next save cannot overwrite it
    ///   (``RestoreProblem/setAside(_:at:)``). When the previous archive is still kept from the
    ///   last upgrade, the state comes from it, upgraded again (``RestoreProblem/restoredPrevious(from:)``);
    ///   otherwise from `defaultState`. Saves go to the archive's location.
    /// - Any other archive that fails to load is left where it is, since it is not damaged: one
    ///   that needs a migration (``PersistenceError/Kind/needsMigration(path:detail:migration:)``),
    ///   one written by a newer version, or one the system does not let this process read
    ///   (``RestoreProblem/unreadable(_:savingTo:resumed:)``). No save replaces it: saves go beside
    ///   it, to the unmerged state (`AppState.json.unmerged` beside `AppState.json`), and the state
    ///   starts from the unmerged state an earlier launch saved there, or from `defaultState`.
    /// - When the archive loads and an unmerged state is kept beside it, `onProblem` hears
    ///   ``RestoreProblem/unmerged(at:)`` on every launch until the app merges it: read it with
    ///   ``loadUnmerged()``, and remove it with ``removeUnmerged()`` once the merged state is saved.
    ///
    /// When the archive needs migrations, the error names every change it needs
    /// (``PersistenceError/migrationProblems``), and a migration that adds a member gives it the
    /// value it has in `defaultState`, which is how the member's declared default reaches the
    /// advice.
    ///
    /// - Parameters:
    ///   - defaultState: The state to start from when there is no usable archive.
    ///   - onProblem: Receives each problem, in the order met, before this returns. When `nil`, a
    ///     debug build reports each as a runtime warning (a runtime issue in Xcode, a line on
    ///     standard error elsewhere), and a release build prints one line to standard error.
    /// - Returns: The archived state, the previous or unmerged state, or `default`.
    public func restore(
        default defaultState: @autoclosure () -> State,
        onProblem: ((RestoreProblem) -> Void)? = nil
    ) -> State {
        var problems: [RestoreProblem] = []
        let state = restore(reporting: &problems, advisingFrom: { defaultState() })
        for problem in problems {
            if let onProblem {
                onProblem(problem)
            } else {
                RuntimeWarning.report(
                    "\(problem) Pass onProblem: to restore(default:onProblem:) to tell the user.",
                    releaseBuildsToo: true)
            }
        }
        return state ?? defaultState()
    }

    /// Loads the archived state, or starts from `defaultState` when there is none or it cannot be
    /// read, as ``restore(default:onProblem:)`` does; `onFailure` hears why the archive did not load.
    ///
    /// ```swift
    /// let state = archive.restore(default: AppState()) { error, keptAt in
    ///     print(error, keptAt.map { "The data was kept at \($0)." } ?? "")
    /// }
    /// ```
    ///
    /// `onFailure` receives the load's error, and where damaged data was set aside: `nil` when the
    /// data was left where it is (saves then go beside it; see ``loadUnmerged()``). Problems that
    /// are not a failed load (``RestoreProblem/restoredPrevious(from:)``,
    /// ``RestoreProblem/unmerged(at:)``, ``RestoreProblem/notWrittenBack(_:)``) are reported as
    /// runtime warnings, as with no handler; ``restore(default:onProblem:)`` hears every problem.
    ///
    /// - Parameters:
    ///   - defaultState: The state to start from when there is no usable archive.
    ///   - onFailure: Receives each failed load, or `nil` to report it as a runtime warning.
    /// - Returns: The archived state, the previous or unmerged state, or `default`.
    public func restore(
        default defaultState: @autoclosure () -> State,
        onFailure: ((_ error: PersistenceError, _ keptAt: String?) -> Void)?
    ) -> State {
        restore(default: defaultState()) { problem in
            switch (problem, onFailure) {
            case (.setAside(let error, let keptAt), let onFailure?): onFailure(error, keptAt)
            case (.unreadable(let error, _, _), let onFailure?): onFailure(error, nil)
            default:
                RuntimeWarning.report(
                    "\(problem) Pass onProblem: to restore(default:onProblem:) to tell the user.",
                    releaseBuildsToo: true)
            }
        }
    }

    /// Loads an archive kept as a test fixture, as a launch loads it, and checks that the current
    /// types keep every value it holds.
    ///
    /// Keep a copy of an archive each released version of the app wrote, and assert in one line
    /// that the current types still load it:
    ///
    /// ```swift
    /// @Test func archivesOfVersion1StillLoad() throws {
    ///     try AppStore.archive.loadFixture(
    ///         at: URL(fileURLWithPath: #filePath)
    ///             .deletingLastPathComponent().appendingPathComponent("Fixtures/AppState-1.0.json"))
    /// }
    /// ```
    ///
    /// The file is read as ``load()`` reads the archive (migrations and ``ArchiveDefaults`` included)
    /// and never changed; the archive's own location is not touched. Then the state is encoded
    /// again and compared with the archived state, after migrations: every member it held must come
    /// back with the same value. Members the current types add are fine; a member they drop (a
    /// property removed, or renamed with a default) or a value they change fails, naming the first
    /// path, so that a removal is written down as a migration
    /// (`ArchiveMigration(from:removing:in:)`) rather than happening by accident. Numbers compare by
    /// value, sets and other unordered collections by their elements.
    ///
    /// - Parameter url: The fixture file.
    /// - Returns: The loaded state, for further checks.
    /// - Throws: ``PersistenceError`` naming the fixture: what ``load()`` throws, or
    ///   ``PersistenceError/Kind/needsMigration(path:detail:migration:)`` for a value not kept.
    @discardableResult
    public func loadFixture(at url: URL) throws(PersistenceError) -> State {
        let location = url.path
        func fail(_ kind: PersistenceError.Kind) -> PersistenceError {
            PersistenceError(kind, stage: .load, location: location)
        }
        guard let data = try FileArchiveBackend(url: url).read(limit: sizeLimit) else {
            throw fail(.system(call: "open", errno: ENOENT, message: String(cString: strerror(ENOENT))))
        }
        let loaded: (state: State, json: Data?, archive: Data?)
        do {
            // Every object, not a launch's sample: a rename to an optional that only objects
            // outside it hold is asked about as a rename, not taken for a removed member.
            loaded = try decodeKeepingJSON(data, everyObject: true) { nil }
        } catch {
            throw error.naming(location)
        }
        var archived: JSONValue
        // Members the types cannot tell from another (their names differ only in Unicode
        // normalization) are values the load drops.
        var merged: [StateChange] = []
        do {
            if let json = loaded.json {
                archived = try JSONValue(parsing: json)
            } else {
                let read = try JSONValue.readNotingMergedMembers(data)
                archived = read.value.child("state") ?? .null
                merged = read.merged.filter { $0.path.first == "state" }.map { member in
                    StateChange(
                        path: StatePath.path(Array(member.path.dropFirst())), oldValue: member.value,
                        newValue: nil)
                }
            }
        } catch {
            throw fail(.notJSON(detail: "\(error)"))
        }
        let lost: [StateChange]
        do {
            lost = try Self.valuesNotKept(
                by: loaded.state, of: archived, floatStrings: SnapshotCoder.declaredFloatStrings(in: data),
                merged: merged)
        } catch {
            throw fail(
                .encodingFailed(
                    detail: SnapshotError(.encodingFailed, stateType: State.self, underlyingError: error)
                        .description))
        }
        if lost.isEmpty { return loaded.state }
        throw fail(
            MigrationAdvice.notKept(
                lost, in: loaded.state, schemaVersion: schemaVersion, migrated: loaded.json != nil))
    }

    /// The values of `archived`, an archived state, that `state`, decoded from it, does not keep
    /// when it is encoded again, sorted by path, with `merged` (members the load could not tell
    /// apart) among them; a number written differently, or a `null` left out, is kept.
    ///
    /// - Parameter variant: The variant of strings the archive writes floats as, if it declares one.
    /// - Throws: The error of encoding `state` again.
    static func valuesNotKept(
        by state: State, of archived: JSONValue, floatStrings variant: Int?, merged: [StateChange] = []
    ) throws -> [StateChange] {
        var archived = archived
        // Floats as the state is encoded again below: with the first variant of strings.
        if let variant, variant > 0 {
            let (written, standard) = (SnapshotCoder.floatStrings(variant), SnapshotCoder.floatStrings(0))
            archived = archived.mappingStrings { text in
                switch text {
                case written.nan: standard.nan
                case written.positive: standard.positive
                case written.negative: standard.negative
                default: text
                }
            }
        }
        // Floats as the archive writes them, whatever strings the state holds.
        let encoded = try SnapshotEncoder(choosesFloatStrings: false).encodeMarkingUnordered(state)
        let again = try SnapshotTree(parsing: encoded.data, unordered: encoded.unordered)
        return
            (merged
            + StateDiff.changes(
                from: SnapshotTree(archived, unordered: again.unordered), to: again,
                ignoringUnderscored: false,
                order: StateDiff.OrderProbe(again.value, as: State.self)))
            .filter { change in change.oldValue != nil && !MigrationAdvice.keepsValue(change) }
            .sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    }

    /// Moves the archived data aside with a `.corrupt-<timestamp>` suffix, and allows every archive
    /// of its location to save again.
    ///
    /// Saves then go to the archive's location. An unmerged state kept beside it stays where it is
    /// (see ``loadUnmerged()``).
    ///
    /// - Returns: The new location, or `nil` when nothing was archived.
    @discardableResult
    public func setAside() throws(PersistenceError) -> String? {
        try sharedLocation.exclusively { () throws(PersistenceError) -> String? in
            let keptAt = try backend.setAside(suffix: ArchiveFormat.corruptSuffix(at: Date()))
            sharedLocation.holdsUnreadableData = false
            return keptAt
        }
    }

    /// Decodes `type` as `JSONDecoder` does, looking at a sample of its objects for a member
    /// renamed to an optional; when a member is missing, decodes again, taking missing members of
    /// ``ArchiveDefaults`` types from their defaults. With `everyObject`, it decodes with the
    /// filling decoder alone, which looks at every object for a rename, as a load that migrates
    /// does when writing the defaults into the JSON could not settle it.
    ///
    /// `floats` says how the JSON writes the floats JSON cannot hold.
    ///
    /// - Returns: The value, and JSON that decodes as it with `JSONDecoder` alone: `data`, or
    ///   `data` with the defaults written in; `nil` when only the filling decoder read it.
    private func decodeFillingDefaults<T: Decodable>(
        _ type: T.Type, from data: Data, floats: ArchiveFloats, everyObject: Bool = false
    ) throws -> (value: T, asIs: Data?) {
        func decode(with decoder: JSONDecoder, first: Bool) throws -> (value: T, asIs: Data?) {
            if everyObject { return (try DefaultFilling.decode(T.self, from: data, like: decoder), nil) }
            do {
                return (try DefaultFilling.decode(T.self, from: data, like: decoder, mode: .checking), data)
            } catch let failure as DefaultFilling.Failure {
                switch failure.underlying {
                case DecodingError.keyNotFound:
                    ArchiveUpgradeNote.noteFilled()
                    if first, var tree = try? JSONValue(parsing: data),
                        let patched = DefaultFilling.decodeByPatching(T.self, root: &tree, like: decoder)
                    {
                        return (patched.value, patched.data)
                    }
                    return (try DefaultFilling.decode(T.self, from: data, like: decoder), nil)
                case is DefaultFilling.RenamedToOptional:
                    throw failure
                default:
                    // What `JSONDecoder` threw, as it threw it.
                    throw failure.underlying
                }
            }
        }
        switch floats {
        case .strings(let variant):
            return try decode(with: floatDecoder(variant), first: true)
        case .unknown:
            do {
                return try decode(with: strictDecoder, first: true)
            } catch {
                // Floats as strings an earlier version wrote without saying so: rare enough that
                // the filling decoder reads them alone.
                return try decode(with: decoder, first: false)
            }
        }
    }

    /// The decoder of an archive that writes floats JSON cannot hold as the strings of `variant`.
    private func floatDecoder(_ variant: Int) -> JSONDecoder {
        SnapshotCoder.decoder(floatStrings: variant, strict: strictDecoder, lenient: decoder)
    }

    /// How an archive writes the `Double`s and `Float`s JSON cannot hold.
    private enum ArchiveFloats {
        /// As the strings of a variant (see ``SnapshotCoder``).
        case strings(Int)
        /// An archive an earlier version wrote, which does not say: read as writing none first.
        case unknown

        /// The variant an archive of the same JSON declares.
        var variant: Int? {
            if case .strings(let variant) = self { return variant }
            return nil
        }
    }

    /// The state in `data`; the JSON of the state it was decoded from, after migrations; and the
    /// archive of a state that was upgraded when the load has it as bytes that decode as the state
    /// with `JSONDecoder` alone. `defaultState` makes the state whose values the advice of a load
    /// that needs migrations gives the members it adds. With `everyObject`, a state that needs
    /// nothing is looked at whole for renames to optionals, not through a launch's sample.
    private func decodeKeepingJSON(
        _ data: Data, everyObject: Bool = false, defaultState: () -> State?
    ) throws(PersistenceError) -> (state: State, json: Data?, archive: Data?) {
        if data.isEmpty { throw failure(.load, .empty) }
        let envelope: ArchiveFormat.Envelope<State>
        // An archive that says it writes floats as strings is read so; any other may be one an earlier
        // version wrote without saying it.
        let floats = SnapshotCoder.declaredFloatStrings(in: data).map(ArchiveFloats.strings) ?? .unknown
        // An archive of an earlier version that says so at its start, as the library writes one,
        // goes to its migrations without a `JSONDecoder` pass that would skip its state anyway.
        if let version = ArchiveSiblings.leadingSchemaVersion(in: data), version < schemaVersion {
            return try migrate(data, from: version, floats: floats, defaultState: defaultState)
        }
        let asIs: Data?
        do {
            (envelope, asIs) = try decodeFillingDefaults(
                ArchiveFormat.Envelope<State>.self, from: data, floats: floats, everyObject: everyObject)
        } catch {
            let kind = ArchiveFormat.classify(
                data, decodingError: error, stateType: State.self, schemaVersion: schemaVersion
            ) { data in
                _ = try decodeFillingDefaults(
                    ArchiveFormat.Envelope<State>.self, from: data, floats: floats, everyObject: everyObject)
            }
            guard case .needsMigration = kind,
                case .object(let envelope)? = try? JSONValue(parsing: data),
                let archived = envelope["state"]
            else { throw failure(.load, kind) }
            throw needsMigration(
                kind, state: archived, floats: floats, migrated: false, defaultState: defaultState)
        }
        if let state = envelope.state { return (state, nil, asIs) }
        if envelope.schemaVersion > schemaVersion {
            throw failure(.load, .newerVersion(found: envelope.schemaVersion, supported: schemaVersion))
        }
        return try migrate(data, from: envelope.schemaVersion, floats: floats, defaultState: defaultState)
    }

    /// The error of a state that needs migrations, `first` being the first change found: it names
    /// every change a ``MigrationSurvey`` finds in `state`, the archived state after the
    /// registered migrations.
    private func needsMigration(
        _ first: PersistenceError.Kind, state: JSONValue, floats: ArchiveFloats, migrated: Bool,
        adviceVersion: Int? = nil, defaultState: () -> State?
    ) -> PersistenceError {
        let lenient: JSONDecoder
        let decode: (Data) throws -> Void
        switch floats {
        case .strings(let variant):
            lenient = SnapshotCoder.decoder(floatStrings: variant, strict: strictDecoder, lenient: decoder)
            decode = { _ = try DefaultFilling.decode(State.self, from: $0, like: lenient) }
        case .unknown:
            lenient = decoder
            decode = { [strictDecoder] data in
                do {
                    _ = try DefaultFilling.decode(State.self, from: data, like: strictDecoder)
                } catch {
                    _ = try DefaultFilling.decode(State.self, from: data, like: lenient)
                }
            }
        }
        let context = MigrationAdvice.Context(
            version: adviceVersion ?? schemaVersion, stateType: State.self, codingPathPrefix: 0,
            migrated: migrated, defaults: DefaultStateValues(defaultState))
        var survey = MigrationSurvey(context: context, decode: decode, decoder: lenient)
        survey.census = { data in
            let census = MemberCensus()
            let value = try? DefaultFilling.decode(
                State.self, from: data, like: lenient,
                session: FillSession(decoder: lenient, mode: .filling, census: census))
            let written = value.flatMap { try? SnapshotCoder.makeJSONEncoder().encode($0) }.flatMap {
                try? JSONValue(parsing: $0)
            }
            return (census, written)
        }
        var problems = survey.problems(in: state)
        if problems.isEmpty, case .missingMigration = first,
            let value = try? DefaultFilling.decode(State.self, from: state.data, like: lenient),
            let lost = try? Self.valuesNotKept(by: value, of: state, floatStrings: floats.variant)
        {
            // The types read the state as it is: what the missing migrations must change is what
            // they do not keep, or nothing the archive shows.
            problems = MigrationAdvice.unseenChanges(
                lost, in: value, version: context.version, migrated: context.migrated)
        }
        guard let problem = problems.first else { return failure(.load, first) }
        if case .missingMigration = first {
            return PersistenceError(
                first, stage: .load, location: backend.location, migrationProblems: problems)
        }
        return PersistenceError(
            .needsMigration(path: problem.path, detail: problem.detail, migration: problem.migration),
            stage: .load,
            location: backend.location, migrationProblems: problems)
    }

    private func migrate(
        _ data: Data, from version: Int, floats: ArchiveFloats, defaultState: () -> State?
    ) throws(PersistenceError) -> (state: State, json: Data?, archive: Data?) {
        var migrated: JSONValue
        do {
            migrated = try migratedJSON(data, from: version)
        } catch {
            guard case .missingMigration(let step) = error.kind,
                let before = try? migratedJSON(data, from: version, to: step)
            else { throw error }
            // Raised before the migrations were written: the error names what they must change.
            throw needsMigration(
                error.kind, state: before, floats: floats, migrated: step > version, adviceVersion: step,
                defaultState: defaultState)
        }
        // The defaults written into the JSON, which `JSONDecoder` then decodes: every object is
        // looked at for a rename, whether or not a member is missing.
        let patchingDecoder = floats.variant.map(floatDecoder) ?? strictDecoder
        if let patched = DefaultFilling.decodeByPatching(State.self, root: &migrated, like: patchingDecoder) {
            let archive = ArchiveFormat.envelope(
                schemaVersion: schemaVersion, state: patched.data, floatStrings: floats.variant)
            return (patched.value, patched.data, archive)
        }
        // What writing the defaults in could not settle, the filling decoder decodes, from the
        // migrated JSON without them.
        let json = try migratedJSON(data, from: version).data
        do {
            return (
                try decodeFillingDefaults(State.self, from: json, floats: floats, everyObject: true).value,
                json, nil
            )
        } catch {
            let explained = UnfitNumber.explain(DefaultFilling.unwrapped(error), in: json, under: []) {
                data in
                _ = try decodeFillingDefaults(State.self, from: data, floats: floats)
            }
            let first = MigrationAdvice.kind(
                for: error, explained: explained, stateType: State.self, schemaVersion: schemaVersion,
                codingPathPrefix: 0, migrated: true)
            guard let state = try? JSONValue(parsing: json) else { throw failure(.load, first) }
            throw needsMigration(
                first, state: state, floats: floats, migrated: true, defaultState: defaultState)
        }
    }

    /// The archived state in `data`, of version `version`, after the migrations to this version.
    ///
    /// When every migration it needs is a member migration, they change the JSON as read; otherwise
    /// the state goes to Foundation objects for the migrations and back.
    private func migratedJSON(_ data: Data, from version: Int, to target: Int? = nil)
        throws(PersistenceError) -> JSONValue
    {
        // Read with the library's reader rather than JSONSerialization, which changes `-0`, strings
        // starting with U+FEFF and numbers a Double cannot hold: what a migration does not touch
        // must decode as it was saved. `numberTexts` keeps the text of such numbers for the way back.
        var parsed: JSONValue
        do {
            parsed = try JSONValue(parsing: data)
        } catch {
            throw failure(
                .load,
                error.isTooDeep ? .tooDeep(limit: ArchiveFormat.depthLimit) : .notJSON(detail: "\(error)"))
        }
        guard case .object(var envelope) = parsed else {
            throw failure(.load, .wrongShape(detail: "it has no \"state\""))
        }
        // One reference to the state's storage, so that the migrations change it in place.
        parsed = .null
        guard var archived = envelope.removeValue(forKey: "state") else {
            throw failure(.load, .wrongShape(detail: "it has no \"state\""))
        }
        guard case .object = archived else {
            // The archive is fine; the state's own encoding is not an object, which a migration
            // cannot change.
            throw failure(
                .load,
                .migrationFailed(
                    from: version,
                    detail: "migrations need the archived state to be a JSON object, not \(archived.kind)"))
        }
        var steps: [(version: Int, migrations: [ArchiveMigration])] = []
        for step in version..<(target ?? schemaVersion) {
            guard let migrations = migrations[step] else {
                throw failure(.load, .missingMigration(from: step))
            }
            steps.append((step, migrations))
        }
        let edits = steps.flatMap(\.migrations).compactMap(\.edit)
        if edits.count == steps.reduce(0, { $0 + $1.migrations.count }) {
            for edit in edits { edit(&archived) }
            return archived
        }
        var numberTexts = NumberTexts()
        guard var state = archived.foundationObject(recording: &numberTexts) as? [String: Any] else {
            throw failure(.load, .wrongShape(detail: "it has no \"state\""))
        }
        archived = .null
        for (step, migrations) in steps {
            do {
                for migration in migrations { try migration.body(&state) }
            } catch {
                throw failure(.load, .migrationFailed(from: step, detail: "\(error)"))
            }
        }
        do {
            return try JSONValue(foundationObject: state, at: "state", keeping: numberTexts)
        } catch {
            // The archive is not damaged: a migration left a value JSON cannot hold.
            throw failure(
                .load,
                .migrationFailed(
                    from: schemaVersion - 1,
                    detail:
                        "after migrating to version \(schemaVersion), the state holds a value JSON cannot "
                        + "hold: \(error)"))
        }
    }

    // MARK: Saving

    /// Encodes `state` and saves it, returning when the bytes are durable.
    ///
    /// To save a store's state, use a ``PersistenceService``: it reuses the store's cached
    /// encoding instead of encoding again.
    ///
    /// While the archive holds data that failed to load, the save goes beside it, to the unmerged
    /// state (see ``loadUnmerged()``).
    ///
    /// A save never writes what the next launch would refuse: before the archive is touched, it
    /// checks what ``load()`` checks (JSON that decodes as `State` again, the ``sizeLimit``; the
    /// nesting depth holds by construction, as a state nests no deeper than `JSONEncoder` writes)
    /// and throws, naming the path and the value where there is one, such as
    /// `expenses[41].amount: a Decimal NaN`.
    ///
    /// - Throws: ``PersistenceError``; the previously archived state is then unchanged.
    public func save(_ state: State) throws(PersistenceError) {
        let snapshot = SnapshotCoder.encode(state, version: 0, with: SnapshotCoder.makeEncoder())
        try save(snapshot: snapshot, roundTripped: false)
    }

    /// Saves a store snapshot's JSON, wrapped in the envelope, once it has checked that ``load()``
    /// reads it back: `roundTripped` says that a reader already decoded this very snapshot.
    ///
    /// - Returns: Whether the check decoded the snapshot's own bytes as they are, as a reader of the
    ///   store would: the store may then fall back to this version when a later one fails.
    @discardableResult
    func save(snapshot: Snapshot, roundTripped: Bool) throws(PersistenceError) -> Bool {
        let prepared = try prepare(snapshot: snapshot, roundTripped: roundTripped)
        try sharedLocation.exclusively { () throws(PersistenceError) in
            if sharedLocation.holdsUnreadableData {
                try saveBeside(prepared.envelope)
            } else {
                try backend.write(prepared.envelope)
            }
        }
        return prepared.decodedAsIs
    }

    /// The archive of a store snapshot's JSON, once it has passed every check of a save (see
    /// ``save(snapshot:roundTripped:)``), and whether the check decoded its bytes as they are.
    func prepare(snapshot: Snapshot, roundTripped: Bool) throws(PersistenceError) -> (
        envelope: Data, decodedAsIs: Bool
    ) {
        var json: Data
        switch snapshot.result {
        case .success(let data):
            json = data
        case .failure(let error):
            throw failure(.save, .encodingFailed(detail: error.description))
        }
        var decodesAgain = roundTripped
        if excludesUnderscoredKeys {
            do {
                json = try ArchiveFormat.removingUnderscoredKeys(from: json)
            } catch {
                throw failure(.save, .encodingFailed(detail: "\(error)"))
            }
            decodesAgain = false
        }
        var decodedAsIs = false
        if !decodesAgain {
            // A save must never write what a load refuses, such as a number a type cannot hold
            // again or a state whose `init(from:)` needs a member that was left out.
            let decode = { (data: Data) throws -> Bool in
                let decoder = SnapshotCoder.decoder(
                    floatStrings: snapshot.floatStrings, strict: self.strictDecoder, lenient: self.decoder)
                let run = { () throws -> Bool in
                    do {
                        _ = try decoder.decode(State.self, from: data)
                        return true
                    } catch DecodingError.keyNotFound {
                        _ = try DefaultFilling.decode(State.self, from: data, like: decoder)
                        return false
                    }
                }
                return snapshot.needsDeepStack ? try DeepStack.run(run) : try run()
            }
            do {
                decodedAsIs = try decode(json) && !excludesUnderscoredKeys
            } catch {
                // A number its type cannot hold again: named with its path, as a load names it.
                let explained = UnfitNumber.explain(DefaultFilling.unwrapped(error), in: json, under: []) {
                    _ = try decode($0)
                }
                let detail = SnapshotError(.decodingFailed, stateType: State.self, underlyingError: explained)
                    .description
                let without =
                    excludesUnderscoredKeys ? "without its members whose names start with \"_\" " : ""
                throw failure(
                    .save, .encodingFailed(detail: "\(without)it could not be loaded again (\(detail))"))
            }
        }
        let envelope = ArchiveFormat.envelope(
            schemaVersion: schemaVersion, state: json, floatStrings: snapshot.floatStrings)
        if envelope.count > sizeLimit {
            throw failure(.save, .tooLarge(bytes: envelope.count, limit: sizeLimit))
        }
        return (envelope, decodedAsIs)
    }

    private func failure(_ stage: PersistenceError.Stage, _ kind: PersistenceError.Kind)
        -> PersistenceError
    {
        PersistenceError(kind, stage: stage, location: backend.location)
    }
}

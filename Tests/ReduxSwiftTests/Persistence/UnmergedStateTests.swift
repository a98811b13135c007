import Foundation
import Testing

@testable import ReduxSwift

/// No edit is lost while an archive cannot be read: the app is told at launch, what the user does
/// is saved beside the archive, never over it, and a build that reads both gets both back.
@Suite(.offThePool) struct UnmergedStateTests {
    /// A store of version 2's state whose actions add a note.
    func store(_ state: NotesV2.State) -> Store<NotesV2.State> {
        Store(
            reducers: [
                { state, action in
                    if case .append(let body)? = action as? TestAction {
                        state.notes.append(.init(id: state.notes.count + 1, body: body))
                    }
                }
            ],
            state: state)
    }

    /// Version 3's archive, which version 2 cannot read.
    func saveVersion3(_ place: ArchivePlace) throws -> Data {
        try place.v3Archive().save(.sample)
        return try #require(place.data())
    }

    @Test(arguments: StorageKind.allCases)
    func editsWhileTheArchiveCannotBeReadAreSavedBesideItAndTheAppIsTold(_ kind: StorageKind) throws {
        let place = ArchivePlace(kind)
        let newer = try saveVersion3(place)

        let heard = Recorder<RestoreProblem>()
        let archive = place.v2Archive()
        let store = store(archive.restore(default: NotesV2.State(), onProblem: heard.append))
        #expect(store.currentState() == NotesV2.State())
        let expectedError = PersistenceError(
            .newerVersion(found: 3, supported: 2), stage: .load, location: place.location())
        #expect(
            heard.values == [
                .unreadable(expectedError, savingTo: place.location(".unmerged"), resumed: false)
            ])
        #expect(heard.values.first?.description.contains("changes are saved beside it") == true)

        // A service saves what the user does beside the archive, and reports no failure.
        let failures = Recorder<PersistenceError>()
        let service = PersistenceService(store: store, archive: archive, onError: failures.append)
        store.dispatch(TestAction.append("tea"))
        try service.flush()
        #expect(failures.values.isEmpty)
        #expect(place.data() == newer, "never over the archive")
        #expect(place.kept == ["", ".unmerged"])
        let unmerged = StateArchive<NotesV2.State>(
            backend: FileArchiveBackend(url: place.directory.file("copy.json")), schemaVersion: 2)
        try #require(place.data(".unmerged")).write(to: place.directory.file("copy.json"))
        #expect(try unmerged.load() == NotesV2.State(notes: [.init(id: 1, body: "tea")]))
    }

    @Test(arguments: StorageKind.allCases)
    func aSecondLaunchThatCannotReadTheArchiveContinuesFromTheUnmergedState(_ kind: StorageKind) throws {
        let place = ArchivePlace(kind)
        let newer = try saveVersion3(place)
        let first = place.v2Archive()
        let firstStore = store(first.restore(default: NotesV2.State()) { _ in })
        firstStore.dispatch(TestAction.append("tea"))
        try PersistenceService(store: firstStore, archive: first).stop()

        // The next launch of the same build starts where the first one stopped, and keeps saving there.
        let heard = Recorder<RestoreProblem>()
        let second = place.v2Archive()
        let secondStore = store(second.restore(default: NotesV2.State(), onProblem: heard.append))
        #expect(secondStore.currentState().notes.map(\.body) == ["tea"])
        guard case .unreadable(_, place.location(".unmerged"), true)? = heard.values.first,
            heard.values.count == 1
        else {
            Issue.record("expected unreadable, resumed, heard \(heard.values)")
            return
        }
        #expect(
            heard.values.first?.description.contains("continues from the changes saved beside it") == true)
        secondStore.dispatch(TestAction.append("jam"))
        try PersistenceService(store: secondStore, archive: second).stop()
        #expect(place.data() == newer)

        let third = place.v2Archive().restore(default: NotesV2.State()) { _ in }
        #expect(third.notes.map(\.body) == ["tea", "jam"])
    }

    @Test(arguments: StorageKind.allCases)
    func aBuildThatReadsTheArchiveGetsBothBackAndTheAppMerges(_ kind: StorageKind) throws {
        let place = ArchivePlace(kind)
        // Version 1 cannot read what version 2 saved (a downgrade): the user adds a note meanwhile.
        try place.v2Archive().save(.sample)
        let version1 = place.v1Archive()
        let oldStore = Store<NotesV1.State>(
            reducers: [
                { state, action in
                    if action is TestAction { state.notes.append(.init(id: 9, text: "tea")) }
                }
            ],
            state: version1.restore(default: NotesV1.State()) { _ in })
        oldStore.dispatch(TestAction.increment)
        try PersistenceService(store: oldStore, archive: version1).stop()
        #expect(place.kept == ["", ".unmerged"])

        // Version 2 again: the archive loads, and the unmerged state, written by version 1, waits.
        let heard = Recorder<RestoreProblem>()
        let archive = place.v2Archive()
        var state = archive.restore(default: NotesV2.State(), onProblem: heard.append)
        #expect(state == .sample)
        #expect(heard.values == [.unmerged(at: place.location(".unmerged"))])
        #expect(heard.values.first?.description.contains("loadUnmerged()") == true)

        // The app merges, saves, and only then removes the unmerged state.
        let unmerged = try #require(try archive.loadUnmerged())
        #expect(unmerged == NotesV2.State(notes: [.init(id: 9, body: "tea")]), "migrated from version 1")
        state.notes += unmerged.notes
        try archive.save(state)
        #expect(try archive.removeUnmerged())
        #expect(place.kept == [""])

        let later = Recorder<RestoreProblem>()
        #expect(place.v2Archive().restore(default: NotesV2.State(), onProblem: later.append).notes.count == 3)
        #expect(later.values.isEmpty)
    }

    /// Version 1 of a settings state, and version 2, which made the size a string and doubled it,
    /// and added a theme with a default.
    nonisolated struct SettingsV1: StateProtocol, Equatable { var size: Int }
    nonisolated struct SettingsV2: StateProtocol, Equatable, ArchiveDefaults {
        var size = "?"
        var theme = "light"
    }
    /// Version 2's types as a build that forgot to raise the version shipped them, before the theme.
    nonisolated struct SettingsEarlyV2: StateProtocol, Equatable { var size: String }

    /// Version 2's archive, converting version 1's size.
    func settingsV2(_ place: ArchivePlace) -> StateArchive<SettingsV2> {
        StateArchive(
            backend: place.backend, schemaVersion: 2,
            migrations: [ArchiveMigration(from: 1, converting: "size") { String(2 * ($0 as? Int ?? -1)) }])
    }

    @Test(arguments: StorageKind.allCases)
    func editsSavedByTypesThatChangedWithoutANewVersionAreNotMigratedAgainByTheBuildThatRaisesIt(
        _ kind: StorageKind
    ) throws {
        let place = ArchivePlace(kind)
        try StateArchive<SettingsV1>(backend: place.backend).save(SettingsV1(size: 10))
        // A build shipped version 2's types still calling them version 1: it cannot read the
        // archive, and saves what the user does beside it.
        let early = StateArchive<SettingsEarlyV2>(backend: place.backend, schemaVersion: 1)
        _ = early.restore(default: SettingsEarlyV2(size: "?")) { _ in }
        try early.save(SettingsEarlyV2(size: "21"))
        #expect(place.kept == ["", ".unmerged"])

        // The build that raises the version migrates the archive, and takes the saved edits as they
        // are, with the member it adds filled: they already have version 2's shape.
        let heard = Recorder<RestoreProblem>()
        let fixed = settingsV2(place)
        #expect(
            fixed.restore(default: SettingsV2(size: "?"), onProblem: heard.append) == SettingsV2(size: "20"))
        #expect(heard.values == [.unmerged(at: place.location(".unmerged"))])
        #expect(try fixed.loadUnmerged() == SettingsV2(size: "21"))
    }

    @Test func typesThatChangedWithoutANewVersionAreARuntimeWarningEvenWhenTheAppHandlesTheLoad() throws {
        let place = ArchivePlace(.file)
        try StateArchive<SettingsV1>(backend: place.backend).save(SettingsV1(size: 10))
        let warnings = Recorder<String>()
        let listener = RuntimeWarning.addListener { warnings.append($0) }
        defer { RuntimeWarning.removeListener(listener) }

        // A migration that misses a change is the advice's to report, not a forgotten version.
        let incomplete = StateArchive<SettingsEarlyV2>(
            backend: place.backend, schemaVersion: 2, migrations: [ArchiveMigration(from: 1) { _ in }])
        _ = incomplete.restore(default: SettingsEarlyV2(size: "?")) { _ in }
        let forgotten = { (warning: String) in
            warning.contains(place.location()) && warning.contains("without a new schemaVersion")
        }
        #expect(!warnings.values.contains(where: forgotten), "\(warnings.values)")

        let early = StateArchive<SettingsEarlyV2>(backend: place.backend, schemaVersion: 1)
        _ = early.restore(default: SettingsEarlyV2(size: "?")) { _ in }
        #expect(
            warnings.values.contains { forgotten($0) && $0.contains("their own schemaVersion 1") },
            "\(warnings.values)")
    }

    @Test(arguments: StorageKind.allCases)
    func editsSavedByTypesThatChangedWithoutANewVersionKeepTheirValuesWhenTheFixedBuildAddsAMember(
        _ kind: StorageKind
    ) throws {
        nonisolated struct Fixed: StateProtocol, Equatable {
            var size: String
            var font: String
        }
        let place = ArchivePlace(kind)
        try StateArchive<SettingsV1>(backend: place.backend).save(SettingsV1(size: 10))
        let early = StateArchive<SettingsEarlyV2>(backend: place.backend, schemaVersion: 1)
        _ = early.restore(default: SettingsEarlyV2(size: "?")) { _ in }
        try early.save(SettingsEarlyV2(size: "21"))

        // The fixed build also adds a member with no default, through a migration: the saved edits
        // take it, and their size is not converted again.
        let fixed = StateArchive<Fixed>(
            backend: place.backend, schemaVersion: 2,
            migrations: [
                ArchiveMigration(from: 1, converting: "size") { String(2 * ($0 as? Int ?? -1)) },
                ArchiveMigration(from: 1, adding: "font", value: "serif"),
            ])
        #expect(
            fixed.restore(default: Fixed(size: "?", font: "?")) { _ in } == Fixed(size: "20", font: "serif"))
        #expect(try fixed.loadUnmerged() == Fixed(size: "21", font: "serif"))
    }

    @Test(arguments: StorageKind.allCases)
    func editsSavedAfterGoingBackFromTheFixedBuildToOneThatForgotTheVersionStayUnsure(
        _ kind: StorageKind
    ) throws {
        let place = ArchivePlace(kind)
        try StateArchive<SettingsV1>(backend: place.backend).save(SettingsV1(size: 10))
        func early() -> StateArchive<SettingsEarlyV2> {
            StateArchive(backend: place.backend, schemaVersion: 1)
        }
        _ = early().restore(default: SettingsEarlyV2(size: "?")) { _ in }
        try early().save(SettingsEarlyV2(size: "21"))
        // The fixed build runs once and writes the archive back as version 2; then the user goes
        // back to the build that forgot the version, which continues from its saved edits.
        _ = settingsV2(place).restore(default: SettingsV2()) { _ in }
        let resumed = early().restore(default: SettingsEarlyV2(size: "?")) { _ in }
        #expect(resumed == SettingsEarlyV2(size: "21"))
        try early().save(SettingsEarlyV2(size: "22"))

        // The fixed build again: its launch reads the archive, then the edits, not converted twice.
        let fixed = settingsV2(place)
        #expect(fixed.restore(default: SettingsV2()) { _ in } == SettingsV2(size: "20"))
        #expect(try fixed.loadUnmerged() == SettingsV2(size: "22"))
    }

    @Test(arguments: StorageKind.allCases)
    func editsOfTypesThatDoNotReadWhatTheirOwnMigrationsMakeAreUnsureToo(_ kind: StorageKind) throws {
        let place = ArchivePlace(kind)
        try StateArchive<SettingsV1>(backend: place.backend).save(SettingsV1(size: 10))
        // Version 2 added the theme; this build also changed the size's type, without version 3.
        let addTheme = ArchiveMigration(from: 1, adding: "theme", value: "light")
        let early = StateArchive<SettingsV2>(backend: place.backend, schemaVersion: 2, migrations: [addTheme])
        _ = early.restore(default: SettingsV2()) { _ in }
        try early.save(SettingsV2(size: "21"))

        let fixed = StateArchive<SettingsV2>(
            backend: place.backend, schemaVersion: 3,
            migrations: [
                addTheme, ArchiveMigration(from: 2, converting: "size") { String(2 * ($0 as? Int ?? -1)) },
            ])
        #expect(fixed.restore(default: SettingsV2()) { _ in } == SettingsV2(size: "20"))
        #expect(try fixed.loadUnmerged() == SettingsV2(size: "21"))
    }

    @Test(arguments: StorageKind.allCases)
    func aRenameThatReshapesUnsureEditsNeverReplacesAMemberTheyHold(_ kind: StorageKind) throws {
        nonisolated struct Old: StateProtocol, Equatable { var title: String }
        // Version 2's types: `title` became `name`, and a new `title` holds a subtitle.
        nonisolated struct Early: StateProtocol, Equatable {
            var name: String
            var title: String?
        }
        nonisolated struct Fixed: StateProtocol, Equatable {
            var name: String
            var title: String?
            var stars: Int
        }
        let place = ArchivePlace(kind)
        try StateArchive<Old>(backend: place.backend).save(Old(title: "kept"))
        let early = StateArchive<Early>(backend: place.backend, schemaVersion: 1)
        _ = early.restore(default: Early(name: "?")) { _ in }
        try early.save(Early(name: "edited", title: "subtitle"))

        let fixed = StateArchive<Fixed>(
            backend: place.backend, schemaVersion: 2,
            migrations: [
                ArchiveMigration(from: 1, renaming: "title", to: "name"),
                ArchiveMigration(from: 1, adding: "stars", value: 0),
            ])
        #expect(fixed.restore(default: Fixed(name: "?", stars: 0)) { _ in } == Fixed(name: "kept", stars: 0))
        #expect(try fixed.loadUnmerged() == Fixed(name: "edited", title: "subtitle", stars: 0))
    }

    @Test(arguments: StorageKind.allCases)
    func editsSavedByTheTypesOfTheirOwnVersionAreMigratedByALaterBuild(_ kind: StorageKind) throws {
        // Version 2 doubled the size and kept its type, so version 1's edits read as version 2's
        // types as they are: only their version tells that they need the migration.
        let place = ArchivePlace(kind)
        func scaled() -> StateArchive<SettingsV1> {
            StateArchive(
                backend: place.backend, schemaVersion: 2,
                migrations: [ArchiveMigration(from: 1, converting: "size") { 2 * ($0 as? Int ?? -1) }])
        }
        // An archive of version 2 (the user went back to version 1 of the app), which version 1
        // cannot read: the edits it saves beside it have version 1's shape, and are tagged so.
        try scaled().save(SettingsV1(size: 20))
        let older = StateArchive<SettingsV1>(backend: place.backend)
        _ = older.restore(default: SettingsV1(size: 0)) { _ in }
        try older.save(SettingsV1(size: 7))

        #expect(scaled().restore(default: SettingsV1(size: 0)) { _ in } == SettingsV1(size: 20))
        #expect(try scaled().loadUnmerged() == SettingsV1(size: 14), "migrated from version 1")
    }

    @Test func anUnmergedStateOfAVersionWithNoMigrationNamesTheChangesAndTheirBlockAsTheArchiveDoes() throws {
        struct Todo: Codable, Equatable { var name: String }
        struct StateV1: StateProtocol, Equatable { var todos: [Todo1] }
        struct Todo1: Codable, Equatable { var title: String }
        struct StateV2: StateProtocol, Equatable { var todos: [Todo] }
        let directory = TemporaryDirectory()
        let file = directory.file("Todos.json")
        let rename = ArchiveMigration(from: 1, renaming: "title", to: "name", in: "todos[]")
        try StateArchive<StateV1>(file: file).save(StateV1(todos: [Todo1(title: "a")]))
        // Version 2 upgrades the archive; a downgrade to version 1 cannot read it, and saves beside it.
        _ = StateArchive<StateV2>(file: file, schemaVersion: 2, migrations: [rename]).restore(
            default: StateV2(todos: [])
        ) { _ in }
        let downgraded = StateArchive<StateV1>(file: file)
        _ = downgraded.restore(default: StateV1(todos: [])) { _ in }
        try downgraded.save(StateV1(todos: [Todo1(title: "a"), Todo1(title: "b")]))
        // A build of version 2 without the migration reads the archive, and not the unmerged state.
        let forgetful = StateArchive<StateV2>(file: file, schemaVersion: 2)
        #expect(try forgetful.load() == StateV2(todos: [Todo(name: "a")]))
        let error = #expect(throws: PersistenceError.self) { try forgetful.loadUnmerged() }
        #expect(error?.kind == .missingMigration(from: 1))
        #expect(error?.location == file.path + ".unmerged")
        #expect(error?.migrationProblems.map(\.path) == ["state.todos[0].name"])
        #expect(
            error?.suggestedMigrations?.contains(
                ##"ArchiveMigration(from: 1, renaming: <#"title", or delete this line#>, to: "name", in: "todos[]")"##
            )
                == true, "\(String(describing: error))")
        // With it, the edits come back.
        let fixed = StateArchive<StateV2>(file: file, schemaVersion: 2, migrations: [rename])
        #expect(try fixed.loadUnmerged() == StateV2(todos: [Todo(name: "a"), Todo(name: "b")]))
    }

    @Test func theUnmergedStateIsReportedAtEveryLaunchUntilTheAppRemovesIt() throws {
        let place = ArchivePlace(.file)
        try place.v2Archive().save(.sample)
        place.write(#"{"schemaVersion":2,"state":{"notes":[]}}"#, ".unmerged")
        for _ in 0..<2 {
            let heard = Recorder<RestoreProblem>()
            _ = place.v2Archive().restore(default: NotesV2.State(), onProblem: heard.append)
            #expect(heard.values == [.unmerged(at: place.location(".unmerged"))])
        }
        #expect(place.kept == ["", ".unmerged"], "the library never removes it on its own")
    }

    @Test(arguments: StorageKind.allCases)
    func aPersistenceServiceSavesBesideAnArchiveThatFailedToLoad(_ kind: StorageKind) throws {
        let place = ArchivePlace(kind)
        place.write(#"{"schemaVersion":1,"state":{"notes":[{"id":1,"title":"renamed"}]}}"#)
        let before = place.data()
        let archive = StateArchive<NotesV1.State>(backend: place.backend)
        #expect(throws: PersistenceError.self) { try archive.load() }
        let store = Store<NotesV1.State>(
            reducers: [
                { state, action in
                    if action is TestAction { state.notes.append(.init(id: 2, text: "tea")) }
                }
            ],
            state: NotesV1.State())
        let failures = Recorder<PersistenceError>()
        let service = PersistenceService(store: store, archive: archive, onError: failures.append)
        store.dispatch(TestAction.increment)
        try service.stop()
        #expect(failures.values.isEmpty)
        #expect(place.data() == before)
        #expect(place.kept == ["", ".unmerged"])
    }

    @Test func everyArchiveOfTheLocationSavesBesideIt() throws {
        let place = ArchivePlace(.file)
        let newer = try saveVersion3(place)
        let restoring = place.v2Archive()
        _ = restoring.restore(default: NotesV2.State()) { _ in }
        // Another archive of the same file, created later, saves beside it too.
        let other = StateArchive<NotesV2.State>(file: place.url(), schemaVersion: 2)
        try other.save(NotesV2.State(notes: [.init(id: 1, body: "tea")]))
        #expect(place.data() == newer)
        #expect(place.kept == ["", ".unmerged"])
        // While the archive cannot be read, the unmerged state is where the app runs: it is
        // neither handed out to merge nor removed.
        #expect(try other.loadUnmerged() == nil)
        #expect(try restoring.removeUnmerged() == false)
        #expect(place.kept == ["", ".unmerged"])
    }

    @Test func aSaveNeverReplacesAnUnmergedStateThisProcessHasNotLoaded() throws {
        let place = ArchivePlace(.file)
        _ = try saveVersion3(place)
        let earlier = #"{"schemaVersion":2,"state":{"notes":[{"id":1,"body":"tea"}]}}"#
        place.write(earlier, ".unmerged")
        // An app that loads with load() and does not continue from the unmerged state.
        let archive = place.v2Archive()
        #expect(throws: PersistenceError.self) { try archive.load() }
        let error = #expect(throws: PersistenceError.self) { try archive.save(NotesV2.State()) }
        #expect(error?.kind == .wouldOverwriteUnmergedState)
        #expect(error?.location == place.location(".unmerged"))
        #expect(place.data(".unmerged") == Data(earlier.utf8))
        // The message sends the app to what keeps both, not to setting the archive aside.
        let message = error?.description ?? ""
        #expect(message.contains("restore(default:) continues from them"), "\(message)")
        #expect(message.contains("setAside() moves the archive, not these changes"), "\(message)")
        #expect(!message.contains("failed to load"), "\(message)")
    }

    @Test(arguments: StorageKind.allCases)
    func aDamagedUnmergedStateIsSetAsideAndSavesStartANewOne(_ kind: StorageKind) throws {
        let place = ArchivePlace(kind)
        let newer = try saveVersion3(place)
        place.write("{ torn", ".unmerged")
        let heard = Recorder<RestoreProblem>()
        let archive = place.v2Archive()
        #expect(archive.restore(default: NotesV2.State(), onProblem: heard.append) == NotesV2.State())
        let problems = heard.values
        guard problems.count == 2, case .unreadable(_, place.location(".unmerged"), false) = problems[0],
            case .setAside(let error, _?) = problems[1], case .notJSON = error.kind
        else {
            Issue.record("expected unreadable then setAside, heard \(problems)")
            return
        }
        #expect(error.location == place.location(".unmerged"))
        #expect(place.kept == ["", ".unmerged.corrupt"])
        try archive.save(NotesV2.State(notes: [.init(id: 1, body: "tea")]))
        #expect(place.data() == newer)
        #expect(place.kept == ["", ".unmerged", ".unmerged.corrupt"])
    }

    @Test func anUnmergedStateThatCannotBeReadEitherIsKeptAndSavesAreRefused() throws {
        let place = ArchivePlace(.file)
        let newer = try saveVersion3(place)
        let unreadable = #"{"schemaVersion":3,"state":{"notes":[]}}"#
        place.write(unreadable, ".unmerged")
        let heard = Recorder<RestoreProblem>()
        let archive = place.v2Archive()
        _ = archive.restore(default: NotesV2.State(), onProblem: heard.append)
        let problems = heard.values
        guard problems.count == 2, case .unreadable(let error, nil, false) = problems[0],
            case .unreadable(let besideError, nil, false) = problems[1]
        else {
            Issue.record("expected two unreadable problems, heard \(problems)")
            return
        }
        #expect(error.location == place.location())
        #expect(besideError.location == place.location(".unmerged"))
        #expect(problems[0].description.contains("no change can be saved"))
        let refused = #expect(throws: PersistenceError.self) { try archive.save(NotesV2.State()) }
        #expect(refused?.kind == .wouldOverwriteUnmergedState)
        #expect(place.data() == newer)
        #expect(place.data(".unmerged") == Data(unreadable.utf8))
    }

    @Test(arguments: StorageKind.allCases)
    func aDamagedArchiveIsSetAsideAndSavesGoToItsLocation(_ kind: StorageKind) throws {
        let place = ArchivePlace(kind)
        place.write("{ torn")
        let heard = Recorder<RestoreProblem>()
        let archive = place.v2Archive()
        _ = archive.restore(default: NotesV2.State(), onProblem: heard.append)
        guard case .setAside(_, _?)? = heard.values.first, heard.values.count == 1 else {
            Issue.record("expected setAside, heard \(heard.values)")
            return
        }
        try archive.save(.sample)
        #expect(place.kept == ["", ".corrupt"])
        #expect(try place.v2Archive().load() == .sample)
    }

    @Test func unmergedStateCountsTowardTheUserDefaultsSizeLimit() throws {
        let probe = ArchivePlace(.userDefaults)
        let newer = try saveVersion3(probe)
        let place = ArchivePlace(.userDefaults, sizeLimit: newer.count + 20)
        place.write(newer)
        let archive = place.v2Archive()
        _ = archive.restore(default: NotesV2.State()) { _ in }
        let error = #expect(throws: PersistenceError.self) { try archive.save(.sample) }
        guard case .tooLarge(let bytes, _)? = error?.kind else {
            Issue.record("expected tooLarge, got \(String(describing: error))")
            return
        }
        #expect(bytes > newer.count, "the archive counts")
        #expect(error?.location == place.location(".unmerged"))
        #expect(place.kept == [""])
    }

    @Test func aBackendOfYourOwnKeepsNothingBesideAndRefusesSaves() throws {
        let backend = MemoryBackend(Data(#"{"schemaVersion":3,"state":{"notes":[]}}"#.utf8))
        let heard = Recorder<RestoreProblem>()
        let archive = StateArchive<NotesV2.State>(backend: backend, schemaVersion: 2)
        _ = archive.restore(default: NotesV2.State(), onProblem: heard.append)
        guard case .unreadable(_, nil, false)? = heard.values.first else {
            Issue.record("expected unreadable with nowhere to save, heard \(heard.values)")
            return
        }
        let error = #expect(throws: PersistenceError.self) { try archive.save(NotesV2.State()) }
        #expect(error?.kind == .wouldOverwriteUnreadableArchive)
        #expect(try archive.loadUnmerged() == nil)
    }
}

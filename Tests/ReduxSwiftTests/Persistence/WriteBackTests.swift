import Foundation
import Testing

@testable import ReduxSwift

/// An update migrates once: the first load of an older archive writes it back upgraded, keeping the
/// previous one beside it until the upgraded one has loaded.
@Suite(.offThePool) struct WriteBackTests {
    /// The archive version 1 wrote, on `place`.
    func saveVersion1(_ place: ArchivePlace) throws -> Data {
        try place.v1Archive().save(.sample)
        return try #require(place.data())
    }

    @Test(arguments: StorageKind.allCases)
    func anUpgradedArchiveIsWrittenBackOnceKeepingThePreviousUntilItLoads(_ kind: StorageKind) throws {
        let place = ArchivePlace(kind)
        let version1 = try saveVersion1(place)

        // A fixture check reads a copy as a launch does, and writes nothing back.
        let fixture = place.directory.file("fixture.json")
        try version1.write(to: fixture)
        #expect(try place.v2Archive().loadFixture(at: fixture) == .sample)
        #expect(try Data(contentsOf: fixture) == version1)
        #expect(place.kept == [""])
        #expect(place.data() == version1)

        // The first launch of version 2 migrates, fills the defaults, and writes the result back.
        #expect(try place.v2Archive().load() == .sample)
        #expect(place.kept == ["", ".previous-v1"])
        #expect(place.data(".previous-v1") == version1)
        if kind == .userDefaults {
            #expect(place.defaults.stringArray(forKey: "app.Notes#setAside") == ["app.Notes.previous-v1"])
        }
        let written = try #require(place.data())
        #expect(ArchiveSiblings.schemaVersion(in: written) == 2)
        let object = try #require(try JSONSerialization.jsonObject(with: written) as? [String: Any])
        let state = try #require(object["state"] as? [String: Any])
        #expect(state["sort"] as? String == "date", "the filled member is written")

        // The next launch reads it as it is, with no migration, and removes the previous archive.
        let next = StateArchive<NotesV2.State>(backend: place.backend, schemaVersion: 2)
        #expect(try next.load() == .sample)
        #expect(place.kept == [""])
        #expect(place.data() == written)
        // Nothing is left listed for the size limit: the list goes with its last value.
        if kind == .userDefaults {
            #expect(place.defaults.object(forKey: "app.Notes#setAside") == nil)
        }
        if kind == .file {
            let file = try FileManager.default.attributesOfItem(atPath: place.url().path)[.systemFileNumber]
            #expect(try next.load() == .sample)
            let again = try FileManager.default.attributesOfItem(atPath: place.url().path)[.systemFileNumber]
            #expect(again as? Int == file as? Int, "a plain load writes nothing")
        }
        #expect(try next.load() == .sample)
        #expect(place.data() == written, "a plain load writes nothing")
    }

    @Test(arguments: StorageKind.allCases)
    func anArchiveFilledWithDefaultsIsWrittenBackAtItsOwnVersion(_ kind: StorageKind) throws {
        let place = ArchivePlace(kind)
        // Version 1.1 only adds members with defaults, and keeps schema version 1.
        place.write(#"{"schemaVersion":1,"state":{"notes":[{"id":1,"body":"milk"}]}}"#)
        let archive = StateArchive<NotesV2.State>(backend: place.backend)
        let expected = NotesV2.State(notes: [.init(id: 1, body: "milk")])
        #expect(try archive.load() == expected)
        #expect(place.kept == ["", ".previous-v1"])
        let written = try #require(place.data())
        #expect(String(decoding: written, as: UTF8.self).contains(#""pinned":false"#))

        #expect(try archive.load() == expected)
        #expect(place.kept == [""])
        #expect(place.data() == written)
    }

    @Test(arguments: StorageKind.allCases)
    func aWriteBackThatFailsItsChecksLeavesTheArchiveAndIsReported(_ kind: StorageKind) throws {
        let place = ArchivePlace(kind)
        let version1 = try saveVersion1(place)
        // The upgraded archive is larger than the limit a load reads: the next launch could not
        // read it, so it is not written.
        let archive = place.v2Archive(sizeLimit: version1.count + 8)
        let heard = Recorder<RestoreProblem>()
        #expect(archive.restore(default: NotesV2.State(), onProblem: heard.append) == .sample)
        guard case .notWrittenBack(let error)? = heard.values.first, heard.values.count == 1,
            case .tooLarge = error.kind
        else {
            Issue.record("expected notWrittenBack(.tooLarge), heard \(heard.values)")
            return
        }
        #expect(error.stage == .save)
        #expect(heard.values.first?.description.contains("the next launch upgrades it again") == true)
        #expect(place.data() == version1)
        #expect(place.kept == [""])
        // Saves still work: nothing is refused because the write-back failed.
        try archive.save(NotesV2.State())
    }

    @Test func aWriteBackTheSystemRefusesLeavesTheArchiveAndIsReported() throws {
        let place = ArchivePlace(.file)
        // Written readable by anyone, in a directory that becomes read-only.
        try Data(#"{"schemaVersion":1,"state":{"notes":[{"id":1,"text":"milk"}]}}"#.utf8).write(
            to: place.url())
        let before = place.data()
        chmod(place.directory.url.path, 0o555)
        defer { chmod(place.directory.url.path, 0o700) }
        let archive = place.v2Archive()
        let outcome = withoutPermissionOverride {
            let heard = Recorder<RestoreProblem>()
            let state = archive.restore(default: NotesV2.State(), onProblem: heard.append)
            return (state, heard.values)
        }
        #expect(outcome.0 == NotesV2.State(notes: [.init(id: 1, body: "milk")]))
        guard case .notWrittenBack(let error)? = outcome.1.first, outcome.1.count == 1,
            case .system(_, EACCES, _) = error.kind
        else {
            Issue.record("expected notWrittenBack(EACCES), heard \(outcome.1)")
            return
        }
        #expect(place.data() == before)
        #expect(place.kept == [""])
    }

    @Test func whenTheUpgradedArchiveCannotBeWrittenTheKeptCopyIsRemovedAgain() throws {
        // The defaults hold the archive and its copy, but not the upgraded archive beside the copy.
        let probe = ArchivePlace(.userDefaults)
        let size = try saveVersion1(probe).count
        let place = ArchivePlace(.userDefaults, sizeLimit: 2 * size + 4)
        let version1 = try saveVersion1(place)
        let heard = Recorder<RestoreProblem>()
        #expect(place.v2Archive().restore(default: NotesV2.State(), onProblem: heard.append) == .sample)
        guard case .notWrittenBack(let error)? = heard.values.first, case .tooLarge = error.kind else {
            Issue.record("expected notWrittenBack(.tooLarge), heard \(heard.values)")
            return
        }
        #expect(error.location == place.location())
        #expect(place.data() == version1)
        #expect(place.kept == [""], "the copy of the previous archive is removed again")
    }

    @Test func withoutAHandlerAFailedWriteBackIsARuntimeWarning() throws {
        let place = ArchivePlace(.file)
        let version1 = try saveVersion1(place)
        let warnings = Recorder<String>()
        let listener = RuntimeWarning.addListener { warnings.append($0) }
        defer { RuntimeWarning.removeListener(listener) }
        #expect(try place.v2Archive(sizeLimit: version1.count + 8).load() == .sample)
        #expect(
            warnings.values.contains { $0.contains(place.location()) && $0.contains("not written back") },
            "\(warnings.values)")
    }

    @Test func aWriteBackThatWouldNotLoadAgainIsRefusedAndTheArchiveKept() throws {
        // Version 1 saved its cache; version 2 leaves underscored members out, but cannot load
        // without the cache.
        struct Cached: StateProtocol, Equatable {
            var _cache: Int
        }
        let place = ArchivePlace(.file)
        place.write(#"{"schemaVersion":1,"state":{"_cache":4}}"#)
        let before = place.data()
        let archive = StateArchive<Cached>(
            backend: place.backend, schemaVersion: 2, migrations: [ArchiveMigration(from: 1) { _ in }],
            excludesUnderscoredKeys: true)
        var problems: [RestoreProblem] = []
        #expect(try archive.load(reporting: &problems, advisingFrom: { nil }) == Cached(_cache: 4))
        guard case .notWrittenBack(let error)? = problems.first, case .encodingFailed = error.kind else {
            Issue.record("expected notWrittenBack(.encodingFailed), got \(problems)")
            return
        }
        #expect(place.data() == before)
        #expect(place.kept == [""])
    }

    @Test func aCrashBetweenKeepingThePreviousArchiveAndWritingTheNewOneIsUpgradedAgain() throws {
        let place = ArchivePlace(.file)
        let version1 = try saveVersion1(place)
        // What a crash leaves: the archive as it was, its copy, and a half-written temporary file
        // of a process that is gone.
        place.write(version1, ".previous-v1")
        let temporary = place.directory.file(".Notes.json.999999.1.tmp")
        try Data(#"{"schemaVersion":2,"state":{"no"#.utf8).write(to: temporary)

        #expect(try place.v2Archive().load() == .sample)
        #expect(place.kept == ["", ".previous-v1"])
        #expect(place.data(".previous-v1") == version1)
        #expect(ArchiveSiblings.schemaVersion(in: try #require(place.data())) == 2)
        #expect(!FileManager.default.fileExists(atPath: temporary.path))
        #expect(try place.v2Archive().load() == .sample)
        #expect(place.kept == [""])
    }

    @Test(arguments: StorageKind.allCases)
    func aDamagedUpgradedArchiveFallsBackToThePreviousOneAndSaysSo(_ kind: StorageKind) throws {
        let place = ArchivePlace(kind)
        let version1 = try saveVersion1(place)
        #expect(try place.v2Archive().load() == .sample)
        // The upgraded archive is damaged before the next launch reads it.
        let upgraded = try #require(place.data())
        place.write(upgraded.prefix(upgraded.count / 2))

        let heard = Recorder<RestoreProblem>()
        #expect(place.v2Archive().restore(default: NotesV2.State(), onProblem: heard.append) == .sample)
        let problems = heard.values
        guard problems.count == 2, case .setAside(let error, let at?) = problems[0],
            case .notJSON = error.kind
        else {
            Issue.record("expected setAside then restoredPrevious, heard \(problems)")
            return
        }
        #expect(at.contains((kind == .file ? place.url().path : place.key()) + ".corrupt-"), "\(at)")
        #expect(problems[1] == .restoredPrevious(from: place.location(".previous-v1")))
        #expect(problems[1].description.contains("changes saved since that upgrade are lost"))
        // Written back again from the previous archive, which stays until that loads.
        #expect(place.kept == ["", ".corrupt", ".previous-v1"])
        #expect(place.data(".previous-v1") == version1)
        #expect(ArchiveSiblings.schemaVersion(in: try #require(place.data())) == 2)

        let again = Recorder<RestoreProblem>()
        #expect(place.v2Archive().restore(default: NotesV2.State(), onProblem: again.append) == .sample)
        #expect(again.values.isEmpty)
        #expect(place.kept == ["", ".corrupt"])
    }

    @Test func anArchiveWrittenByHandAtAnOlderVersionIsWrittenBackToo() throws {
        let place = ArchivePlace(.file)
        let pretty = """
            {
              "state" : { "notes" : [ { "id" : 1, "text" : "milk" } ] },
              "schemaVersion" : 1
            }
            """
        place.write(pretty)
        #expect(try place.v2Archive().load() == NotesV2.State(notes: [.init(id: 1, body: "milk")]))
        #expect(place.data(".previous-v1") == Data(pretty.utf8))
        #expect(ArchiveSiblings.schemaVersion(in: try #require(place.data())) == 2)
    }

    @Test func theVersionIsReadFromTheFirstMemberOrElseFromTheWholeArchive() {
        let cases: [(String, Int?)] = [
            (#"{"schemaVersion":12,"state":{}}"#, 12),
            ("{\n  \"schemaVersion\" : 3,\n  \"state\" : {}\n}", 3),
            (#"{"state":{"schemaVersion":9},"schemaVersion":4}"#, 4),
            (#"{"schemaVersion":1.5,"state":{}}"#, nil),
            (#"{"schemaVersion":"2","state":{}}"#, nil),
            ("not JSON", nil),
        ]
        for (text, version) in cases {
            #expect(ArchiveSiblings.schemaVersion(in: Data(text.utf8)) == version, "\(text)")
        }
    }

    @Test func aPreviousArchiveThatCannotBeRemovedIsNeverOverwritten() throws {
        let place = ArchivePlace(.file)
        // Something the library cannot remove holds the name of the copy: a directory with a file.
        try FileManager.default.createDirectory(
            at: place.url(".previous-v1"), withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: place.url(".previous-v1").appendingPathComponent("inside"))
        let version1 = try saveVersion1(place)

        #expect(try place.v2Archive().load() == .sample)
        #expect(place.kept == ["", ".previous-v1", ".previous-v1-2"])
        #expect(place.data(".previous-v1-2") == version1)
        #expect(
            try Data(contentsOf: place.url(".previous-v1").appendingPathComponent("inside"))
                == Data("keep".utf8))
    }

    @Test(arguments: StorageKind.allCases)
    func dataAlreadyUnderTheNameOfTheCopyIsNeverWrittenOver(_ kind: StorageKind) throws {
        let place = ArchivePlace(kind)
        let version1 = try saveVersion1(place)
        place.write("something else's", ".previous-v1")

        #expect(try place.v2Archive().load() == .sample)
        #expect(place.kept == ["", ".previous-v1", ".previous-v1-2"])
        #expect(place.data(".previous-v1") == Data("something else's".utf8))
        #expect(place.data(".previous-v1-2") == version1)
    }

    @Test func theServiceSavesOverTheUpgradedArchiveAndTheNextLaunchRemovesThePrevious() throws {
        let place = ArchivePlace(.file)
        _ = try saveVersion1(place)
        let archive = place.v2Archive()
        let store = Store<NotesV2.State>(
            reducers: [
                { state, action in
                    if action is TestAction { state.notes.append(.init(id: 3, body: "tea")) }
                }
            ],
            state: archive.restore(default: NotesV2.State()))
        let service = PersistenceService(store: store, archive: archive)
        store.dispatch(TestAction.increment)
        try service.stop()
        #expect(place.kept == ["", ".previous-v1"])

        let next = place.v2Archive().restore(default: NotesV2.State())
        #expect(next.notes.map(\.body) == ["milk", "eggs", "tea"])
        #expect(place.kept == [""])
    }
}

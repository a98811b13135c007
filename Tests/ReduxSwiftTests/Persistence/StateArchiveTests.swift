import Foundation
import Testing

@testable import ReduxSwift

@Suite(.offThePool) struct StateArchiveTests {
    let directory = TemporaryDirectory()

    func archive(_ name: String = "state.json", schemaVersion: Int = 1, migrations: [ArchiveMigration] = [])
        -> StateArchive<TestState>
    {
        StateArchive(file: directory.file(name), schemaVersion: schemaVersion, migrations: migrations)
    }

    func write(_ text: String, to name: String = "state.json") throws {
        try Data(text.utf8).write(to: directory.file(name))
    }

    func contents(_ name: String = "state.json") throws -> Data {
        try Data(contentsOf: directory.file(name))
    }

    /// Loads, expects `kind`, and checks that the file is unchanged and that a save goes beside it.
    func expectLoadFails(
        with kind: PersistenceError.Kind, name: String = "state.json",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try? contents(name)
        let archive = archive(name)
        let error = #expect(throws: PersistenceError.self, sourceLocation: sourceLocation) {
            try archive.load()
        }
        #expect(error?.kind == kind, sourceLocation: sourceLocation)
        #expect(error?.stage == .load, sourceLocation: sourceLocation)
        #expect(error?.location == directory.file(name).path, sourceLocation: sourceLocation)
        #expect(
            error?.description.contains(directory.file(name).path) == true, sourceLocation: sourceLocation)

        try archive.save(TestState(counter: 1))
        #expect(
            (try? contents(name)) == before, "the original is never overwritten",
            sourceLocation: sourceLocation)
        #expect(
            try self.archive(name + ".unmerged").load() == TestState(counter: 1), "the save went beside it",
            sourceLocation: sourceLocation)
    }

    @Test func aStateSavedIsTheStateLoaded() throws {
        let state = TestState(
            counter: 7, log: ["a", "b"], todos: [Todo(id: 0, title: "Buy milk", done: true)])
        try archive().save(state)
        #expect(try archive().load() == state)
    }

    @Test func nothingArchivedLoadsAsNil() throws {
        #expect(try archive().load() == nil)
        #expect(archive().restore(default: TestState(counter: 3)) == TestState(counter: 3))
    }

    @Test func theFileIsAnEnvelopeWithTheSchemaVersionAndTheState() throws {
        try archive(schemaVersion: 4).save(TestState(counter: 2))
        let object = try JSONSerialization.jsonObject(with: try contents()) as? [String: Any]
        #expect(object?["schemaVersion"] as? Int == 4)
        #expect((object?["state"] as? [String: Any])?["counter"] as? Int == 2)
    }

    @Test func anEmptyFileIsRefusedAndKept() throws {
        try write("")
        try expectLoadFails(with: .empty)
    }

    @Test func aTruncatedFileIsRefusedAndKept() throws {
        try archive().save(TestState(counter: 5, log: ["x"]))
        let whole = try contents()
        try whole.prefix(whole.count / 2).write(to: directory.file("state.json"))
        let error = #expect(throws: PersistenceError.self) { try archive().load() }
        guard case .notJSON = error?.kind else {
            Issue.record("expected notJSON, got \(String(describing: error))")
            return
        }
        #expect(error?.description.contains("truncated") == true)
        #expect(try contents() == whole.prefix(whole.count / 2))
    }

    @Test func randomBytesAreRefusedAndKept() throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try bytes.write(to: directory.file("state.json"))
        let error = #expect(throws: PersistenceError.self) { try archive().load() }
        guard case .notJSON = error?.kind else {
            Issue.record("expected notJSON, got \(String(describing: error))")
            return
        }
        #expect(try contents() == bytes)
    }

    @Test func validJSONOfTheWrongShapeIsRefusedAndKept() throws {
        try write(#"{"name":"not an archive"}"#)
        let error = #expect(throws: PersistenceError.self) { try archive().load() }
        guard case .wrongShape(let detail) = error?.kind else {
            Issue.record("expected wrongShape, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("schemaVersion"))
        #expect(try contents() == Data(#"{"name":"not an archive"}"#.utf8))
    }

    @Test func aStateOfAnotherShapeNeedsAMigrationNamingTheCodingPath() throws {
        try write(#"{"schemaVersion":1,"state":{"counter":"seven","log":[],"todos":[]}}"#)
        let error = #expect(throws: PersistenceError.self) { try archive().load() }
        guard case .needsMigration(_, let detail, _) = error?.kind else {
            Issue.record("expected needsMigration, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("state.counter"))
    }

    @Test func aHugeFileIsRefusedUnread() throws {
        let url = directory.file("state.json")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 100_000_000)  // 100 MB, sparse
        try handle.close()
        let before = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int
        try expectLoadFails(
            with: .tooLarge(bytes: 100_000_000, limit: StateArchive<TestState>.defaultSizeLimit))
        #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int == before)
    }

    @Test func deeplyNestedJSONIsRefusedWithoutCrashing() throws {
        let depth = 100_000
        try write(
            #"{"schemaVersion":1,"state":"# + String(repeating: "[", count: depth)
                + String(repeating: "]", count: depth)
                + "}")
        try expectLoadFails(with: .tooDeep(limit: ArchiveFormat.depthLimit))
    }

    @Test func aDirectoryWhereTheFileShouldBeIsRefusedAndKept() throws {
        try FileManager.default.createDirectory(
            at: directory.file("state.json"), withIntermediateDirectories: false)
        try expectLoadFails(with: .isDirectory)
        var isDirectory: ObjCBool = false
        #expect(
            FileManager.default.fileExists(
                atPath: directory.file("state.json").path, isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
    }

    @Test func savingWhereADirectoryIsFailsAndKeepsTheDirectory() throws {
        let url = directory.file("state.json")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: url.appendingPathComponent("inside"))
        let error = #expect(throws: PersistenceError.self) { try archive().save(TestState()) }
        #expect(error?.stage == .save)
        #expect(error?.kind == .isDirectory)
        #expect(try Data(contentsOf: url.appendingPathComponent("inside")) == Data("keep".utf8))
        #expect(directory.names == ["state.json"], "no temporary file is left behind")
    }

    @Test func anUnwritableLocationFailsWithTheFileNamed() throws {
        // A regular file where a parent directory should be: unwritable even for root.
        try write("not a directory", to: "blocker")
        let archive = StateArchive<TestState>(
            file: directory.file("blocker").appendingPathComponent("state.json"))
        let error = #expect(throws: PersistenceError.self) { try archive.save(TestState()) }
        #expect(error?.stage == .save)
        #expect(error?.description.contains(directory.file("blocker").path) == true)
        guard case .system(_, let code, _) = error?.kind else {
            Issue.record("expected a system error, got \(String(describing: error))")
            return
        }
        #expect(code == ENOTDIR)
        #expect(try contents("blocker") == Data("not a directory".utf8))
    }

    #if os(Linux)
    @Test func aReadOnlyDirectoryKeepsTheOldFileAndSaysWhy() throws {
        let archive = archive()
        try archive.save(TestState(counter: 1))
        let before = try contents()
        chmod(directory.url.path, 0o555)
        defer { chmod(directory.url.path, 0o700) }

        let outcome = withoutPermissionOverride {
            Result { () throws(PersistenceError) in try archive.save(TestState(counter: 2)) }
        }
        guard case .failure(let error) = outcome, case .system(_, let code, _) = error.kind else {
            Issue.record("expected a system error, got \(outcome)")
            return
        }
        #expect(code == EACCES)
        #expect(error.description.contains(directory.file("state.json").path))
        #expect(try contents() == before)
        #expect(directory.names == ["state.json"])
    }

    @Test func aFileThatCannotBeReadGivesAClearError() throws {
        try archive().save(TestState(counter: 1))
        let archive = archive()
        let outcome = withoutPermissionOverride {
            Result { () throws(PersistenceError) in try archive.load() }
        }
        guard case .failure(let error) = outcome, case .system(let call, let code, _) = error.kind else {
            Issue.record("expected a system error, got \(outcome)")
            return
        }
        #expect(call == "open")
        #expect(code == EACCES)
        #expect(error.description.contains("Permission denied"))
    }
    #endif

    @Test func restoreSetsAnUnreadableFileAsideAndStartsFromTheDefault() throws {
        try write("{ not json")
        let reported = Recorder<(PersistenceError, String?)>()
        let archive = archive()
        let state = archive.restore(default: TestState(counter: 9)) { reported.append(($0, $1)) }
        #expect(state == TestState(counter: 9))

        let names = directory.names
        #expect(names.count == 1)
        let keptName = try #require(names.first)
        #expect(keptName.hasPrefix("state.json.corrupt-"))
        #expect(try contents(keptName) == Data("{ not json".utf8), "the bad data is kept, not discarded")
        #expect(reported.values.first?.1 == directory.file(keptName).path)

        try archive.save(TestState(counter: 10))
        #expect(try archive.load() == TestState(counter: 10))
        #expect(try contents(keptName) == Data("{ not json".utf8))
    }

    @Test func settingAsideTwiceInOneSecondKeepsBothFiles() throws {
        try write("first")
        _ = archive().restore(default: TestState()) { _, _ in }
        try write("second")
        _ = archive().restore(default: TestState()) { _, _ in }
        let kept = directory.names.filter { $0.contains(".corrupt-") }
        #expect(kept.count == 2)
        #expect(Set(try kept.map { try contents($0) }) == [Data("first".utf8), Data("second".utf8)])
    }

    @Test func aFileFromANewerVersionIsRefusedAndLeftUntouched() throws {
        try archive(schemaVersion: 3).save(TestState(counter: 4))
        let before = try contents()
        let error = #expect(throws: PersistenceError.self) { try archive(schemaVersion: 2).load() }
        #expect(error?.kind == .newerVersion(found: 3, supported: 2))
        #expect(error?.description.contains("schema version 3") == true)
        #expect(try contents() == before)
    }

    @Test func migrationsUpgradeAnOldFileOneVersionAtATime() throws {
        // Version 1 called the counter "count" and had no log; version 2 had no todos.
        try write(#"{"schemaVersion":1,"state":{"count":41}}"#)
        let steps = Recorder<Int>()
        let archive = archive(
            schemaVersion: 3,
            migrations: [
                ArchiveMigration(from: 2) { state in
                    steps.append(2)
                    state["todos"] = [] as [Any]
                },
                ArchiveMigration(from: 1) { state in
                    steps.append(1)
                    state["counter"] = state.removeValue(forKey: "count")
                    state["log"] = ["migrated"]
                },
            ])
        #expect(try archive.load() == TestState(counter: 41, log: ["migrated"], todos: []))
        #expect(steps.values == [1, 2])
    }

    @Test func aMissingMigrationIsReportedAndTheFileKept() throws {
        try write(#"{"schemaVersion":1,"state":{"count":41}}"#)
        let archive = archive(
            schemaVersion: 3, migrations: [ArchiveMigration(from: 2) { $0["todos"] = [] as [Any] }])
        let error = #expect(throws: PersistenceError.self) { try archive.load() }
        #expect(error?.kind == .missingMigration(from: 1))
        #expect(try contents() == Data(#"{"schemaVersion":1,"state":{"count":41}}"#.utf8))
    }

    @Test func aFailingMigrationIsReportedAndTheFileKept() throws {
        struct Unsupported: Error {}
        try write(#"{"schemaVersion":1,"state":{"count":41}}"#)
        let archive = archive(
            schemaVersion: 2, migrations: [ArchiveMigration(from: 1) { _ in throw Unsupported() }])
        let error = #expect(throws: PersistenceError.self) { try archive.load() }
        guard case .migrationFailed(let version, _) = error?.kind else {
            Issue.record("expected migrationFailed, got \(String(describing: error))")
            return
        }
        #expect(version == 1)
        #expect(try contents() == Data(#"{"schemaVersion":1,"state":{"count":41}}"#.utf8))
    }

    @Test func aMigrationThatProducesAnotherShapeIsReported() throws {
        try write(#"{"schemaVersion":1,"state":{"count":41}}"#)
        let archive = archive(schemaVersion: 2, migrations: [ArchiveMigration(from: 1) { _ in }])
        let error = #expect(throws: PersistenceError.self) { try archive.load() }
        guard case .needsMigration(_, let detail, _) = error?.kind else {
            Issue.record("expected needsMigration, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("after migrating to version 2"))
    }

    @Test func underscoredFieldsAreLeftOutOnlyWhenAsked() throws {
        struct Cached: StateProtocol, Equatable {
            struct Item: Codable, Equatable {
                var name: String
                var _thumbnail: String?
            }
            var items: [Item]
            var _cache: [String: Int]?
        }
        let state = Cached(items: [Cached.Item(name: "a", _thumbnail: "big")], _cache: ["a": 1])
        let plain = StateArchive<Cached>(file: directory.file("plain.json"))
        try plain.save(state)
        #expect(try plain.load() == state)

        let excluding = StateArchive<Cached>(file: directory.file("lean.json"), excludesUnderscoredKeys: true)
        try excluding.save(state)
        #expect(try excluding.load() == Cached(items: [Cached.Item(name: "a", _thumbnail: nil)], _cache: nil))
        #expect(!String(decoding: try contents("lean.json"), as: UTF8.self).contains("_"))
    }

    @Test func nonFiniteNumbersSurviveTheArchive() throws {
        struct Measures: StateProtocol {
            var values: [Double]
        }
        let archive = StateArchive<Measures>(file: directory.file("measures.json"))
        try archive.save(Measures(values: [.infinity, -.infinity, 1.5]))
        #expect(try archive.load()?.values == [.infinity, -.infinity, 1.5])
        try archive.save(Measures(values: [.nan]))
        #expect(try archive.load()?.values.first?.isNaN == true)
    }

    @Test func aStateThatCannotBeEncodedIsNotSavedAndTheOldOneIsKept() throws {
        struct Fragile: StateProtocol {
            struct Refused: Error {}
            var broken: Bool
            func encode(to encoder: any Encoder) throws {
                if broken { throw Refused() }
                var container = encoder.singleValueContainer()
                try container.encode(["broken": false])
            }
        }
        let archive = StateArchive<Fragile>(file: directory.file("fragile.json"))
        try archive.save(Fragile(broken: false))
        let before = try contents("fragile.json")
        let error = #expect(throws: PersistenceError.self) { try archive.save(Fragile(broken: true)) }
        guard case .encodingFailed = error?.kind else {
            Issue.record("expected encodingFailed, got \(String(describing: error))")
            return
        }
        #expect(try contents("fragile.json") == before)
    }

    // MARK: Edges

    @Test func excludingUnderscoredKeysKeepsTheKeysOfUnlabelledAssociatedValues() throws {
        struct Drawing: StateProtocol, Equatable {
            enum Shape: Codable, Equatable {
                case point
                case circle(Double)
                case rectangle(Double, Double)
                case labelled(name: String, Int)
            }
            var shapes: [Shape]
            var _cache: Int?
        }
        let archive = StateArchive<Drawing>(
            file: directory.file("drawing.json"), excludesUnderscoredKeys: true)
        let shapes: [Drawing.Shape] = [.point, .circle(2), .rectangle(3, 4), .labelled(name: "n", 5)]
        try archive.save(Drawing(shapes: shapes, _cache: 9))
        #expect(try archive.load() == Drawing(shapes: shapes, _cache: nil))
        #expect(!String(decoding: try contents("drawing.json"), as: UTF8.self).contains("_cache"))
    }

    @Test func aSaveThatWouldNotLoadWithoutItsUnderscoredKeysIsRefused() throws {
        struct Strict: StateProtocol, Equatable {
            var name: String
            var _required: Int
        }
        let archive = StateArchive<Strict>(file: directory.file("strict.json"), excludesUnderscoredKeys: true)
        try StateArchive<Strict>(file: directory.file("strict.json")).save(Strict(name: "kept", _required: 1))
        let before = try contents("strict.json")
        let error = #expect(throws: PersistenceError.self) {
            try archive.save(Strict(name: "new", _required: 2))
        }
        guard case .encodingFailed(let detail) = error?.kind else {
            Issue.record("expected encodingFailed, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("_"))
        #expect(try contents("strict.json") == before, "the archive that loads is kept")
        #expect(try archive.load() == Strict(name: "kept", _required: 1))
    }

    @Test func excludingUnderscoredKeysKeepsOnlyAnUnderscoreFollowedByDigits() throws {
        struct Table: StateProtocol, Equatable {
            var entries: [String: Int]
        }
        let kept = ["_0", "_1", "_12", "name", "a_b"]
        let removed = ["_", "__", "_a", "_1a", "__0", "_0_", "_ 1", "_\u{663}"]
        let archive = StateArchive<Table>(file: directory.file("table.json"), excludesUnderscoredKeys: true)
        let all = (kept + removed).enumerated().map { ($1, $0) }
        try archive.save(Table(entries: Dictionary(uniqueKeysWithValues: all)))
        #expect(try archive.load()?.entries.keys.sorted() == kept.sorted())
    }

    @Test func migrationsKeepTheValuesTheyDoNotTouch() throws {
        struct Exact: StateProtocol {
            var zero: Double
            var byKey: [Double: String]
            var text: String
            var list: [String]
        }
        let old = StateArchive<Exact>(file: directory.file("exact.json"))
        try old.save(Exact(zero: -0.0, byKey: [-0.0: "minus zero"], text: "\u{FEFF}mark", list: ["\u{FEFF}"]))
        let archive = StateArchive<Exact>(
            file: directory.file("exact.json"), schemaVersion: 2,
            migrations: [ArchiveMigration(from: 1) { state in state["added"] = "ignored" }])
        let loaded = try #require(try archive.load())
        #expect(loaded.zero.sign == .minus)
        #expect(loaded.byKey.keys.map(\.sign) == [.minus])
        #expect(loaded.text.unicodeScalars.first == "\u{FEFF}")
        #expect(loaded.text == "\u{FEFF}mark")
        #expect(loaded.list == ["\u{FEFF}"])
    }

    @Test func aMigrationThatStoresAValueJSONCannotHoldIsReported() throws {
        try write(#"{"schemaVersion":1,"state":{"count":41}}"#)
        let archive = archive(
            schemaVersion: 2,
            migrations: [ArchiveMigration(from: 1) { state in state["counter"] = Date() }])
        let error = #expect(throws: PersistenceError.self) { try archive.load() }
        // The app's migration is at fault, not the file: it is not set aside.
        guard case .migrationFailed(from: 1, let detail) = error?.kind else {
            Issue.record("expected migrationFailed, got \(String(describing: error))")
            return
        }
        #expect(error?.kind.isDamage == false)
        #expect(detail.contains("after migrating to version 2"))
        #expect(try contents() == Data(#"{"schemaVersion":1,"state":{"count":41}}"#.utf8))
    }

    @Test(arguments: ["99999999999999999999999", "1e400", "-1e400", "18446744073709551615", "1.5"])
    func aSchemaVersionThatIsNotAnIntIsReportedAsSuch(_ version: String) throws {
        try write(#"{"schemaVersion":\#(version),"state":{"counter":1}}"#)
        let error = #expect(throws: PersistenceError.self) { try archive().load() }
        guard case .wrongShape(let detail) = error?.kind else {
            Issue.record("expected wrongShape, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("\"schemaVersion\"") && detail.contains("whole number"), "\(detail)")
        #expect(!detail.contains("valid JSON"), "\(detail)")
    }

    @Test(
        arguments: [
            (#"[{"schemaVersion":1}]"#, "the top level is an array, not an object"),
            (#""state""#, "the top level is a string, not an object"),
            (#"{"schemaVersion":"1","state":{}}"#, #"its "schemaVersion" is a string, not a whole number"#),
            (#"{"schemaVersion":true,"state":{}}"#, #"its "schemaVersion" is a boolean, not a whole number"#),
            (#"{"schemaVersion":null,"state":{}}"#, #"its "schemaVersion" is null, not a whole number"#),
            (#"{"schemaVersion":[1],"state":{}}"#, #"its "schemaVersion" is an array, not a whole number"#),
            (#"{"state":{}}"#, #"it has no "schemaVersion""#),
        ])
    func anArchiveOfTheWrongShapeNamesTheJSONKindItFound(_ text: String, _ expected: String) throws {
        try write(text)
        let error = #expect(throws: PersistenceError.self) { try archive().load() }
        guard case .wrongShape(let detail) = error?.kind else {
            Issue.record("expected wrongShape, got \(String(describing: error))")
            return
        }
        #expect(detail.contains(expected), "\(detail)")
        #expect(try contents() == Data(text.utf8))
    }

    @Test func aStateThatIsNotAnObjectCannotBeMigratedAndTheErrorSaysWhatItIs() throws {
        try write(#"{"schemaVersion":1,"state":[1,2]}"#)
        let archive = archive(schemaVersion: 2, migrations: [ArchiveMigration(from: 1) { _ in }])
        let error = #expect(throws: PersistenceError.self) { try archive.load() }
        // The archive is not damaged, so restore leaves it where it is.
        guard case .migrationFailed(from: 1, let detail) = error?.kind else {
            Issue.record("expected migrationFailed, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("to be a JSON object, not an array"), "\(detail)")
        _ = archive.restore(default: TestState()) { _, _ in }
        #expect(try contents() == Data(#"{"schemaVersion":1,"state":[1,2]}"#.utf8))
    }

    @Test func aDescriptionEndsInOnePeriodWhenItsDetailEndsInOne() throws {
        struct Refused: Error, CustomStringConvertible {
            var description: String { "The value is refused." }
        }
        try write(#"{"schemaVersion":1,"state":{"count":41}}"#)
        let archive = archive(
            schemaVersion: 2, migrations: [ArchiveMigration(from: 1) { _ in throw Refused() }])
        let error = #expect(throws: PersistenceError.self) { try archive.load() }
        let description = error?.description ?? ""
        #expect(description.hasSuffix("The value is refused."), "\(description)")
        #expect(!description.hasSuffix(".."), "\(description)")
        for detail in ["Ends in a period.", "Asks a question?", "No period"] {
            let text = PersistenceError(.encodingFailed(detail: detail), stage: .save, location: "x")
                .description
            #expect(text.hasSuffix(".") || text.hasSuffix("?"), "\(text)")
            #expect(!text.hasSuffix("..") && !text.hasSuffix("?."), "\(text)")
        }
    }
}

@Suite(.offThePool) struct ArchiveLocationTests {
    @Test func anArchiveSaysWhereItsDataIs() {
        let url = URL(fileURLWithPath: "/tmp/ReduxSwiftLocationTest/AppState.json")
        let archive = StateArchive<TestState>(file: url)
        #expect(archive.location == url.path)
    }
}

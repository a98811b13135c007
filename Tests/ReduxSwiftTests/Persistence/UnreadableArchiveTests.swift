import Foundation
import Testing

@testable import ReduxSwift

/// Once data fails to load, no archive of its location in this process saves over it until it is
/// set aside or loads: saves go beside it.
@Suite(.offThePool) struct UnreadableArchiveTests {
    let directory = TemporaryDirectory()
    let garbage = Data("garbage".utf8)

    var url: URL { directory.file("state.json") }

    func archive(_ url: URL? = nil) -> StateArchive<TestState> {
        StateArchive(file: url ?? self.url)
    }

    func contents() throws -> Data {
        try Data(contentsOf: url)
    }

    /// Writes garbage and fails to load it through an archive that is gone when this returns.
    func failToLoadGarbage() throws {
        try garbage.write(to: url)
        #expect(throws: PersistenceError.self) { try archive().load() }
    }

    /// Saves through `archive` and checks that the state went beside the data, and not over it.
    func expectSavedBeside(
        _ archive: StateArchive<TestState>, counter: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try archive.save(TestState(counter: counter))
        #expect(try contents() == garbage, sourceLocation: sourceLocation)
        #expect(
            try self.archive(directory.file("state.json.unmerged")).load() == TestState(counter: counter),
            sourceLocation: sourceLocation)
    }

    func expectSaveRefused(
        _ archive: StateArchive<TestState>, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = #expect(throws: PersistenceError.self, sourceLocation: sourceLocation) {
            try archive.save(TestState(counter: 1))
        }
        #expect(error?.kind == .wouldOverwriteUnreadableArchive, sourceLocation: sourceLocation)
    }

    @Test func everyArchiveOfTheFileRefusesToSaveOverDataThatFailedToLoad() throws {
        let first = archive()
        let second = archive()
        try garbage.write(to: url)
        #expect(throws: PersistenceError.self) { try first.load() }
        try expectSavedBeside(first, counter: 1)
        try expectSavedBeside(second, counter: 2)
        // Another spelling of the same path, and an archive created later.
        try expectSavedBeside(
            archive(directory.url.appendingPathComponent("./sub/../state.json")), counter: 3)
        try expectSavedBeside(archive(), counter: 4)
        #expect(try contents() == garbage)
    }

    @Test func theRefusalOutlivesTheArchiveThatFailedToLoad() throws {
        try failToLoadGarbage()
        try expectSavedBeside(archive(), counter: 1)
        #expect(try contents() == garbage)
    }

    @Test func settingAsideThroughAnyArchiveLetsEveryArchiveSave() throws {
        let waiting = archive()
        try failToLoadGarbage()
        let keptAt = try #require(try archive().setAside())
        #expect(try Data(contentsOf: URL(fileURLWithPath: keptAt)) == garbage)
        try waiting.save(TestState(counter: 2))
        try archive().save(TestState(counter: 3))
        #expect(try archive().load() == TestState(counter: 3))
    }

    @Test func aLoadThatSucceedsThroughAnyArchiveLetsEveryArchiveSave() throws {
        let waiting = archive()
        try failToLoadGarbage()
        // Another process replaces the data with a readable archive.
        try Data(#"{"schemaVersion":1,"state":{"counter":5,"log":[],"todos":[]}}"#.utf8).write(to: url)
        #expect(try archive().load() == TestState(counter: 5))
        try waiting.save(TestState(counter: 6))
        #expect(try archive().load() == TestState(counter: 6))
    }

    @Test func archivesOfOtherFilesAreNotAffected() throws {
        try failToLoadGarbage()
        let other = archive(directory.file("other.json"))
        try other.save(TestState(counter: 1))
        #expect(try other.load() == TestState(counter: 1))
    }

    @Test func aSaveWaitsForALoadOfTheSameFileThroughAnotherArchive() throws {
        // Version 1, so that loading at version 2 runs a migration while the file is being loaded.
        try Data(#"{"schemaVersion":1,"state":{"counter":1}}"#.utf8).write(to: url)
        let saver = archive()
        let saved = Recorder<PersistenceError.Kind?>()
        let savedDuringTheLoad = Recorder<Bool>()
        let loader = StateArchive<TestState>(
            file: url, schemaVersion: 2,
            migrations: [
                ArchiveMigration(from: 1) { _ in
                    Thread {
                        do throws(PersistenceError) {
                            try saver.save(TestState(counter: 2))
                            saved.append(nil)
                        } catch {
                            saved.append(error.kind)
                        }
                    }.start()
                    // The save must not finish while this load runs; it is given time to try.
                    savedDuringTheLoad.append(saved.wait(forCount: 1, timeout: 0.3))
                    throw TestFailure()
                }
            ])
        #expect(throws: PersistenceError.self) { try loader.load() }
        #expect(saved.wait(forCount: 1))
        #expect(savedDuringTheLoad.values == [false])
        #expect(saved.values == [nil], "saved beside the archive that failed to load")
        #expect(try contents() == Data(#"{"schemaVersion":1,"state":{"counter":1}}"#.utf8))
        #expect(try archive(directory.file("state.json.unmerged")).load() == TestState(counter: 2))
    }

    @Test func aLocationIsForgottenOnceNoArchiveUsesItUnlessItsDataFailedToLoad() throws {
        let key = ArchiveLocation.Key.file(path: url.standardizedFileURL.path)
        try withExtendedLifetime(archive()) { archive in
            try archive.save(TestState(counter: 1))
            #expect(ArchiveLocation.isRegistered(key))
        }
        #expect(!ArchiveLocation.isRegistered(key))
        try failToLoadGarbage()
        #expect(ArchiveLocation.isRegistered(key), "the failure is remembered")
        _ = try archive().setAside()
        #expect(!ArchiveLocation.isRegistered(key))
    }

    @Test func userDefaultsArchivesOfTheSameKeyAndDefaultsShareTheRefusal() throws {
        let suiteName = "ReduxSwiftTests-\(UUID().uuidString)"
        let defaults = try #require(UserDefaults(suiteName: suiteName))
        defer { defaults.removePersistentDomain(forName: suiteName) }
        func archive(_ defaults: UserDefaults) -> StateArchive<TestState> {
            StateArchive(
                backend: UserDefaultsArchiveBackend(name: "TestState", namespace: "app", defaults: defaults))
        }
        defaults.set("surprise", forKey: "app.TestState")
        #expect(throws: PersistenceError.self) { try archive(defaults).load() }
        try archive(defaults).save(TestState(counter: 1))
        #expect(defaults.string(forKey: "app.TestState") == "surprise")
        #expect(defaults.data(forKey: "app.TestState.unmerged") != nil, "saved beside it")

        let otherSuiteName = "ReduxSwiftTests-\(UUID().uuidString)"
        let otherDefaults = try #require(UserDefaults(suiteName: otherSuiteName))
        defer { otherDefaults.removePersistentDomain(forName: otherSuiteName) }
        try archive(otherDefaults).save(TestState(counter: 1))
        #expect(try archive(otherDefaults).load() == TestState(counter: 1))
    }

    @Test func archivesOnABackendOfYourOwnRefuseOnlyTheirOwnSaves() throws {
        let backend = MemoryBackend(garbage)
        let loader = StateArchive<TestState>(backend: backend)
        #expect(throws: PersistenceError.self) { try loader.load() }
        expectSaveRefused(loader)
        try StateArchive<TestState>(backend: backend).save(TestState(counter: 1))
        #expect(try StateArchive<TestState>(backend: backend).load() == TestState(counter: 1))
    }
}

import Foundation
import ReduxSwift
import Testing

/// The README's persisted store, built from an archive passed in rather than a shared one, so each
/// test can use its own directory.
final class PersistedStore: Store<AppState>, @unchecked Sendable {
    init(archive: StateArchive<AppState>) {
        super.init(reducers: CounterReducers.reducers, state: archive.restore(default: AppState()))
    }
}

@Suite struct PersistenceAPITests {
    let directory = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        .appendingPathComponent("ReduxSwiftAPITests-\(UUID().uuidString)", isDirectory: true)

    @Test func aStateSavedByTheServiceIsRestoredByTheNextLaunch() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("AppState.json")

        let firstLaunch = PersistedStore(archive: StateArchive(file: url))
        let persistence = PersistenceService(store: firstLaunch, archive: StateArchive(file: url))
        firstLaunch.dispatch(CounterAction.add(5))
        try persistence.stop()

        let secondLaunch = PersistedStore(archive: StateArchive(file: url))
        #expect(secondLaunch.currentState().counter == 5)
    }

    @Test func aCorruptArchiveIsKeptAsideAndTheAppStartsFromTheDefault() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("AppState.json")
        try Data("{\"schemaVersion\":1,\"state\":{\"coun".utf8).write(to: url)

        let store = PersistedStore(archive: StateArchive(file: url))
        #expect(store.currentState().counter == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.count == 1)
        #expect(names.first?.hasPrefix("AppState.json.corrupt-") == true)
    }

    @Test func anOlderArchiveIsMigrated() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("AppState.json")
        try Data(#"{"schemaVersion":1,"state":{"count":3,"items":["milk"]}}"#.utf8).write(to: url)

        let archive = StateArchive<AppState>(
            file: url,
            schemaVersion: 2,
            migrations: [
                ArchiveMigration(from: 1) { state in
                    state["counter"] = state.removeValue(forKey: "count")
                    state["todos"] = state.removeValue(forKey: "items")
                }
            ])
        let state = try #require(try archive.load())
        #expect(state.counter == 3)
        #expect(state.todos == ["milk"])
    }
}

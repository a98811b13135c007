import Foundation
import ReduxSwift
import Testing

/// The README's persisted store, built from an archive passed in rather than a shared one, so each
/// test can use its own directory.
final class PersistedStore: Store<AppState>, @unchecked Sendable {
    init(archive: StateArchive<AppState>, showDataProblem: @escaping (String) -> Void = { _ in }) {
        super.init(
            reducers: CounterReducers.reducers,
            state: archive.restore(default: AppState()) { problem in
                showDataProblem(problem.description)
            })
    }
}

/// The store of the Saving and Restoring State article that merges changes saved beside an archive
/// it could not read, once it can.
final class MergingStore: Store<AppState>, @unchecked Sendable {
    init(archive: StateArchive<AppState>, report: @escaping (String) -> Void) {
        var state = archive.restore(default: AppState()) { problem in report(problem.description) }
        do {
            if let unmerged = try archive.loadUnmerged() {
                state.todos += unmerged.todos
                try archive.save(state)
                try archive.removeUnmerged()
            }
        } catch {
            report(error.description)
        }
        super.init(reducers: CounterReducers.reducers, state: state)
        register(TodoReducers.reducers)
    }
}

@Suite(.offThePool) struct PersistenceAPITests {
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

    @Test func anOlderArchiveIsWrittenBackOnceAndThePreviousOneKeptUntilTheNextLaunch() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("AppState.json")
        let version1 = Data(#"{"schemaVersion":1,"state":{"count":3,"todos":["milk"]}}"#.utf8)
        try version1.write(to: url)
        func archive() -> StateArchive<AppState> {
            StateArchive(
                file: url, schemaVersion: 2,
                migrations: [ArchiveMigration(from: 1, renaming: "count", to: "counter")])
        }

        #expect(PersistedStore(archive: archive()).currentState().counter == 3)
        let kept = directory.appendingPathComponent("AppState.json.previous-v1")
        #expect(try Data(contentsOf: kept) == version1)
        #expect(try Data(contentsOf: url).starts(with: Data(#"{"schemaVersion":2,"#.utf8)))

        #expect(PersistedStore(archive: archive()).currentState().counter == 3)
        #expect(!FileManager.default.fileExists(atPath: kept.path))
    }

    @Test func theAppIsToldAtLaunchAndWhatTheUserDoesIsKeptBesideAnArchiveItCannotRead() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("AppState.json")
        try StateArchive<AppState>(file: url, schemaVersion: 2).save(AppState(counter: 5, todos: ["milk"]))
        let newer = try Data(contentsOf: url)

        // Version 1 runs again after a downgrade: the README's store tells the user.
        var told: [String] = []
        _ = PersistedStore(archive: StateArchive(file: url)) { told.append($0) }
        #expect(told.count == 1)
        #expect(told.first?.contains("newer than version 1") == true)
        #expect(told.first?.contains("\(url.path).unmerged") == true)

        // What the user adds is saved beside the archive.
        let archive = StateArchive<AppState>(file: url)
        let store = MergingStore(archive: archive) { _ in }
        let persistence = PersistenceService(store: store, archive: archive)
        store.dispatch(Action("todos.add", payload: "tea"))
        try persistence.stop()
        #expect(try Data(contentsOf: url) == newer)

        // Version 2 again: it reads both, and the article's store merges them.
        var reported: [String] = []
        let version2 = StateArchive<AppState>(
            file: url, schemaVersion: 2, migrations: [ArchiveMigration(from: 1) { _ in }])
        let merged = MergingStore(archive: version2) { reported.append($0) }
        #expect(merged.currentState().counter == 5)
        #expect(merged.currentState().todos == ["milk", "tea"])
        #expect(reported.count == 1)
        #expect(reported.first?.contains("loadUnmerged()") == true)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".unmerged"))
        #expect(try StateArchive<AppState>(file: url, schemaVersion: 2).load()?.todos == ["milk", "tea"])
    }

    /// The migration of the Saving and Restoring State article, as an app writes it.
    @Test func aMigrationReadsNumbersAndBooleansWithCastsAndWritesSwiftValues() throws {
        struct Order: StateProtocol, Equatable {
            struct Settings: Codable, Equatable {
                var dark: Bool
            }
            var count: Int
            var price: Double
            var total: Double
            var status: String
            var settings: Settings
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("Order.json")
        let version1 =
            #"{"schemaVersion":1,"state":{"count":3,"price":2,"done":true,"settings":{"light":false}}}"#
        try Data(version1.utf8).write(to: url)

        let migration = ArchiveMigration(from: 1) { state in
            let count = state["count"] as? Int ?? 0
            let price = state["price"] as? Double ?? 0
            let done = state["done"] as? Bool ?? false
            if var settings = state["settings"] as? [String: Any] {
                settings["dark"] = !(settings["light"] as? Bool ?? true)
                settings["light"] = nil
                state["settings"] = settings
            }
            state["total"] = Double(count) * price
            state["status"] = done ? "done" : "open"
        }
        let archive = StateArchive<Order>(file: url, schemaVersion: 2, migrations: [migration])
        #expect(
            try archive.load()
                == Order(count: 3, price: 2, total: 6, status: "done", settings: Order.Settings(dark: true)))

        try Data(version1.utf8).write(to: url)
        let storingADate = StateArchive<Order>(
            file: url, schemaVersion: 2,
            migrations: [ArchiveMigration(from: 1) { state in state["due"] = Date() }])
        let error = #expect(throws: PersistenceError.self) { try storingADate.load() }
        #expect(error?.description.contains("the value at state.due is a Date") == true)
        #expect(try Data(contentsOf: url) == Data(version1.utf8))
    }
}

import Foundation
import Testing

@testable import ReduxSwift

/// A backend that records whether each write ran on the queue marked with `key`.
final class QueueCheckingBackend: ArchiveBackend, @unchecked Sendable {
    // `@unchecked Sendable`: `key` is immutable and `onMarkedQueue` is thread-safe.
    let key: DispatchSpecificKey<Bool>
    let onMarkedQueue = Recorder<Bool>()

    init(key: DispatchSpecificKey<Bool>) {
        self.key = key
    }

    var location: String { "queue-checking" }

    func read(limit: Int) throws(PersistenceError) -> Data? { nil }

    func write(_ data: Data) throws(PersistenceError) {
        onMarkedQueue.append(DispatchQueue.getSpecific(key: key) == true)
    }

    func setAside(suffix: String) throws(PersistenceError) -> String? { nil }
}

/// Promises of persistence that no other suite checks.
@Suite(.offThePool) struct PersistenceGuaranteeTests {
    let directory = TemporaryDirectory()

    @Test func aLoadThatSucceedsAfterAFailedOneAllowsSavingAgain() throws {
        let url = directory.file("state.json")
        try Data("{ not json".utf8).write(to: url)
        let archive = StateArchive<TestState>(file: url)
        #expect(throws: PersistenceError.self) { try archive.load() }
        // Saved beside it, never over it.
        try archive.save(TestState(counter: 1))
        #expect(try Data(contentsOf: url) == Data("{ not json".utf8))

        // Another process repairs the file (no archive of it in this process would save over it);
        // this archive reads it again.
        try Data(#"{"schemaVersion":1,"state":{"counter":2,"log":[],"todos":[]}}"#.utf8).write(to: url)
        #expect(try archive.load() == TestState(counter: 2))
        try archive.save(TestState(counter: 3))
        #expect(try archive.load() == TestState(counter: 3))
    }

    @Test func restoreLeavesAFileFromANewerVersionWhereItIsAndRefusesToSaveOverIt() throws {
        let url = directory.file("state.json")
        try StateArchive<TestState>(file: url, schemaVersion: 3).save(TestState(counter: 4))
        let newer = try Data(contentsOf: url)
        let reported = Recorder<PersistenceError>()
        let archive = StateArchive<TestState>(file: url, schemaVersion: 2)
        let state = archive.restore(default: TestState(counter: 1)) { error, _ in reported.append(error) }
        #expect(state == TestState(counter: 1))
        #expect(reported.values.map(\.kind) == [.newerVersion(found: 3, supported: 2)])
        #expect(directory.names == ["state.json"])
        try archive.save(TestState(counter: 2))
        #expect(try Data(contentsOf: url) == newer)
        #expect(directory.names == ["state.json", "state.json.unmerged"])
    }

    @Test func scheduledSavesRunOnTheSchedulersQueue() {
        let key = DispatchSpecificKey<Bool>()
        let queue = DispatchQueue(label: "saves")
        queue.setSpecific(key: key, value: true)
        let backend = QueueCheckingBackend(key: key)
        let store = makeStore()
        let service = PersistenceService(
            store: store, archive: StateArchive(backend: backend),
            policy: SavePolicy(idleDelay: 0.01, maximumDelay: 0.05),
            scheduler: DispatchSaveScheduler(queue: queue))
        store.dispatch(TestAction.increment)
        #expect(backend.onMarkedQueue.wait(forCount: 1))
        #expect(backend.onMarkedQueue.values.allSatisfy { $0 })
        withExtendedLifetime(service) {}
    }

    @Test func releasingTheServiceReportsAFailedFinalSave() {
        let store = makeStore()
        let backend = MemoryBackend()
        backend.failWrites(.system(call: "write", errno: EIO, message: "Input/output error"))
        let errors = Recorder<PersistenceError>()
        do {
            let service = PersistenceService(
                store: store, archive: StateArchive(backend: backend), scheduler: ManualScheduler(),
                onError: { errors.append($0) })
            store.dispatch(TestAction.increment)
            withExtendedLifetime(service) {}
        }
        #expect(errors.wait(forCount: 1))
        #expect(errors.values.first?.stage == .save)
        #expect(backend.writeCount == 0)
    }
}

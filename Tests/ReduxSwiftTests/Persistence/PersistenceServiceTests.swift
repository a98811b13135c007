import Foundation
import Testing

@testable import ReduxSwift

/// A store, an in-memory archive, a hand-moved clock, and a service joining them.
///
/// `heard` observes the store after the service does; observers of one post run in registration
/// order, so once `heard` has a change, the service has had it too.
struct ServiceHarness {
    let store: Store<TestState>
    let backend = MemoryBackend()
    let archive: StateArchive<TestState>
    let scheduler = ManualScheduler()
    let errors = Recorder<PersistenceError>()
    let heard = Recorder<Int>()
    let service: PersistenceService<TestState>
    let token: ObserverToken

    init(policy: SavePolicy = SavePolicy(), store: Store<TestState> = makeStore()) {
        self.store = store
        archive = StateArchive(backend: backend)
        let errors = errors
        service = PersistenceService(
            store: store, archive: archive, policy: policy, scheduler: scheduler,
            onError: { errors.append($0) })
        let heard = heard
        token = store.observeChanges { note in heard.append(note.actions.count) }
    }

    /// Dispatches `action` and waits until the service has heard of it.
    func dispatchAndWait(_ action: TestAction) {
        let before = heard.count
        store.dispatch(action)
        heard.wait(forCount: before + 1)
    }

    var savedState: TestState? {
        try? archive.load()
    }
}

@Suite(.offThePool) struct PersistenceServiceTests {
    @Test func aChangeIsSavedAfterTwoSecondsWithoutAnother() throws {
        let harness = ServiceHarness()
        harness.dispatchAndWait(.increment)
        #expect(harness.scheduler.deadlines == [1002])

        harness.scheduler.advance(by: 1.9)
        #expect(harness.backend.writeCount == 0)
        harness.scheduler.advance(by: 0.1)
        #expect(harness.backend.writeCount == 1)
        #expect(harness.savedState == TestState(counter: 1))
        #expect(harness.scheduler.deadlines.isEmpty)
    }

    @Test func eachChangeRestartsTheIdleDelay() throws {
        let harness = ServiceHarness()
        harness.dispatchAndWait(.increment)
        harness.scheduler.advance(by: 1.5)
        harness.dispatchAndWait(.increment)
        harness.scheduler.advance(by: 0.5)
        #expect(harness.backend.writeCount == 0, "the state changed 0.5 s ago")
        #expect(harness.scheduler.deadlines == [1003.5])
        harness.scheduler.advance(by: 1.5)
        #expect(harness.savedState == TestState(counter: 2))
    }

    @Test func constantChangeIsSavedAtTheMaximumDelay() throws {
        let harness = ServiceHarness(policy: SavePolicy(idleDelay: 2, maximumDelay: 10))
        harness.dispatchAndWait(.increment)
        for _ in 1..<10 {
            harness.scheduler.advance(by: 1)
            harness.dispatchAndWait(.increment)
        }
        #expect(harness.backend.writeCount == 0, "9 s after the first change, still changing")
        harness.scheduler.advance(by: 1)
        #expect(harness.backend.writeCount == 1)
        #expect(harness.savedState == TestState(counter: 10))

        harness.dispatchAndWait(.increment)
        #expect(harness.scheduler.deadlines == [1012], "the next change starts a new period")
    }

    @Test func bothDelaysAreConfigurable() throws {
        let harness = ServiceHarness(policy: SavePolicy(idleDelay: 0.25, maximumDelay: 0.5))
        harness.dispatchAndWait(.increment)
        #expect(harness.scheduler.deadlines == [1000.25])
        harness.scheduler.advance(by: 0.2)
        harness.dispatchAndWait(.increment)
        harness.scheduler.advance(by: 0.2)
        harness.dispatchAndWait(.increment)
        harness.scheduler.advance(by: 0.1)
        #expect(harness.savedState == TestState(counter: 3))
    }

    @Test func flushSavesEveryActionDispatchedBeforeItAtOnce() throws {
        let harness = ServiceHarness()
        for _ in 0..<100 { harness.store.dispatch(TestAction.increment) }
        try harness.service.flush()
        #expect(harness.savedState == TestState(counter: 100))
        #expect(harness.backend.writeCount == 1)
    }

    @Test func aStateAlreadySavedIsNotWrittenAgain() throws {
        let harness = ServiceHarness()
        harness.dispatchAndWait(.increment)
        try harness.service.flush()
        try harness.service.flush()
        harness.scheduler.advance(by: 2)
        #expect(harness.backend.writeCount == 1)
    }

    @Test func anUnchangedStoreIsNeverWritten() throws {
        let harness = ServiceHarness()
        try harness.service.flush()
        try harness.service.stop()
        #expect(harness.backend.writeCount == 0)
    }

    @Test func stoppingSavesPendingChangesAndStopsObserving() throws {
        let harness = ServiceHarness()
        harness.store.dispatch(TestAction.add(5))
        try harness.service.stop()
        #expect(harness.savedState == TestState(counter: 5))
        #expect(harness.scheduler.deadlines.isEmpty)

        harness.dispatchAndWait(.increment)
        harness.scheduler.advance(by: 60)
        try harness.service.stop()
        #expect(harness.backend.writeCount == 1)
    }

    @Test func releasingTheServiceSavesPendingChanges() throws {
        let store = makeStore()
        let backend = MemoryBackend()
        let archive = StateArchive<TestState>(backend: backend)
        weak var released: PersistenceService<TestState>?
        do {
            let service = PersistenceService(store: store, archive: archive, scheduler: ManualScheduler())
            released = service
            store.dispatch(TestAction.add(3))
        }
        #expect(released == nil, "the store, its observer and the timer do not keep the service alive")
        #expect(try archive.load() == TestState(counter: 3))
    }

    @Test func aFailedSaveIsReportedKeepsTheArchiveAndIsRetried() throws {
        let harness = ServiceHarness(policy: SavePolicy(idleDelay: 2, maximumDelay: 10))
        try harness.service.flush()
        harness.dispatchAndWait(.increment)
        try harness.service.flush()
        harness.backend.failWrites(
            .system(call: "write", errno: ENOSPC, message: "No space left on device"))

        harness.dispatchAndWait(.increment)
        harness.scheduler.advance(by: 2)
        #expect(harness.errors.count == 1)
        #expect(harness.service.lastError == harness.errors.values.first)
        #expect(harness.savedState == TestState(counter: 1), "the last saved state is kept")
        #expect(harness.scheduler.deadlines == [1012], "retried after the maximum delay")

        harness.backend.failWrites(nil)
        harness.scheduler.advance(by: 10)
        #expect(harness.savedState == TestState(counter: 2))
        #expect(harness.service.lastError == nil)
    }

    @Test func aFlushThatFailsThrowsTheError() throws {
        let harness = ServiceHarness()
        harness.backend.failWrites(.system(call: "write", errno: EIO, message: "Input/output error"))
        harness.store.dispatch(TestAction.increment)
        let error = #expect(throws: PersistenceError.self) { try harness.service.flush() }
        #expect(error?.stage == .save)
        #expect(error?.location == "memory")
    }

    @Test func aStoreThatChangedBeforeTheServiceStartedIsSaved() throws {
        let store = makeStore()
        store.dispatch(TestAction.add(4))
        _ = store.currentState()
        let harness = ServiceHarness(store: store)
        #expect(harness.scheduler.deadlines == [1002])
        harness.scheduler.advance(by: 2)
        #expect(harness.savedState == TestState(counter: 4))
    }

    @Test func savingReusesTheSnapshotReadersAlreadyEncoded() throws {
        let encodes = EncodeCounter.shared
        let store = Store(reducers: [countedReducer], state: CountedState())
        let backend = MemoryBackend()
        let service = PersistenceService(
            store: store, archive: StateArchive(backend: backend), scheduler: ManualScheduler())
        store.dispatch(CountedAction())
        _ = store.currentState()
        let before = encodes.count
        try service.flush()
        #expect(encodes.count == before)
        #expect(backend.writeCount == 1)
    }

    /// A store whose reducer, on `.append(call.rawValue)`, flushes, stops or releases the service in
    /// `handle`, recording what the call returned.
    private func storeCallingTheService(
        _ call: ServiceCall, through handle: ServiceHandle,
        into calls: Recorder<Result<Void, PersistenceError>>
    ) -> Store<TestState> {
        makeStore([
            testReducer,
            { _, action in
                guard case .append(let name)? = action as? TestAction, name == call.rawValue else { return }
                calls.append(
                    Result { () throws(PersistenceError) in
                        switch call {
                        case .flush: try handle.service?.flush()
                        case .stop: try handle.service?.stop()
                        case .release: handle.service = nil
                        }
                    })
            },
        ])
    }

    @Test(arguments: ServiceCall.allCases, [false, true])
    func aFlushStopOrReleaseFromAReducerSavesTheStateOnceThatActionCommits(
        _ call: ServiceCall, afterARead: Bool
    ) throws {
        let handle = ServiceHandle()
        let calls = Recorder<Result<Void, PersistenceError>>()
        let store = storeCallingTheService(call, through: handle, into: calls)
        let backend = MemoryBackend()
        let archive = StateArchive<TestState>(backend: backend)
        weak var released: PersistenceService<TestState>?
        do {
            let service = PersistenceService(
                store: store, archive: archive,
                policy: SavePolicy(idleDelay: .infinity, maximumDelay: .infinity),
                onError: { Issue.record("save failed: \($0)") })
            handle.service = service
            released = service
        }
        for _ in 0..<10 { store.dispatch(TestAction.increment) }
        // A read publishes a snapshot of 10: the save must not settle for the last one read.
        if afterARead { #expect(store.currentState().counter == 10) }
        for _ in 0..<5 { store.dispatch(TestAction.increment) }
        store.dispatch(TestAction.append(call.rawValue))

        #expect(calls.wait(forCount: 1), "the call returned inside the reducer, without waiting")
        if case .failure(let error) = calls.values.first { Issue.record("\(call) threw \(error)") }
        #expect(backend.written.wait(forCount: 1, timeout: 10), "a save ran after the action committed")
        #expect(try archive.load() == TestState(counter: 15, log: [call.rawValue]))
        if call == .release { #expect(released == nil) }
        handle.service = nil
    }

    @Test func aFlushFromInsideABackendsWriteSavesOnceThatWriteIsDone() throws {
        let harness = ServiceHarness()
        let service = harness.service
        let innerFlushes = Recorder<Int>()
        harness.backend.onWrite { [store = harness.store] in
            guard innerFlushes.count == 0 else { return }
            store.dispatch(TestAction.add(10))
            do {
                try service.flush()
            } catch {
                Issue.record("the inner flush threw \(error)")
            }
            innerFlushes.append(1)
        }
        harness.dispatchAndWait(.add(1))
        // On its own thread, so that a lock held around the write fails the test instead of hanging it.
        let flushed = finishing(within: 10) { () -> Bool in
            do {
                try service.flush()
                return true
            } catch {
                return false
            }
        }
        try #require(flushed == true, "the inner flush waits for the write it is called from")
        #expect(innerFlushes.count == 1)
        #expect(harness.savedState == TestState(counter: 1), "the outer flush wrote its own state")
        #expect(harness.scheduler.deadlines.first == 1000, "the inner flush scheduled a save, at once")
        harness.scheduler.advance(by: 0)
        #expect(harness.savedState == TestState(counter: 11))
        harness.backend.onWrite(nil)
    }

    @Test func aSaveAReducerAskedForReportsItsFailureToOnErrorAndIsRetried() throws {
        let handle = ServiceHandle()
        let calls = Recorder<Result<Void, PersistenceError>>()
        let harness = ServiceHarness(store: storeCallingTheService(.flush, through: handle, into: calls))
        handle.service = harness.service
        harness.backend.failWrites(
            .system(call: "write", errno: ENOSPC, message: "No space left on device"))
        harness.dispatchAndWait(.append("flush"))
        if case .failure(let error) = calls.values.first { Issue.record("flush threw \(error)") }
        #expect(harness.scheduler.deadlines == [1000, 1002], "the save is scheduled, not run in the reducer")

        harness.scheduler.advance(by: 0)
        #expect(harness.errors.count == 1)
        #expect(harness.service.lastError == harness.errors.values.first)
        #expect(harness.savedState == nil)

        harness.backend.failWrites(nil)
        harness.scheduler.advance(by: 10)
        #expect(harness.savedState == TestState(log: ["flush"]), "retried after the maximum delay")
        #expect(harness.service.lastError == nil)
        handle.service = nil
    }

    @Test func flushesFromManyThreadsWhileDispatchingEndWithTheFinalState() throws {
        let harness = ServiceHarness()
        let store = harness.store
        let service = harness.service
        let failures = Recorder<String>()
        onThreads(4) { thread in
            for step in 0..<200 {
                store.dispatch(TestAction.increment)
                if step % 20 == thread {
                    do { try service.flush() } catch { failures.append("\(error)") }
                }
            }
        }
        try service.flush()
        #expect(failures.values.isEmpty)
        #expect(harness.savedState == TestState(counter: 800))
    }

    @Test func theDispatchSchedulerSavesOnItsOwnAfterTheIdleDelay() throws {
        let store = makeStore()
        let backend = MemoryBackend()
        let archive = StateArchive<TestState>(backend: backend)
        let service = PersistenceService(
            store: store, archive: archive, policy: SavePolicy(idleDelay: 0.01, maximumDelay: 0.05))
        store.dispatch(TestAction.add(6))
        #expect(backend.written.wait(forCount: 1))
        #expect(try archive.load() == TestState(counter: 6))
        withExtendedLifetime(service) {}
    }

    @Test func releasingTheServiceSavesBeforeTheReleaseReturns() throws {
        // The service's observer runs on the store's delivery thread; a release racing it must still
        // save on the releasing thread, before the release returns.
        for trial in 1...300 {
            let store = makeStore()
            let backend = MemoryBackend()
            let archive = StateArchive<TestState>(backend: backend)
            do {
                let service = PersistenceService(
                    store: store, archive: archive, onError: { Issue.record("save failed: \($0)") })
                store.dispatch(TestAction.add(trial))
                withExtendedLifetime(service) {}
            }
            let saved = try backend.data.map { try JSONDecoder().decode(Saved.self, from: $0) }
            guard saved?.state.counter == trial else {
                Issue.record(
                    "trial \(trial): the release returned before the save (\(String(describing: saved)))")
                return
            }
        }
    }

    @Test func aPolicyOfInfiniteDelaysSavesOnlyOnFlushOrStop() throws {
        let harness = ServiceHarness(policy: SavePolicy(idleDelay: .infinity, maximumDelay: .infinity))
        harness.dispatchAndWait(.add(2))
        #expect(harness.scheduler.deadlines.isEmpty, "no timer is started for a save that never comes due")
        harness.scheduler.advance(by: 1e30)
        #expect(harness.backend.writeCount == 0)
        try harness.service.flush()
        #expect(harness.savedState == TestState(counter: 2))
        harness.dispatchAndWait(.increment)
        try harness.service.stop()
        #expect(harness.savedState == TestState(counter: 3))
    }

    @Test(arguments: [(Double.infinity, 10.0), (5, 1), (.infinity, 0), (0.001, 0)])
    func anIdleDelayLongerThanTheMaximumDelayIsCutToIt(_ idle: Double, _ maximum: Double) throws {
        let policy = SavePolicy(idleDelay: idle, maximumDelay: maximum)
        #expect(policy == SavePolicy(idleDelay: maximum, maximumDelay: maximum))
        let harness = ServiceHarness(policy: policy)
        harness.dispatchAndWait(.increment)
        #expect(harness.scheduler.deadlines == [1000 + maximum])
        harness.scheduler.advance(by: maximum)
        #expect(harness.savedState == TestState(counter: 1))
    }

    @Test func aNegativeOrNaNDelayIsAProgrammerError() async {
        await #expect(processExitsWith: .failure) { _ = SavePolicy(idleDelay: -1) }
        await #expect(processExitsWith: .failure) { _ = SavePolicy(idleDelay: 0, maximumDelay: -1) }
        await #expect(processExitsWith: .failure) { _ = SavePolicy(idleDelay: .nan) }
        await #expect(processExitsWith: .failure) { _ = SavePolicy(maximumDelay: .nan) }
    }

    @Test(arguments: [Double.infinity, 1e300, 2e10])
    func hugeDelaysOnTheDispatchSchedulerDoNotTrap(_ delay: Double) throws {
        let store = makeStore()
        let backend = MemoryBackend()
        let archive = StateArchive<TestState>(backend: backend)
        let service = PersistenceService(
            store: store, archive: archive, policy: SavePolicy(idleDelay: delay, maximumDelay: delay))
        let heard = Recorder<Int>()
        let token = store.observeChanges { heard.append($0.actions.count) }
        store.dispatch(TestAction.add(1))
        #expect(heard.wait(forCount: 1), "the service heard the change, after which it starts its timer")
        let work = DispatchSaveScheduler().schedule(at: DispatchSaveScheduler().now() + delay) {
            Issue.record("work scheduled \(delay) s ahead ran")
        }
        work.cancel()
        #expect(backend.writeCount == 0)
        try service.stop()
        #expect(try archive.load() == TestState(counter: 1))
        token.cancel()
    }
}

/// The archive's envelope, read without the archive.
private struct Saved: Decodable {
    let schemaVersion: Int
    let state: TestState
}

/// Lets a reducer reach the service created after its store.
///
/// `@unchecked Sendable`: `service` is set before the dispatch whose reducer reads or clears it,
/// which orders that write before the reducer's access, and the test clears it again only after it
/// has seen the reducer's call recorded, which orders the reducer's access before that write.
final class ServiceHandle: @unchecked Sendable {
    var service: PersistenceService<TestState>?
}

/// What a reducer does to the service, in the tests of saving from store code.
enum ServiceCall: String, CaseIterable, Sendable {
    case flush, stop, release
}

/// Counts `encode(to:)` calls of `CountedState`, which only one test uses.
final class EncodeCounter: @unchecked Sendable {
    // `@unchecked Sendable`: `count` is only touched while `lock` is held.
    static let shared = EncodeCounter()
    private let lock = NSLock()
    private var counts = 0

    func increment() {
        lock.withLock { counts += 1 }
    }

    var count: Int {
        lock.withLock { counts }
    }
}

struct CountedState: StateProtocol {
    var value = 0

    func encode(to encoder: any Encoder) throws {
        EncodeCounter.shared.increment()
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    init() {}

    init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(Int.self)
    }
}

struct CountedAction: ActionProtocol {}

let countedReducer: Reducer<CountedState> = { state, _ in state.value += 1 }

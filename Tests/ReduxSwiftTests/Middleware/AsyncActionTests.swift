import Foundation
import Testing

@testable import ReduxSwift

/// What asynchronous test work depends on: a service that answers once released.
final class FakeService: @unchecked Sendable {
    // `@unchecked Sendable`: `gate` is itself thread-safe and `answer` is immutable.
    let answer: Int
    let gate = Gate()

    init(answer: Int) {
        self.answer = answer
    }

    func fetch() async -> Int {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                // Long enough for a test starved of the cooperative pool on a loaded machine to
                // get to opening the gate (under the thread sanitizer one took a minute), yet
                // bounded, so that a test that never opens it still ends.
                self.gate.wait(timeout: 300)
                continuation.resume(returning: self.answer)
            }
        }
    }
}

func makeAsyncStore(service: FakeService, center: StoreNotificationCenter = StoreNotificationCenter())
    -> Store<TestState>
{
    Store(
        reducers: [testReducer], state: TestState(), middleware: [.asyncActions(dependencies: service)],
        notificationCenter: center)
}

/// Whether `work.finished()` returns within `timeout` seconds; waits without blocking a thread of
/// the cooperative pool, which the work needs.
func finishes<Dependencies: Sendable>(
    _ work: AsyncAction<TestState, Dependencies>, within timeout: Double = 20
) async -> Bool {
    let outcome = FirstOutcome()
    Task {
        await work.finished()
        outcome.resolve(true)
    }
    Task {
        // `sleep(nanoseconds:)`: `sleep(for:)` needs macOS 13 / iOS 16, above the package's floors.
        try? await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
        outcome.resolve(false)
    }
    return await outcome.value()
}

/// The first of several results, awaited without blocking a thread.
final class FirstOutcome: @unchecked Sendable {
    // `@unchecked Sendable`: `result` and `waiters` are only touched while `lock` is held.
    private let lock = NSLock()
    private var result: Bool?
    private var waiters: [CheckedContinuation<Bool, Never>] = []

    func resolve(_ value: Bool) {
        lock.lock()
        guard result == nil else {
            lock.unlock()
            return
        }
        result = value
        let resumed = waiters
        waiters.removeAll()
        lock.unlock()
        for waiter in resumed { waiter.resume(returning: value) }
    }

    /// Whether a result was given.
    var isResolved: Bool { lock.withLock { result != nil } }

    func value() async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            lock.lock()
            if let result {
                lock.unlock()
                continuation.resume(returning: result)
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }
}

@Suite(.offThePool) struct AsyncActionTests {
    @Test func workThatDispatchesIntoAFullQueueAsItsRunStartsNeverDeadlocks() async throws {
        // The drainer starts each run's task, then takes the run's lock again to keep the task;
        // work that dispatches at once into a full queue held that lock while it waited for room.
        // The window is narrow: the scenario runs several times.
        for _ in 0..<10 { try await fillTheQueueAsRunsStart() }
    }

    private func fillTheQueueAsRunsStart() async throws {
        let inReducer = Gate()
        let release = Gate()
        let blocking: Reducer<TestState> = { _, action in
            guard case .append("block")? = action as? TestAction else { return }
            inReducer.open()
            release.wait()
        }
        let store = Store(
            reducers: [testReducer, blocking], state: TestState(),
            middleware: [.asyncActions(dependencies: FakeService(answer: 0))])
        store.kernel.setHighWaterMark(8)
        let lock = store.lock()
        store.dispatch(TestAction.append("block"))
        for index in 0..<200 {
            store.dispatch(
                AsyncAction<TestState, FakeService>("at once \(index)") { $0.dispatch(TestAction.increment) })
        }
        try lock.release()
        #expect(inReducer.wait())
        // Fills the queue while the drainer is in the reducer; this thread waits for room.
        let filled = onNewThread { for _ in 0..<100 { store.dispatch(TestAction.increment) } }
        #expect(waitUntil { store.kernel.inspect { $0.blockedDispatcherCount } > 0 })
        release.open()
        try await store.waitUntilIdle(timeout: 60)
        #expect(filled.wait())
        #expect(store.currentState().counter == 300)
    }

    @Test func anAsyncActionReadsTheStateUsesItsDependencyAndDispatchesTheResult() async {
        let service = FakeService(answer: 41)
        service.gate.open()
        let store = makeAsyncStore(service: service)
        let seenByReducers = Recorder<String>()
        store.register([{ _, action in seenByReducers.append(action.identifier) }])
        store.dispatch(TestAction.increment)
        let load = AsyncAction<TestState, FakeService>("load") { context in
            let answer = await context.dependencies.fetch()
            let counter = context.currentState().counter
            context.dispatch(TestAction.add(answer + counter - 1))
        }
        store.dispatch(load)
        await load.finished()
        #expect(store.currentState().counter == 42)
        #expect(seenByReducers.values == ["TestAction.increment", "TestAction.add"])
    }

    @Test func anErrorIsPostedAsAFailureOfTheAsyncAction() async {
        let center = StoreNotificationCenter()
        let store = makeAsyncStore(service: FakeService(answer: 0), center: center)
        let failures = Recorder<StoreNotification>()
        let token = store.observeFailures { failures.append($0) }
        let save = AsyncAction<TestState, FakeService>("save") { _ in throw TestFailure(reason: "offline") }
        store.dispatch(save)
        await save.finished()
        #expect(failures.wait(forCount: 1))
        #expect(failures.values[0].failedAction?.identifier == "save")
        #expect(failures.values[0].error as? TestFailure == TestFailure(reason: "offline"))
        withExtendedLifetime(token) {}
    }

    @Test func cancellingBeforeTheDispatchMeansTheWorkNeverRuns() async {
        let store = makeAsyncStore(service: FakeService(answer: 0))
        let ran = Recorder<Bool>()
        let failures = Recorder<StoreNotification>()
        let token = store.observeFailures { failures.append($0) }
        let work = AsyncAction<TestState, FakeService> { _ in ran.append(true) }
        work.cancel()
        await work.finished()
        let (announced, appendToken) = recordAppends(announcedBy: store)
        store.dispatch(work)
        store.dispatch(TestAction.append("after"))
        // Notifications are posted in order: a failure of `work` would come before this change.
        #expect(announced.wait(forCount: 1))
        #expect(store.currentState().log == ["after"])
        #expect(work.isCancelled)
        #expect(ran.count == 0)
        #expect(failures.count == 0)
        withExtendedLifetime((token, appendToken)) {}
    }

    @Test func cancellingRunningWorkDropsItsLaterDispatchesAndReportsNoFailure() async {
        let center = StoreNotificationCenter()
        let service = FakeService(answer: 5)
        let store = makeAsyncStore(service: service, center: center)
        let failures = Recorder<StoreNotification>()
        let token = store.observeFailures { failures.append($0) }
        let started = AsyncGate()
        let sawCancellation = Recorder<Bool>()
        let work = AsyncAction<TestState, FakeService>("slow") { context in
            context.dispatch(TestAction.append("started"))
            started.open()
            let answer = await context.dependencies.fetch()
            sawCancellation.append(Task.isCancelled)
            context.dispatch(TestAction.add(answer))
            try Task.checkCancellation()
        }
        store.dispatch(work)
        await started.opened()
        work.cancel()
        service.gate.open()
        await work.finished()
        let (announced, appendToken) = recordAppends(announcedBy: store)
        store.dispatch(TestAction.append("end"))
        #expect(announced.wait { $0.contains("end") })
        #expect(store.currentState() == TestState(counter: 0, log: ["started", "end"]))
        #expect(sawCancellation.values == [true])
        #expect(failures.count == 0)
        withExtendedLifetime((token, appendToken)) {}
    }

    @Test func dispatchingTheSameAsyncActionTwiceReportsThatItRunsOnce() async {
        let store = makeAsyncStore(service: FakeService(answer: 0))
        let failures = Recorder<StoreNotification>()
        let token = store.observeFailures { failures.append($0) }
        let runs = Recorder<Int>()
        let identifier = "once-\(UUID().uuidString)"
        let warnings = Recorder<String>()
        let listener = RuntimeWarning.addListener { message in
            if message.hasPrefix(identifier) { warnings.append(message) }
        }
        defer { RuntimeWarning.removeListener(listener) }
        let work = AsyncAction<TestState, FakeService>(identifier) { _ in runs.append(1) }
        store.dispatch(work)
        store.dispatch(work)
        await work.finished()
        #expect(failures.wait(forCount: 1))
        #expect(
            failures.values[0].error as? AsyncActionError
                == AsyncActionError(.alreadyStarted, identifier: identifier))
        #expect(runs.count == 1)
        // Loud as well: a runtime warning, which debug builds show where a developer looks.
        #expect(warnings.values == [AsyncActionError(.alreadyStarted, identifier: identifier).description])
        withExtendedLifetime(token) {}
    }

    @Test func anAsyncActionForOtherDependenciesIsReportedNotLost() {
        let store = makeAsyncStore(service: FakeService(answer: 0))
        let failures = Recorder<StoreNotification>()
        let token = store.observeFailures { failures.append($0) }
        store.dispatch(AsyncAction<TestState, String>("wrong") { _ in })
        #expect(failures.wait(forCount: 1))
        let error = failures.values[0].error as? AsyncActionError
        #expect(error?.kind == .dependencyMismatch(expected: "String", provided: "FakeService"))
        #expect(error?.identifier == "wrong")
        #expect(error?.description.contains("needs dependencies of type String") == true)
        withExtendedLifetime(token) {}
    }

    @Test func anAsyncActionThatCannotStartIsFinished() async {
        let store = makeAsyncStore(service: FakeService(answer: 0))
        let wrong = AsyncAction<TestState, String>("wrong") { _ in }
        store.dispatch(wrong)
        #expect(await finishes(wrong), "work that cannot start is finished")
    }

    @Test func aFailedAsyncActionIsNamedByItsIdentifierInNotificationsAndLogs() {
        let lines = Recorder<String>()
        let service = FakeService(answer: 0)
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [.logger(write: { lines.append($0) }), .asyncActions(dependencies: service)],
            notificationCenter: StoreNotificationCenter())
        let failures = Recorder<StoreNotification>()
        let token = store.observeFailures { failures.append($0) }
        store.dispatch(AsyncAction<TestState, String>("todos.load") { _ in })
        store.dispatch(batch: [TestAction.increment, AsyncAction<TestState, String> { _ in }])
        _ = store.currentState()  // both lines are written once the store has handled both
        #expect(failures.wait(forCount: 2))
        let failed = failures.values.map { $0.failedAction.map(String.init(describing:)) }
        #expect(failed == ["AsyncAction(todos.load)", "AsyncAction"])
        let mismatch =
            "needs dependencies of type String, but the asyncActions middleware provides FakeService"
        #expect(lines.values.count == 2)
        #expect(
            lines.values.first?.hasPrefix(
                "[TestState] AsyncAction(todos.load) failed (todos.load \(mismatch)) in ") == true)
        #expect(
            lines.values.last?.hasPrefix(
                "[TestState] ActionBatch of 2 actions [increment, AsyncAction] committed in ") == true)
        withExtendedLifetime(token) {}
    }

    @Test func asyncActionsWithoutDependenciesUseVoid() async {
        let store = Store(
            reducers: [testReducer], state: TestState(), middleware: [.asyncActions()],
            notificationCenter: StoreNotificationCenter())
        let work = AsyncAction<TestState, Void> { context in
            context.dispatch(batch: [TestAction.increment, TestAction.append("batched")])
        }
        store.dispatch(work)
        await work.finished()
        #expect(store.currentState() == TestState(counter: 1, log: ["batched"]))
    }

    @Test func manyAsyncActionsFromManyThreadsAllLand() async {
        let store = Store(
            reducers: [testReducer], state: TestState(), middleware: [.asyncActions()],
            notificationCenter: StoreNotificationCenter())
        let actions = (0..<200).map { _ in
            AsyncAction<TestState, Void> { context in context.dispatch(TestAction.increment) }
        }
        concurrently(4) { thread in
            for index in stride(from: thread, to: actions.count, by: 4) { store.dispatch(actions[index]) }
        }
        for action in actions { await action.finished() }
        #expect(store.currentState().counter == 200)
    }

    @Test func anAsyncActionInABatchRunsOnceTheBatchCommitsAndNoReducerSeesIt() async {
        let store = makeAsyncStore(service: FakeService(answer: 0))
        let seen = Recorder<String>()
        store.register([{ _, action in seen.append(action.identifier) }])
        let work = AsyncAction<TestState, FakeService>("work") { context in
            context.dispatch(TestAction.append("work saw \(context.currentState().log)"))
        }
        store.dispatch(batch: [TestAction.append("a"), work, TestAction.append("b")])
        #expect(await finishes(work))
        #expect(store.currentState().log == ["a", "b", "work saw [\"a\", \"b\"]"])
        #expect(seen.values == ["TestAction.append", "TestAction.append", "TestAction.append"])
    }

    @Test func anAsyncActionNestedInBatchesRuns() async {
        let store = makeAsyncStore(service: FakeService(answer: 0))
        let work = AsyncAction<TestState, FakeService>("nested") { context in
            context.dispatch(TestAction.append("ran"))
        }
        store.dispatch(batch: [ActionBatch([TestAction.increment, ActionBatch([work])])])
        #expect(await finishes(work))
        #expect(store.currentState() == TestState(counter: 1, log: ["ran"]))
    }

    @Test func aBatchOfOnlyAsyncActionsStartsThemAndAnnouncesNothing() async {
        let store = makeAsyncStore(service: FakeService(answer: 0))
        let announced = Recorder<String>()
        let token = store.observeChanges { note in
            for action in note.actions { announced.append(action.identifier) }
        }
        let first = AsyncAction<TestState, FakeService>("first") { context in
            context.dispatch(TestAction.add(1))
        }
        let second = AsyncAction<TestState, FakeService>("second") { context in
            context.dispatch(TestAction.add(2))
        }
        store.dispatch(batch: [first, ActionBatch([second])])
        #expect(await finishes(first))
        #expect(await finishes(second))
        #expect(store.currentState().counter == 3)
        #expect(announced.wait(forCount: 2))
        #expect(announced.values == ["TestAction.add", "TestAction.add"])
        withExtendedLifetime(token) {}
    }

    @Test func anAsyncActionInAFailedBatchEndsWithoutRunning() async {
        let store = makeAsyncStore(service: FakeService(answer: 0))
        let failures = Recorder<String>()
        let token = store.observeFailures { note in failures.append(note.failedAction?.identifier ?? "?") }
        let ran = Recorder<Bool>()
        let work = AsyncAction<TestState, FakeService>("doomed") { _ in ran.append(true) }
        store.dispatch(batch: [TestAction.increment, work, TestAction.fail])
        #expect(await finishes(work))
        #expect(failures.wait(forCount: 1))
        #expect(failures.values == ["ActionBatch"])
        #expect(store.currentState() == TestState())
        #expect(ran.count == 0)
        withExtendedLifetime(token) {}
    }

    @Test func anAsyncActionThatCannotStartInABatchIsReportedByName() async {
        let store = makeAsyncStore(service: FakeService(answer: 0))
        let failures = Recorder<StoreNotification>()
        let token = store.observeFailures { failures.append($0) }
        let runs = Recorder<Int>()
        let work = AsyncAction<TestState, FakeService>("once") { _ in runs.append(1) }
        store.dispatch(batch: [work, TestAction.increment, work])
        #expect(await finishes(work))
        #expect(failures.wait(forCount: 1))
        #expect(failures.values[0].failedAction?.identifier == "once")
        #expect(
            failures.values[0].error as? AsyncActionError
                == AsyncActionError(.alreadyStarted, identifier: "once"))
        #expect(store.currentState().counter == 1)
        #expect(runs.count == 1)
        withExtendedLifetime(token) {}
    }
}

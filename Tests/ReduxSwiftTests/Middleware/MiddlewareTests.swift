import Foundation
import Testing

@testable import ReduxSwift

/// A middleware that records the identifier of every action it sees, then passes it on.
func recordingMiddleware(_ name: String, into seen: Recorder<String>) -> Middleware<TestState> {
    Middleware(name) { action, context in
        seen.append("\(name):\(action.identifier)")
        context.next(action)
    }
}

@Suite(.offThePool) struct MiddlewareTests {
    @Test func middlewareSeeEveryActionInOrderBeforeTheReducers() {
        let seen = Recorder<String>()
        let store = Store(
            reducers: [
                testReducer,
                { _, action in seen.append("reducer:\(action.identifier)") },
            ], state: TestState(),
            middleware: [
                recordingMiddleware("first", into: seen), recordingMiddleware("second", into: seen),
            ],
            notificationCenter: StoreNotificationCenter())
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.append("a"))
        #expect(store.currentState() == TestState(counter: 1, log: ["a"]))
        #expect(
            seen.values == [
                "first:TestAction.increment", "second:TestAction.increment", "reducer:TestAction.increment",
                "first:TestAction.append", "second:TestAction.append", "reducer:TestAction.append",
            ])
    }

    @Test func aMiddlewaresOwnDispatchesStandWhenAReducerRejectsTheActionItPassedOn() async throws {
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [
                Middleware("around") { action, context in
                    guard case .fail? = action as? TestAction else {
                        _ = context.next(action)
                        return
                    }
                    context.dispatch(TestAction.append("before"))
                    let later = context.dispatchLater()
                    _ = context.next(action)
                    later(TestAction.append("after"))
                }
            ])
        store.dispatch(TestAction.fail)
        try await store.waitUntilIdle(timeout: 60)
        #expect(store.currentState() == TestState(log: ["before", "after"]))
    }

    @Test func aMiddlewareThatDoesNotCallNextDropsTheAction() {
        let center = StoreNotificationCenter()
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [
                Middleware("drop increments") { action, context in
                    if case .increment? = action as? TestAction { return }
                    context.next(action)
                }
            ], notificationCenter: center)
        let (announced, token) = recordAppends(announcedBy: store)
        let identifiers = Recorder<String>()
        let allToken = store.observeChanges { note in
            for action in note.actions { identifiers.append(action.identifier) }
        }
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.append("kept"))
        #expect(store.currentState() == TestState(counter: 0, log: ["kept"]))
        // Each observer waited on: the two hear a notification one after the other.
        #expect(announced.wait(forCount: 1))
        #expect(identifiers.wait(forCount: 1))
        #expect(identifiers.values == ["TestAction.append"])
        withExtendedLifetime((token, allToken)) {}
    }

    @Test func aMiddlewareCanReplaceAnActionAndObserversHearTheReplacement() {
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [
                Middleware("double") { action, context in
                    if case .add(let amount)? = action as? TestAction {
                        context.next(TestAction.add(amount * 2))
                    } else {
                        context.next(action)
                    }
                }
            ], notificationCenter: StoreNotificationCenter())
        let announced = Recorder<TestAction>()
        let token = store.observeChanges { note in
            for case let action as TestAction in note.actions { announced.append(action) }
        }
        store.dispatch(TestAction.add(3))
        #expect(store.currentState().counter == 6)
        #expect(announced.wait(forCount: 1))
        #expect(announced.values == [.add(6)])
        withExtendedLifetime(token) {}
    }

    @Test func callingNextTwiceReducesTwoActionsThatCommitOrFailOnTheirOwn() {
        let outcomes = Recorder<String>()
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [
                Middleware("expand") { action, context in
                    guard case .append(let entry)? = action as? TestAction else {
                        context.next(action)
                        return
                    }
                    for action in [
                        TestAction.append(entry + "1"), TestAction.fail, TestAction.append(entry + "2"),
                    ] {
                        switch context.next(action) {
                        case .committed: outcomes.append("committed")
                        case .failed(let error): outcomes.append("failed: \(error)")
                        case .dropped: outcomes.append("dropped")
                        case .started: outcomes.append("started")
                        }
                    }
                }
            ], notificationCenter: StoreNotificationCenter())
        store.dispatch(TestAction.append("x"))
        #expect(store.currentState() == TestState(counter: 0, log: ["x1", "x2"]))
        #expect(outcomes.values == ["committed", "failed: \(TestFailure())", "committed"])
    }

    @Test func aMiddlewareBeforeTheAsyncMiddlewareSeesAnAsyncActionAsStarted() async {
        let outcomes = Recorder<String>()
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [
                Middleware("analytics") { action, context in
                    switch context.next(action) {
                    case .started: outcomes.append("\(action.identifier) started")
                    case .committed: outcomes.append("\(action.identifier) committed")
                    case .dropped: outcomes.append("\(action.identifier) dropped")
                    case .failed: outcomes.append("\(action.identifier) failed")
                    }
                },
                .asyncActions(dependencies: FakeService(answer: 1)),
            ], notificationCenter: StoreNotificationCenter())
        let checkout = AsyncAction<TestState, FakeService>("checkout") { context in
            context.dispatch(TestAction.increment)
        }
        store.dispatch(checkout)
        store.dispatch(batch: [TestAction.append("a"), AsyncAction<TestState, FakeService>("sync") { _ in }])
        store.dispatch(batch: [AsyncAction<TestState, FakeService>("alone") { _ in }])
        let cancelled = AsyncAction<TestState, FakeService>("cancelled") { _ in }
        cancelled.cancel()
        store.dispatch(cancelled)
        #expect(await finishes(checkout))
        #expect(await outcomes.waitOffThePool { $0.count == 5 })
        // The work's own dispatch comes whenever its task runs; the rest in dispatch order.
        let increment = "TestAction.increment committed"
        #expect(outcomes.values.filter { $0 == increment }.count == 1)
        #expect(
            outcomes.values.filter { $0 != increment } == [
                "checkout started", "ActionBatch committed", "ActionBatch started", "cancelled dropped",
            ])
    }

    @Test func nextReportsADropByALaterMiddleware() {
        let outcomes = Recorder<String>()
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [
                Middleware("observe") { action, context in
                    if case .dropped = context.next(action) {
                        outcomes.append("dropped \(action.identifier)")
                    }
                },
                Middleware("drop all") { _, _ in },
            ], notificationCenter: StoreNotificationCenter())
        store.dispatch(TestAction.increment)
        #expect(store.currentState().counter == 0)
        #expect(outcomes.values == ["dropped TestAction.increment"])
    }

    @Test func aThrowingMiddlewareReportsTheActionAndLosesItsDispatches() {
        let center = StoreNotificationCenter()
        let handle = StoreHandle()
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [
                Middleware("reject") { action, context in
                    if case .add(let amount)? = action as? TestAction, amount < 0 {
                        handle.store.dispatch(TestAction.append("lost"))
                        throw TestFailure(reason: "negative")
                    }
                    context.next(action)
                }
            ], notificationCenter: center)
        handle.store = store
        let failures = Recorder<StoreNotification>()
        let token = store.observeFailures { failures.append($0) }
        store.dispatch(TestAction.add(-1))
        store.dispatch(TestAction.add(2))
        #expect(store.currentState() == TestState(counter: 2))
        #expect(failures.wait(forCount: 1))
        #expect(failures.values[0].failedAction as? TestAction == .add(-1))
        #expect(failures.values[0].error as? TestFailure == TestFailure(reason: "negative"))
        withExtendedLifetime(token) {}
    }

    @Test func aMiddlewareThatThrowsAfterPassingAnActionOnKeepsThatActionsDispatches() {
        let handle = StoreHandle()
        let store = Store(
            reducers: [
                testReducer,
                { _, action in
                    if case .append("passed")? = action as? TestAction {
                        handle.store.dispatch(TestAction.append("from the reducer"))
                    }
                },
            ], state: TestState(),
            middleware: [
                Middleware("pass, then throw") { action, context in
                    guard case .add? = action as? TestAction else {
                        context.next(action)
                        return
                    }
                    context.dispatch(TestAction.append("from the middleware"))
                    context.next(TestAction.append("passed"))
                    throw TestFailure(reason: "after passing on")
                }
            ], notificationCenter: StoreNotificationCenter())
        handle.store = store
        let (announced, token) = recordAppends(announcedBy: store)
        store.dispatch(TestAction.add(1))
        #expect(announced.wait(forCount: 2))
        #expect(store.currentState().log == ["passed", "from the reducer"])
        withExtendedLifetime(token) {}
    }

    @Test func dispatchesFromAMiddlewareAreHandledRightAfterTheCurrentAction() {
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [echoMiddleware()], notificationCenter: StoreNotificationCenter())
        // Both queued before either is reduced: each echo still comes right after its action.
        let lock = store.lock()
        store.dispatch(TestAction.append("a"))
        store.dispatch(TestAction.append("b"))
        try? lock.release()
        let settled = Recorder<Int>()
        let token = store.observeChanges { _ in settled.append(0) }
        #expect(settled.wait { _ in store.currentState().log.count == 4 })
        #expect(store.currentState().log == ["a", "a!", "b", "b!"])
        withExtendedLifetime(token) {}
    }

    @Test func nextLaterContinuesPastTheMiddlewareFromAnotherThread() {
        let seen = Recorder<String>()
        let released = Gate()
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [
                recordingMiddleware("first", into: seen),
                Middleware("hold") { action, context in
                    seen.append("hold:\(action.identifier)")
                    guard case .append("held")? = action as? TestAction else {
                        context.next(action)
                        return
                    }
                    let next = context.nextLater()
                    DispatchQueue.global().async {
                        released.wait()
                        next(action)
                    }
                },
                recordingMiddleware("last", into: seen),
            ], notificationCenter: StoreNotificationCenter())
        let (announced, token) = recordAppends(announcedBy: store)
        store.dispatch(TestAction.append("held"))
        store.dispatch(TestAction.append("after"))
        #expect(store.currentState().log == ["after"])
        released.open()
        #expect(announced.wait(forCount: 2))
        #expect(announced.values == ["after", "held"])
        #expect(store.currentState().log == ["after", "held"])
        // The held action skipped the middleware it had passed already.
        #expect(
            seen.values == [
                "first:TestAction.append", "hold:TestAction.append", "first:TestAction.append",
                "hold:TestAction.append", "last:TestAction.append", "last:TestAction.append",
            ])
        withExtendedLifetime(token) {}
    }

    @Test func currentStateIsTheLiveStateIncludingActionsPassedOn() {
        let observed = Recorder<Int>()
        let store = Store(
            reducers: [testReducer], state: TestState(counter: 10),
            middleware: [
                Middleware("watch") { action, context in
                    observed.append(context.currentState().counter)
                    context.next(action)
                    observed.append(context.currentState().counter)
                }
            ], notificationCenter: StoreNotificationCenter())
        store.dispatch(TestAction.add(5))
        store.dispatch(TestAction.fail)
        #expect(store.currentState().counter == 15)
        #expect(observed.values == [10, 15, 15, 15])
    }

    @Test func rollbackReappliesWhatTheReducersSawWithoutRunningMiddlewareAgain() {
        let calls = Recorder<String>()
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [
                Middleware("triple") { action, context in
                    calls.append(action.identifier)
                    if case .increment? = action as? TestAction {
                        context.next(TestAction.add(3))
                    } else {
                        context.next(action)
                    }
                }
            ], notificationCenter: StoreNotificationCenter())
        for _ in 0..<5 { store.dispatch(TestAction.increment) }
        store.dispatch(TestAction.fail)
        store.dispatch(TestAction.append("end"))
        #expect(store.currentState() == TestState(counter: 15, log: ["end"]))
        #expect(calls.count == 7)
    }

    @Test func aBatchReachesMiddlewareAsOneAction() {
        let seen = Recorder<String>()
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [recordingMiddleware("m", into: seen)], notificationCenter: StoreNotificationCenter())
        store.dispatch(batch: [TestAction.increment, TestAction.append("lost"), TestAction.fail])
        store.dispatch(batch: [TestAction.increment, TestAction.append("kept")])
        #expect(store.currentState() == TestState(counter: 1, log: ["kept"]))
        #expect(seen.values == ["m:ActionBatch", "m:ActionBatch"])
    }

    @Test func middlewareRegisteredLaterSeeOnlyLaterActions() {
        let seen = Recorder<String>()
        let store = makeStore()
        store.dispatch(TestAction.increment)
        store.register(middleware: [recordingMiddleware("late", into: seen)])
        store.dispatch(TestAction.append("a"))
        #expect(store.currentState() == TestState(counter: 1, log: ["a"]))
        #expect(seen.values == ["late:TestAction.append"])
    }

    @Test func readingTheStoreFromAMiddlewareNeverWaits() {
        let handle = StoreHandle()
        let reads = Recorder<Int>()
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [
                Middleware("read") { action, context in
                    reads.append(handle.store.currentState().counter)
                    context.next(action)
                }
            ], notificationCenter: StoreNotificationCenter())
        handle.store = store
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.increment)
        #expect(store.currentState().counter == 2)
        #expect(reads.count == 2)
    }

    @Test func middlewareAreSafeUnderDispatchesFromManyThreads() {
        let seen = Recorder<String>()
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [
                .logger(write: { _ in }),
                Middleware("double") { action, context in
                    context.next(action)
                    if case .increment? = action as? TestAction { context.next(action) }
                },
                Middleware("count") { action, context in
                    if case .append? = action as? TestAction { seen.append(action.identifier) }
                    context.next(action)
                },
            ], notificationCenter: StoreNotificationCenter())
        concurrently(8) { thread in
            for step in 0..<250 {
                store.dispatch(TestAction.increment)
                if step % 50 == 0 { store.dispatch(TestAction.append("\(thread)")) }
                if step % 100 == 0 { store.dispatch(TestAction.fail) }
            }
        }
        let state = store.currentState()
        #expect(state.counter == 8 * 250 * 2)
        #expect(state.log.count == 8 * 5)
        #expect(seen.count == 8 * 5)
    }
}

@Suite(.offThePool) struct LoggerMiddlewareTests {
    @Test func theLoggerWritesOneLinePerActionWithHowItEnded() {
        let lines = Recorder<String>()
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [
                .logger(label: "test", write: { lines.append($0) }),
                Middleware("drop appends") { action, context in
                    if case .append? = action as? TestAction { return }
                    context.next(action)
                },
            ], notificationCenter: StoreNotificationCenter())
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.fail)
        store.dispatch(TestAction.append("x"))
        #expect(store.currentState().counter == 1)
        let written = lines.values
        #expect(written.count == 3)
        #expect(written[0].hasPrefix("[test] increment committed in "))
        #expect(written[1].hasPrefix("[test] fail failed (\(TestFailure())) in "))
        #expect(written[2].hasPrefix("[test] append(\"x\") dropped in "))
        #expect(written.allSatisfy { $0.hasSuffix(" ms") })
    }

    @Test func theDefaultLabelIsTheStateTypeName() {
        let lines = Recorder<String>()
        let store = Store(
            reducers: [testReducer], state: TestState(), middleware: [.logger(write: { lines.append($0) })],
            notificationCenter: StoreNotificationCenter())
        store.dispatch(TestAction.increment)
        _ = store.currentState()
        #expect(lines.values.first?.hasPrefix("[TestState] increment committed") == true)
    }

    @Test func theLoggerDescribesABatchByTheActionsItHoldsAtEveryDepth() {
        let lines = Recorder<String>()
        let store = Store(
            reducers: [testReducer], state: TestState(), middleware: [.logger(write: { lines.append($0) })],
            notificationCenter: StoreNotificationCenter())
        store.dispatch(batch: [ActionBatch([TestAction.increment]), TestAction.append("x")])
        _ = store.currentState()
        #expect(
            lines.values.first?.hasPrefix(
                #"[TestState] ActionBatch of 2 actions [increment, append("x")] committed in "#) == true)
    }

    @Test func theLoggerDescribesABatchNested20000LevelsDeepWithoutOverflowingTheStack() {
        let lines = Recorder<String>()
        let store = Store(
            reducers: [testReducer], state: TestState(), middleware: [.logger(write: { lines.append($0) })],
            notificationCenter: StoreNotificationCenter())
        var nested: any ActionProtocol = TestAction.increment
        for _ in 0..<20_000 { nested = ActionBatch([nested]) }
        store.dispatch(batch: [nested, TestAction.increment])
        #expect(store.currentState().counter == 2)
        #expect(
            lines.values.first?.hasPrefix(
                "[TestState] ActionBatch of 2 actions [increment, increment] committed") == true)
    }
}

/// A middleware that dispatches `entry + "!"` for each `append` whose entry does not end in "!",
/// then passes the action on.
func echoMiddleware() -> Middleware<TestState> {
    Middleware("echo") { action, context in
        if case .append(let entry)? = action as? TestAction, !entry.hasSuffix("!") {
            context.dispatch(TestAction.append(entry + "!"))
        }
        context.next(action)
    }
}

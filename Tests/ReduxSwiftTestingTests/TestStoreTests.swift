import ReduxSwift
import Testing

@testable import ReduxSwiftTesting

/// What a `TestStore` checks, and the exact failure each broken check reports. Tests of a failure
/// record it instead of failing (`recordingFailures()`); `TestStoreReportingTests` shows that a
/// failure reaches the running test.
@Suite struct TestStoreTests {
    @Test func aSendWhoseChangeIsDescribedExactlyPasses() {
        let store = makeTestStore()
        store.send(CounterAction.increment) { $0.count = 1 }
        store.send(CounterAction.note("hi")) { $0.log = ["hi"] }
        #expect(store.state == CounterState(count: 1, log: ["hi"]))
        store.finish()
    }

    @Test func aWrongAssertionFailsWithTheValuesThatDiffer() {
        let store = makeTestStore()
        let failures = store.recordingFailures()
        let line: UInt = #line + 1
        store.send(CounterAction.add(3)) { $0.count = 2 }
        #expect(
            failures.take() == [
                ReportedFailure(
                    "state after add(3) differs from the expected state:\n    count: expected 2, actual 3",
                    line: line)
            ])
        // The actual state is taken as asserted, so later sends are checked against it.
        store.send(CounterAction.increment) { $0.count = 4 }
        #expect(failures.take() == [])
    }

    @Test func anUnassertedChangeFails() {
        let store = makeTestStore()
        let failures = store.recordingFailures()
        let line: UInt = #line + 1
        store.send(CounterAction.note("surprise"))
        #expect(
            failures.take() == [
                ReportedFailure(
                    "state after note(\"surprise\") differs from the expected state:\n"
                        + "    log.0: expected absent, actual \"surprise\"",
                    line: line)
            ])
    }

    @Test func anAssertionClosureThatThrowsFails() {
        let store = makeTestStore()
        let failures = store.recordingFailures()
        let line: UInt = #line + 1
        store.send(CounterAction.increment) { _ in throw Rejected() }
        #expect(failures.take() == [ReportedFailure("the assertion closure threw: Rejected()", line: line)])
    }

    @Test func actionsFromAsyncWorkAreReceivedAndChecked() async {
        let store = makeTestStore()
        store.send(
            AsyncAction<CounterState, Void>("load") { context in context.dispatch(CounterAction.add(5)) })
        await store.receive(CounterAction.add(5)) { $0.count = 5 }
        store.finish()
    }

    @Test func actionsDispatchedByMiddlewareAreReceivedInOrder() async {
        let store = makeTestStore()
        store.send(CounterAction.incrementTwiceLater)
        await store.receive(CounterAction.increment) { $0.count = 1 }
        await store.receive(CounterAction.increment) { $0.count = 2 }
        store.finish()
    }

    @Test func waitingForAnActionThatNeverComesFailsAfterTheTimeout() async {
        let store = makeTestStore()
        let failures = store.recordingFailures()
        let line: UInt = #line + 1
        await store.receive(CounterAction.increment, timeout: 0.2)
        #expect(
            failures.take() == [
                ReportedFailure(
                    "expected to receive increment within 0.2 s, but no unasserted action reached the reducers",
                    line: line)
            ])
    }

    @Test func receivingAnotherActionThanExpectedFails() async {
        let store = makeTestStore()
        let failures = store.recordingFailures()
        store.send(AsyncAction<CounterState, Void> { context in context.dispatch(CounterAction.add(2)) })
        let line: UInt = #line + 1
        await store.receive(CounterAction.increment)
        #expect(
            failures.take() == [ReportedFailure("expected to receive increment, received add(2)", line: line)]
        )
    }

    @Test func aReceivedActionThatFailsIsReported() async {
        let store = makeTestStore()
        let failures = store.recordingFailures()
        store.send(AsyncAction<CounterState, Void> { context in context.dispatch(CounterAction.reject) })
        let line: UInt = #line + 1
        await store.receive(CounterAction.reject)
        #expect(failures.take() == [ReportedFailure("reject failed: Rejected()", line: line)])
    }

    @Test func receivedActionsLeftUnassertedFailTheNextSendAndFinish() async {
        let store = makeTestStore()
        let failures = store.recordingFailures()
        store.send(CounterAction.incrementTwiceLater)
        let finishLine: UInt = #line + 1
        store.finish()
        #expect(
            failures.take() == [
                ReportedFailure(
                    "2 received action(s) were not asserted: increment, increment", line: finishLine)
            ])
        store.send(CounterAction.incrementTwiceLater)
        let sendLine: UInt = #line + 1
        store.send(CounterAction.note("next")) { $0.log = ["next"] }
        #expect(
            failures.take() == [
                ReportedFailure(
                    "2 received action(s) were not asserted before sending note(\"next\"): increment, increment",
                    line: sendLine)
            ])
    }

    @Test func withExhaustivityOffOnlyTheDescribedChangesAreChecked() async {
        let store = makeTestStore(exhaustivity: .off)
        store.send(CounterAction.note("a"))  // an unasserted change: allowed
        store.send(
            AsyncAction<CounterState, Void> { context in
                for action in [CounterAction.increment, .note("b"), .add(7)] { context.dispatch(action) }
            })
        // Skips the increment and the note; checks only the count.
        await store.receive(CounterAction.add(7)) { $0.count = 8 }
        store.send(CounterAction.add(1)) { $0.count = 9 }
        #expect(store.state == CounterState(count: 9, log: ["a", "b"]))
        store.send(CounterAction.incrementTwiceLater)
        store.finish()  // unasserted received actions are allowed
    }

    @Test func anExpectedFailureReturnsTheErrorAndLeavesTheState() {
        let store = makeTestStore()
        store.send(CounterAction.increment) { $0.count = 1 }
        let error = store.sendExpectingFailure(CounterAction.reject)
        #expect(error as? Rejected == Rejected())
        #expect(store.state.count == 1)
        let failures = store.recordingFailures()
        let sendLine: UInt = #line + 1
        store.send(CounterAction.reject)
        #expect(failures.take() == [ReportedFailure("reject failed: Rejected()", line: sendLine)])
        let expectingLine: UInt = #line + 1
        store.sendExpectingFailure(CounterAction.increment)
        #expect(
            failures.take() == [
                ReportedFailure("increment was expected to fail, but it did not", line: expectingLine)
            ])
    }

    @Test func anErrorThrownByTheAppsMiddlewareIsReportedNotLost() {
        let guardMiddleware = Middleware<CounterState>("no negative amounts") { action, context in
            if case .add(let amount)? = action as? CounterAction, amount < 0 { throw Rejected() }
            context.next(action)
        }
        let store = TestStore(reducers: counterReducers, state: CounterState(), middleware: [guardMiddleware])
        let error = store.sendExpectingFailure(CounterAction.add(-1))
        #expect(error as? Rejected == Rejected())
        let failures = store.recordingFailures()
        let line: UInt = #line + 1
        store.send(CounterAction.add(-2))
        #expect(failures.take() == [ReportedFailure("add(-2) failed: Rejected()", line: line)])
        store.send(CounterAction.add(2)) { $0.count = 2 }
        store.finish()
        #expect(failures.take() == [])
    }

    @Test func anAsyncActionThatCannotStartIsNamedByItsIdentifier() {
        let store = makeTestStore()
        let failures = store.recordingFailures()
        let line: UInt = #line + 1
        store.send(AsyncAction<CounterState, String>("todos.load") { _ in })
        #expect(
            failures.take() == [
                ReportedFailure(
                    "AsyncAction(todos.load) failed: todos.load needs dependencies of type String, "
                        + "but the asyncActions middleware provides ()",
                    line: line)
            ])
    }

    @Test func skippingReceivedActionsTakesTheStoresState() {
        let store = makeTestStore()
        store.send(CounterAction.incrementTwiceLater)
        store.skipReceivedActions()
        #expect(store.state.count == 2)
        store.send(CounterAction.increment) { $0.count = 3 }
        store.finish()
    }
}

import Foundation
import ReduxSwift
import Testing

@testable import ReduxSwiftTesting

/// Every way a test store's state can change or an action can fail is seen: what the middleware
/// chain does, transactions, action log replays, history moves, async work and batches. A change
/// or failure the test does not assert fails it. Off the pool: a transaction's `commit()` blocks
/// its thread until the store decides.
@Suite(.offThePool) struct TestStorePathTests {
    /// Passes every action on, then throws on an `add` of more than 10.
    static let throwsAfterPassingOn = Middleware<CounterState>("throws after next") { action, context in
        context.next(action)
        if case .add(let amount)? = action as? CounterAction, amount > 10 { throw Rejected() }
    }

    func makeStore(middleware: [Middleware<CounterState>] = []) -> TestStore<CounterState> {
        TestStore(
            reducers: counterReducers, state: CounterState(),
            middleware: middleware + [echoMiddleware, .asyncActions()])
    }

    @Test func aMiddlewareThatThrowsAfterPassingASentActionOnFailsTheSend() {
        let store = makeStore(middleware: [Self.throwsAfterPassingOn])
        let failures = store.recordingFailures()
        let line: UInt = #line + 1
        store.send(CounterAction.add(11)) { $0.count = 11 }
        #expect(failures.take() == [ReportedFailure("add(11) failed: Rejected()", line: line)])
        // The action committed before the middleware threw: its change stands, and is asserted.
        #expect(store.state.count == 11)
        store.finish()
        #expect(failures.take() == [])
    }

    @Test func aMiddlewareThatThrowsAfterPassingAReceivedActionOnIsNotLost() async {
        let store = makeStore(middleware: [Self.throwsAfterPassingOn])
        let failures = store.recordingFailures()
        store.send(AsyncAction<CounterState, Void> { context in context.dispatch(CounterAction.add(12)) })
        await store.receive(CounterAction.add(12)) { $0.count = 12 }
        let line: UInt = #line + 1
        store.finish()
        #expect(
            failures.take() == [
                ReportedFailure(
                    "1 received action(s) were not asserted: add(12) (failed: Rejected())", line: line)
            ])
    }

    @Test func aReceivedFailureCanBeExpected() async {
        let store = makeStore(middleware: [Self.throwsAfterPassingOn])
        store.send(AsyncAction<CounterState, Void> { context in context.dispatch(CounterAction.add(12)) })
        await store.receive(CounterAction.add(12)) { $0.count = 12 }
        let error = await store.receiveFailure("add(12)", where: { $0 as? CounterAction == .add(12) })
        #expect(error as? Rejected == Rejected())
        store.finish()
    }

    @Test func expectingAFailureThatIsNotOneFails() async {
        let store = makeStore()
        let failures = store.recordingFailures()
        store.send(AsyncAction<CounterState, Void> { context in context.dispatch(CounterAction.add(1)) })
        let line: UInt = #line + 1
        let error = await store.receiveFailure("add(1)", where: { $0 as? CounterAction == .add(1) })
        #expect(error == nil)
        #expect(
            failures.take() == [
                ReportedFailure("add(1) was expected to fail, but it did not", line: line),
                ReportedFailure(
                    "state after add(1) differs from the expected state:\n    count: expected 0, actual 1",
                    line: line),
            ])
    }

    @Test func aTransactionLeftUnassertedFails() throws {
        let store = makeStore()
        let failures = store.recordingFailures()
        var transaction = StoreTransaction()
        transaction.add(CounterAction.add(3), to: store.store)
        transaction.add(CounterAction.note("paid"), to: store.store)
        try transaction.commit()
        let line: UInt = #line + 1
        store.finish()
        let reported = failures.take()
        #expect(reported.count == 1)
        #expect(reported.first?.line == line)
        #expect(reported.first?.message.hasPrefix("1 received action(s) were not asserted: ") == true)
        #expect(store.state == CounterState(count: 3, log: ["paid"]))
    }

    @Test func aTransactionIsReceivedAsOneBatch() async throws {
        let store = makeStore()
        var transaction = StoreTransaction()
        transaction.add(CounterAction.add(3), to: store.store)
        transaction.add(CounterAction.note("paid"), to: store.store)
        try transaction.commit()
        await store.receive(
            "the transaction", where: { ($0 as? ActionBatch)?.actions.count == 2 },
            assert: {
                $0.count = 3
                $0.log = ["paid"]
            })
        store.finish()
    }

    @Test func aTransactionThisStoreRejectsIsAFailureToExpect() async {
        let store = makeStore()
        let failures = store.recordingFailures()
        var transaction = StoreTransaction()
        transaction.add(CounterAction.add(3), to: store.store)
        transaction.add(CounterAction.reject, to: store.store)
        #expect(throws: TransactionError.self) { try transaction.commit() }
        let line: UInt = #line + 1
        store.finish()
        #expect(failures.take().map(\.line) == [line])
        store.send(CounterAction.increment) { $0.count = 1 }
        var second = StoreTransaction()
        second.add(CounterAction.reject, to: store.store)
        #expect(throws: TransactionError.self) { try second.commit() }
        let error = await store.receiveFailure("the transaction", where: { $0 is ActionBatch })
        #expect(error as? Rejected == Rejected())
        store.finish()
        #expect(failures.take() == [])
    }

    /// A recording of `actions` dispatched to a plain store with the counter's reducers.
    func recording(of actions: [CounterAction], log: ActionLog) async throws -> Data {
        let source = Store(
            reducers: counterReducers, state: CounterState(), notificationCenter: StoreNotificationCenter())
        let recording = log.record(source)
        for action in actions { source.dispatch(action) }
        try await source.waitUntilIdle(timeout: 30)
        return recording.stop()
    }

    @Test func aReplayLeftUnassertedFails() async throws {
        let log = ActionLog()
        log.register(CounterAction.self)
        let data = try await recording(of: [.add(2), .note("replayed")], log: log)
        let store = makeStore()
        let failures = store.recordingFailures()
        #expect(try log.replay(data, into: store.store) == 2)
        let line: UInt = #line + 1
        store.finish()
        #expect(
            failures.take() == [
                ReportedFailure(
                    "2 received action(s) were not asserted: add(2), note(\"replayed\")", line: line)
            ])
        #expect(store.state == CounterState(count: 2, log: ["replayed"]))
    }

    @Test func eachReplayedActionIsReceivedWithTheStateItLeft() async throws {
        let log = ActionLog()
        log.register(CounterAction.self)
        let data = try await recording(of: [.add(2), .increment, .note("replayed")], log: log)
        let store = makeStore()
        #expect(try log.replay(data, into: store.store) == 3)
        await store.receive(CounterAction.add(2)) { $0.count = 2 }
        await store.receive(CounterAction.increment) { $0.count = 3 }
        await store.receive(CounterAction.note("replayed")) { $0.log = ["replayed"] }
        store.finish()
    }

    @Test func aReplayedHistoryMoveLeftUnassertedFails() async throws {
        let log = ActionLog()
        log.register(CounterAction.self)
        let source = Store(
            reducers: counterReducers, state: CounterState(), notificationCenter: StoreNotificationCenter())
        let history = source.recordHistory()
        let recording = log.record(source)
        source.dispatch(CounterAction.add(4))
        history.undo()
        try await source.waitUntilIdle(timeout: 30)
        let data = recording.stop()
        let store = makeStore()
        #expect(try log.replay(data, into: store.store) == 2)
        await store.receive(CounterAction.add(4)) { $0.count = 4 }
        let failures = store.recordingFailures()
        let line: UInt = #line + 1
        store.finish()
        #expect(
            failures.take() == [ReportedFailure("1 received action(s) were not asserted: undo", line: line)])
        #expect(store.state.count == 0)
    }

    @Test func historyMovesAreReceivedAndUnassertedOnesFail() async {
        let store = makeStore()
        let history = store.store.recordHistory()
        store.send(CounterAction.add(5)) { $0.count = 5 }
        store.send(CounterAction.increment) { $0.count = 6 }
        history.undo()
        await store.receive(HistoryAction.undo) { $0.count = 5 }
        history.redo()
        await store.receive(HistoryAction.redo) { $0.count = 6 }
        history.jump(to: 0)
        let failures = store.recordingFailures()
        let line: UInt = #line + 1
        store.finish()
        #expect(
            failures.take() == [
                ReportedFailure("1 received action(s) were not asserted: jump(to: 0)", line: line)
            ])
        #expect(store.state.count == 0)
    }

    @Test func asyncWorkThatThrowsFailsUnlessExpected() async {
        let store = makeStore()
        let failures = store.recordingFailures()
        let load = AsyncAction<CounterState, Void>("counter.load") { _ in throw Rejected() }
        store.send(load)
        await load.finished()
        let line: UInt = #line + 1
        store.finish()
        #expect(
            failures.take() == [
                ReportedFailure(
                    "1 received action(s) were not asserted: AsyncAction(counter.load) (failed: Rejected())",
                    line: line)
            ])
        let again = AsyncAction<CounterState, Void>("counter.load") { _ in throw Rejected() }
        store.send(again)
        let error = await store.receiveFailure("the load", where: { $0 is AsyncAction<CounterState, Void> })
        #expect(error as? Rejected == Rejected())
        store.finish()
        #expect(failures.take() == [])
    }

    @Test func aBatchDispatchedToTheStoreIsReceivedAsOneAction() async {
        let store = makeStore()
        let failures = store.recordingFailures()
        store.store.dispatch(batch: [CounterAction.add(1), CounterAction.note("b")])
        let line: UInt = #line + 1
        store.finish()
        #expect(failures.take().map(\.line) == [line])
        store.store.dispatch(batch: [CounterAction.add(1), CounterAction.note("c")])
        await store.receive(
            "the batch", where: { $0 is ActionBatch },
            assert: {
                $0.count = 2
                $0.log = ["b", "c"]
            })
        store.finish()
        #expect(failures.take() == [])
    }
}

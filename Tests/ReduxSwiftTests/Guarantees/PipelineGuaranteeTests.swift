import Foundation
import Testing

@testable import ReduxSwift

/// A state type no test store has, for async actions declared for the wrong store.
struct ForeignState: StateProtocol {}

/// A state whose `encode(to:)` tries to commit a transaction to another store.
struct CommittingState: StateProtocol {
    /// `@unchecked Sendable`: `other` is set once, before the dispatch whose encoding reads it.
    final class Probe: @unchecked Sendable {
        var other: Store<TestState>?
        let outcomes = Recorder<String>()
    }

    var value = 0
    var probe: Probe?

    enum CodingKeys: String, CodingKey { case value }

    init(probe: Probe) { self.probe = probe }

    init(from decoder: any Decoder) throws {
        value = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .value)
    }

    func encode(to encoder: any Encoder) throws {
        if let probe, let other = probe.other {
            var transaction = StoreTransaction()
            transaction.add(TestAction.increment, to: other)
            probe.outcomes.append(Self.outcome(of: transaction))
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
    }

    /// Commits `transaction`: "committed", "calledFromStoreCode" or the error's description.
    static func outcome(of transaction: StoreTransaction) -> String {
        do {
            try transaction.commit()
            return "committed"
        } catch {
            if case .calledFromStoreCode = error.kind { return "calledFromStoreCode" }
            return "\(error)"
        }
    }
}

/// Promises of the dispatch pipeline that no other suite checks.
@Suite(.offThePool) struct PipelineGuaranteeTests {
    @Test func middlewareRunOnTheReducersThreadNotTheDispatchingOne() {
        let threads = Recorder<(String, ObjectIdentifier)>()
        let store = Store(
            reducers: [{ _, _ in threads.append(("reducer", currentThreadID())) }], state: TestState(),
            middleware: [
                Middleware("where") { action, context in
                    threads.append(("middleware", currentThreadID()))
                    context.next(action)
                }
            ], notificationCenter: StoreNotificationCenter())
        store.dispatch(TestAction.increment)
        _ = store.currentState()
        let seen = threads.values
        #expect(seen.map(\.0) == ["middleware", "reducer"])
        #expect(seen.count == 2 && seen[0].1 == seen[1].1)
        #expect(!seen.contains { $0.1 == currentThreadID() })
    }

    @Test func anAsyncActionForAnotherStateTypeIsReportedNotRun() async {
        let store = makeAsyncStore(service: FakeService(answer: 0))
        let failures = Recorder<StoreNotification>()
        let token = store.observeFailures { failures.append($0) }
        let ran = Recorder<Int>()
        let foreign = AsyncAction<ForeignState, FakeService>("elsewhere") { _ in ran.append(1) }
        store.dispatch(foreign)
        #expect(failures.wait(forCount: 1))
        let error = failures.values[0].error as? AsyncActionError
        guard case .stateMismatch(let expected, _)? = error?.kind else {
            Issue.record("expected stateMismatch, got \(String(describing: failures.values[0].error))")
            return
        }
        #expect(error?.identifier == "elsewhere")
        #expect(expected == "ForeignState")
        #expect(ran.count == 0)
        withExtendedLifetime(token) {}
    }

    @Test func reducersRegisteredWhilePausedWaitWithTheHeldActions() throws {
        let store = makeStore()
        let lock = store.lock("paused")
        store.register([{ state, action in state.log.append("late:\(action.identifier)") }])
        lock.dispatch(TestAction.increment)
        #expect(store.currentState() == TestState(counter: 1), "the action through the lock did not see them")
        try lock.release()
        store.dispatch(TestAction.add(2))
        #expect(store.currentState() == TestState(counter: 3, log: ["late:TestAction.add"]))
    }

    @Test func aTransactionIsNotAHistoryStepOfItsOwn() throws {
        let store = makeStore()
        let history = store.recordHistory()
        store.dispatch(TestAction.add(1))
        var transaction = StoreTransaction()
        transaction.add(TestAction.add(10), to: store)
        try transaction.commit()
        #expect(history.status.steps == 2, "the initial state and add(1)")
        store.dispatch(TestAction.add(100))
        #expect(history.status.steps == 3, "add(100) is a step, the transaction none")
        history.undo()
        #expect(store.currentState().counter == 11, "undo takes back add(100) and keeps the transaction")
        history.undo()
        #expect(store.currentState().counter == 10, "and add(1)")
        history.redo()
        history.redo()
        #expect(store.currentState().counter == 111)
    }

    @Test func committingFromAMiddlewareThrowsInsteadOfWaiting() {
        let other = makeStore()
        let outcomes = Recorder<String>()
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [
                Middleware("transfer") { action, context in
                    if case .append("transfer")? = action as? TestAction {
                        var transaction = StoreTransaction()
                        transaction.add(TestAction.increment, to: other)
                        outcomes.append(CommittingState.outcome(of: transaction))
                    }
                    context.next(action)
                }
            ], notificationCenter: StoreNotificationCenter())
        store.dispatch(TestAction.append("transfer"))
        _ = store.currentState()
        #expect(outcomes.values == ["calledFromStoreCode"])
        #expect(other.currentState().counter == 0)
    }

    @Test func committingFromAnEncodeThrowsInsteadOfWaiting() {
        let probe = CommittingState.Probe()
        let store = Store<CommittingState>(
            reducers: [{ state, _ in state.value += 1 }], state: CommittingState(probe: probe),
            notificationCenter: StoreNotificationCenter())
        let other = makeStore()
        probe.other = other
        store.dispatch(Action("bump"))
        #expect(store.currentState().value == 1)
        #expect(probe.outcomes.values == ["calledFromStoreCode"])
        #expect(other.currentState().counter == 0)
    }
}

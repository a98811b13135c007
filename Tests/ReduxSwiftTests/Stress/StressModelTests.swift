import Foundation
import ReduxSwift
import Testing

/// The stress test's model against a real store, on sequences a run reaches only by chance.
@Suite(.offThePool) struct StressModelTests {
    /// Store 0 of a run with history: its first action fails, a transaction commits, then the
    /// history goes back to step 0 (the initial state) and records from there. A run reached this
    /// about once in 300; the model then took the history to be empty ("announced jump(to: 0),
    /// which has no step to go to"). The transaction makes no step, and the jump keeps it.
    @Test(arguments: [false, true])
    func theModelFollowsAHistoryWhoseFirstActionFails(withTransaction: Bool) throws {
        let (store, history, log, violations) = Self.storeZeroWithHistory()
        store.dispatch(Bump(origin: 0, seq: 1, kind: .fail, channel: .ordered))
        if withTransaction {
            var transaction = StoreTransaction()
            transaction.add(Bump(origin: 0, seq: 2, kind: .plain, channel: .transaction), to: store)
            try transaction.commit()
        }
        history.jump(to: 0)
        let last = Bump(origin: 0, seq: 3, kind: .plain, channel: .ordered)
        store.dispatch(last)
        let state = store.currentState()
        #expect(state.total == (withTransaction ? 2 : 1))
        #expect(log.wait(forAll: [last.id], timeout: 10))
        Self.expectTheModelFollows(log, to: state, violations)
    }

    /// Store 0 of a run with history: steps around a transaction, then undo, redo and jumps, which
    /// keep the transaction wherever they go.
    @Test func theModelKeepsATransactionThroughEveryMove() throws {
        let (store, history, log, violations) = Self.storeZeroWithHistory()
        store.dispatch(Bump(origin: 0, seq: 1, kind: .plain, channel: .ordered))
        var transaction = StoreTransaction()
        transaction.add(Bump(origin: 0, seq: 2, kind: .plain, channel: .transaction), to: store)
        try transaction.commit()
        store.dispatch(Bump(origin: 0, seq: 3, kind: .plain, channel: .ordered))
        history.undo()
        history.undo()
        #expect(store.currentState().total == 1, "only the transaction is left")
        history.redo()
        history.jump(to: 2)
        let last = Bump(origin: 0, seq: 4, kind: .plain, channel: .ordered)
        store.dispatch(last)
        let state = store.currentState()
        #expect(state.total == 4)
        #expect(log.wait(forAll: [last.id], timeout: 10))
        Self.expectTheModelFollows(log, to: state, violations)
    }

    /// Store 0 of a run, recording history without limits, with the log of what it announces.
    private static func storeZeroWithHistory() -> (
        Store<StressState>, StoreHistory<StressState>, AnnouncementLog, StressViolations
    ) {
        let violations = StressViolations()
        let handle = StressStoreHandle()
        let store = Store(
            reducers: [stressReducer(storeIndex: 0, handle: handle, violations: violations)],
            state: StressState())
        handle.store = store
        let log = AnnouncementLog(store: store)
        let history = store.recordHistory(limit: HistoryLimit(steps: 1 << 20, actions: 1 << 30))
        return (store, history, log, violations)
    }

    /// Replays what the store announced through the model, which must accept every announcement
    /// and end where the store did.
    private static func expectTheModelFollows(
        _ log: AnnouncementLog, to state: StressState, _ violations: StressViolations
    ) {
        var model = ModelStore(recordsHistory: true)
        for item in log.values {
            let problem = model.apply(item)
            #expect(problem == nil)
        }
        #expect(model.state == state)
        #expect(violations.isEmpty, "\(violations.report)")
        withExtendedLifetime(log.token) {}
    }
}

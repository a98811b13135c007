import Foundation
import Testing

@testable import ReduxSwift

@Suite(.offThePool) struct StoreTransactionTests {
    @Test func aCommittedTransactionChangesEveryStoreAndEachAnnouncesItOnce() throws {
        let center = StoreNotificationCenter()
        let first = makeStore(center: center)
        let second = makeStore(center: center)
        let heard = Recorder<String>()
        let tokens = [first, second].enumerated().map { index, store in
            store.observeChanges { note in
                for case let batch as ActionBatch in note.actions {
                    heard.append("\(index): " + batch.actions.map { "\($0)" }.joined(separator: ","))
                }
            }
        }
        var transaction = StoreTransaction()
        transaction.add(TestAction.add(2), to: first)
        transaction.add(TestAction.append("paid"), to: second)
        transaction.add(TestAction.increment, to: first)
        try transaction.commit()
        #expect(first.currentState().counter == 3)
        #expect(second.currentState().log == ["paid"])
        #expect(heard.wait(forCount: 2))
        #expect(Set(heard.values) == ["0: add(2),increment", "1: append(\"paid\")"])
        withExtendedLifetime(tokens) {}
    }

    @Test func aReducerThatThrowsInOneStoreLeavesEveryStoreUnchanged() {
        let center = StoreNotificationCenter()
        let first = makeStore(center: center)
        let second = makeStore(center: center)
        first.dispatch(TestAction.append("before"))
        let failures = Recorder<StoreNotification>()
        let tokens = [first, second].map { store in store.observeFailures { failures.append($0) } }
        var transaction = StoreTransaction()
        transaction.add(TestAction.add(5), to: first)
        transaction.add(TestAction.increment, to: second)
        transaction.add(TestAction.fail, to: second)
        #expect {
            try transaction.commit()
        } throws: { error in
            guard case .rejected(let index, let actions, let failure)? = (error as? TransactionError)?.kind
            else {
                return false
            }
            return index == 1 && actions.actions.count == 2 && failure as? TestFailure == TestFailure()
        }
        #expect(first.currentState() == TestState(log: ["before"]))
        #expect(second.currentState() == TestState())
        #expect(failures.wait(forCount: 1))
        #expect(failures.values.map { $0.object === second } == [true])
        // The stores go on as before.
        first.dispatch(TestAction.increment)
        #expect(first.currentState().counter == 1)
        withExtendedLifetime(tokens) {}
    }

    @Test func transactionsTakingTheSameStoresInOppositeOrdersNeverDeadlock() throws {
        let first = makeStore()
        let second = makeStore()
        let rounds = 200
        concurrently(4) { thread in
            for _ in 0..<rounds {
                var transaction = StoreTransaction()
                if thread.isMultiple(of: 2) {
                    transaction.add(TestAction.increment, to: first)
                    transaction.add(TestAction.increment, to: second)
                } else {
                    transaction.add(TestAction.increment, to: second)
                    transaction.add(TestAction.increment, to: first)
                }
                try? transaction.commit()
                first.dispatch(TestAction.add(10))
            }
        }
        #expect(first.currentState().counter == 4 * rounds * 11)
        #expect(second.currentState().counter == 4 * rounds)
    }

    @Test func manyTransfersBetweenTwoStoresKeepTheirTotal() throws {
        // Each transfer takes from one store and adds to the other, or does neither.
        let from = makeStore(state: TestState(counter: 1_000))
        let to = makeStore()
        let done = Gate()
        let mover = Thread {
            for _ in 0..<300 {
                var transaction = StoreTransaction()
                transaction.add(TestAction.add(-1), to: from)
                transaction.add(TestAction.add(1), to: to)
                try? transaction.commit()
            }
            done.open()
        }
        mover.start()
        #expect(done.wait())
        #expect(from.currentState().counter + to.currentState().counter == 1_000)
        #expect(to.currentState().counter == 300)
    }

    @Test func committingFromInsideAReducerThrowsInsteadOfDeadlocking() {
        let other = makeStore()
        let outcomes = Recorder<String>()
        let store = makeStore([
            testReducer,
            { _, action in
                guard case .append("transfer")? = action as? TestAction else { return }
                var transaction = StoreTransaction()
                transaction.add(TestAction.increment, to: other)
                do {
                    try transaction.commit()
                    outcomes.append("committed")
                } catch {
                    outcomes.append("\(error)")
                }
            },
        ])
        store.dispatch(TestAction.append("transfer"))
        _ = store.currentState()
        #expect(
            outcomes.values == [
                "a transaction cannot be committed from a reducer, a middleware or an encode(to:)"
            ])
        #expect(other.currentState().counter == 0)
    }

    @Test func aDispatchLockHeldByTheCommittingThreadDoesNotHoldTheTransaction() throws {
        let store = makeStore()
        let lock = store.lock("held while committing")
        store.dispatch(TestAction.append("held"))
        var transaction = StoreTransaction()
        transaction.add(TestAction.append("transaction"), to: store)
        try transaction.commit()
        #expect(store.currentState().log == ["transaction"])
        try lock.release()
        #expect(store.currentState().log == ["transaction", "held"])
    }

    @Test func actionsDispatchedBeforeTheCommitAreReducedBeforeIt() throws {
        let store = makeStore()
        for index in 0..<100 { store.dispatch(TestAction.append("\(index)")) }
        var transaction = StoreTransaction()
        transaction.add(TestAction.append("last"), to: store)
        try transaction.commit()
        #expect(store.currentState().log == (0..<100).map { "\($0)" } + ["last"])
    }

    @Test func aLaterRollbackKeepsACommittedTransaction() throws {
        let store = makeStore()
        store.dispatch(TestAction.increment)
        var transaction = StoreTransaction()
        transaction.add(TestAction.append("committed"), to: store)
        try transaction.commit()
        store.dispatch(TestAction.add(2))
        store.dispatch(TestAction.fail)
        #expect(store.currentState() == TestState(counter: 3, log: ["committed"]))
    }

    @Test func transactionsAndPlainDispatchesFromManyThreadsStayConsistent() {
        let stores = (0..<3).map { _ in makeStore() }
        concurrently(6) { thread in
            for step in 0..<100 {
                if step.isMultiple(of: 3) {
                    var transaction = StoreTransaction()
                    for offset in 0..<3 {
                        transaction.add(TestAction.increment, to: stores[(thread + offset) % 3])
                    }
                    if step.isMultiple(of: 9) {
                        transaction.add(TestAction.fail, to: stores[thread % 3])
                    }
                    try? transaction.commit()
                } else {
                    stores[thread % 3].dispatch(TestAction.increment)
                }
            }
        }
        // 34 transactions per thread, 12 of them rejected; 66 plain increments per thread.
        let total = stores.map { $0.currentState().counter }.reduce(0, +)
        #expect(total == 6 * (22 * 3 + 66))
    }

    @Test func aTransactionRefusesAnAsyncActionNamingItAndChangesNothing() async {
        let first = makeStore()
        let second = makeAsyncStore(service: FakeService(answer: 0))
        let ran = Recorder<Bool>()
        let work = AsyncAction<TestState, FakeService>("load") { context in
            ran.append(true)
            context.dispatch(TestAction.append("loaded"))
        }
        var transaction = StoreTransaction()
        transaction.add(TestAction.increment, to: first)
        transaction.add(ActionBatch([TestAction.increment, ActionBatch([work])]), to: second)
        let error = #expect(throws: TransactionError.self) { try transaction.commit() }
        guard case .asyncAction(let index, let identifier)? = error?.kind else {
            Issue.record("expected the async action to be refused, got \(String(describing: error))")
            return
        }
        #expect(index == 1)
        #expect(identifier == "load")
        #expect(error?.description.contains("async action \"load\"") == true)
        #expect(first.currentState() == TestState())
        #expect(second.currentState() == TestState())
        #expect(ran.count == 0)
        // Refused, not consumed: dispatched to the store on its own, it runs.
        second.dispatch(work)
        #expect(await finishes(work))
        #expect(second.currentState().log == ["loaded"])
    }
}

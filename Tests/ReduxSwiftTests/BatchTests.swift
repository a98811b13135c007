import Foundation
import Testing

@testable import ReduxSwift

@Suite(.offThePool) struct BatchTests {
    @Test func aBatchIsReducedInOrderAndAnnouncedOnce() {
        let store = makeStore()
        let notes = Recorder<[String]>()
        let token = store.observeChanges { note in notes.append(note.actions.map(\.identifier)) }
        store.dispatch(batch: [TestAction.append("a"), TestAction.increment, TestAction.append("b")])
        #expect(store.currentState() == TestState(counter: 1, log: ["a", "b"]))
        #expect(notes.wait(forCount: 1))
        #expect(notes.values == [["ActionBatch"]])
        withExtendedLifetime(token) {}
    }

    @Test func theNotificationCarriesTheBatchWithItsActions() {
        let store = makeStore()
        let batches = Recorder<[TestAction]>()
        let token = store.observeChanges { note in
            for case let batch as ActionBatch in note.actions {
                batches.append(batch.actions.compactMap { $0 as? TestAction })
            }
        }
        store.dispatch(batch: [TestAction.add(2), TestAction.append("x")])
        #expect(batches.wait(forCount: 1))
        #expect(batches.values == [[.add(2), .append("x")]])
        withExtendedLifetime(token) {}
    }

    @Test func aFailureAnywhereRollsBackTheWholeBatch() {
        let store = makeStore(state: TestState(counter: 5))
        let failures = Recorder<String>()
        let token = store.observeFailures { note in failures.append(note.failedAction?.identifier ?? "?") }
        store.dispatch(TestAction.append("before"))
        store.dispatch(batch: [
            TestAction.increment, TestAction.append("lost"), TestAction.fail, TestAction.increment,
        ])
        store.dispatch(TestAction.append("after"))
        #expect(store.currentState() == TestState(counter: 5, log: ["before", "after"]))
        #expect(failures.wait(forCount: 1))
        #expect(failures.values == ["ActionBatch"])
        withExtendedLifetime(token) {}
    }

    @Test func aLaterFailureRollsBackToTheStateAfterACommittedBatch() {
        let store = makeStore()
        store.dispatch(batch: [TestAction.add(10), TestAction.append("kept")])
        store.dispatch(TestAction.fail)
        store.dispatch(TestAction.increment)
        #expect(store.currentState() == TestState(counter: 11, log: ["kept"]))
    }

    @Test func actionsDispatchedByReducersDuringABatchWaitForItToCommit() {
        let handle = StoreHandle()
        let store = makeStore([
            testReducer,
            { state, action in
                if case .append("echo")? = action as? TestAction {
                    handle.store.dispatch(TestAction.append("echoed"))
                }
            },
        ])
        handle.store = store
        store.dispatch(batch: [TestAction.append("echo"), TestAction.append("next in batch")])
        store.dispatch(batch: [TestAction.append("echo"), TestAction.fail])
        // The first read covers both batches; "echoed" was queued when the first committed, so
        // the second read covers it too. The failed batch's echo was discarded.
        _ = store.currentState()
        #expect(store.currentState().log == ["echo", "next in batch", "echoed"])
    }

    @Test func anEmptyBatchCommitsNothingButIsAnnounced() {
        let store = makeStore(state: TestState(counter: 3))
        store.dispatch(batch: [])
        #expect(store.currentState() == TestState(counter: 3))
    }

    @Test func aBatchBuiltByHandIsStillOneUnit() {
        let store = makeStore()
        let batch: any ActionProtocol = ActionBatch([TestAction.increment, TestAction.fail])
        store.dispatch(batch)
        #expect(store.currentState() == TestState())
    }

    @Test func nestedBatchesAreExpandedAtEveryDepth() {
        let store = makeStore()
        let seen = Recorder<String>()
        store.register([{ _, action in seen.append("\(action)") }])
        store.dispatch(batch: [
            TestAction.increment,
            ActionBatch([TestAction.increment, ActionBatch([ActionBatch([TestAction.append("deep")])])]),
            TestAction.increment,
        ])
        #expect(store.currentState() == TestState(counter: 3, log: ["deep"]))
        #expect(seen.values == ["increment", "increment", "append(\"deep\")", "increment"])
    }

    @Test func aNestedBatchDispatchedOnItsOwnIsExpanded() {
        let store = makeStore()
        let batch: any ActionProtocol = ActionBatch([
            ActionBatch([TestAction.increment, TestAction.increment])
        ])
        store.dispatch(batch)
        #expect(store.currentState().counter == 2)
    }

    @Test func aFailureInsideANestedBatchRollsBackTheOutermostBatch() {
        let store = makeStore(state: TestState(counter: 5))
        store.dispatch(batch: [
            TestAction.increment, ActionBatch([TestAction.append("lost"), TestAction.fail]),
        ])
        store.dispatch(TestAction.append("after"))
        #expect(store.currentState() == TestState(counter: 5, log: ["after"]))
    }

    @Test func aRollbackReappliesACommittedNestedBatch() {
        let store = makeStore()
        store.dispatch(batch: [
            TestAction.add(10), ActionBatch([TestAction.append("kept"), TestAction.increment]),
        ])
        store.dispatch(TestAction.fail)
        store.dispatch(TestAction.increment)
        #expect(store.currentState() == TestState(counter: 12, log: ["kept"]))
    }

    @Test func aNestedBatchPassedOnByMiddlewareIsExpanded() {
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [Middleware<TestState>("pass") { action, context in context.next(action) }],
            notificationCenter: StoreNotificationCenter())
        store.dispatch(batch: [
            TestAction.increment, ActionBatch([TestAction.increment, TestAction.increment]),
        ])
        #expect(store.currentState().counter == 3)
    }

    @Test func aNestedBatchInATransactionIsExpanded() throws {
        let store = makeStore()
        var transaction = StoreTransaction()
        transaction.add(
            ActionBatch([TestAction.increment, ActionBatch([TestAction.increment])]), to: store)
        transaction.add(TestAction.increment, to: store)
        try transaction.commit()
        #expect(store.currentState().counter == 3)
    }
}

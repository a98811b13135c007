import Foundation
import ReduxSwift
import Testing

/// Rule 4: an action whose reducer throws leaves the state exactly as it was.
@Suite(.offThePool) struct RollbackTests {
    @Test func aThrowingReducerLeavesTheStateAsItWasAndReportsTheFailure() {
        let center = StoreNotificationCenter()
        let failures = Recorder<StoreNotification>()
        let store = makeStore(center: center)
        let token = store.observeFailures { failures.append($0) }
        store.dispatch(TestAction.add(5))
        store.dispatch(TestAction.append("kept"))
        let before = store.currentState()
        store.dispatch(TestAction.fail)
        #expect(store.currentState() == before)
        #expect(failures.wait(forCount: 1))
        let failure = failures.values[0]
        #expect(failure.name == .dispatchDidFail)
        #expect(failure.object === store)
        #expect(failure.failedAction as? TestAction == .fail)
        #expect(failure.error as? TestFailure == TestFailure())
        #expect(failure.actions.map { $0 as? TestAction } == [.fail])
        token.cancel()
    }

    @Test func actionsAfterAFailureProceed() {
        let store = makeStore()
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.fail)
        store.dispatch(TestAction.increment)
        #expect(store.currentState().counter == 2)
    }

    @Test func rollbackIsExactAfterThousandsOfActionsAndAfterReads() {
        let store = makeStore()
        var expected = TestState()
        for step in 0..<10_000 {
            if step % 997 == 0 {
                store.dispatch(TestAction.fail)
            } else {
                store.dispatch(TestAction.append("\(step)"))
                expected.log.append("\(step)")
            }
            if step % 3_001 == 0 { #expect(store.currentState() == expected) }
        }
        #expect(store.currentState() == expected)
    }

    @Test func aFailedActionIsNotAnnouncedAsAChange() {
        let changes = Recorder<TestAction>()
        let store = makeStore()
        let token = store.observeChanges { note in
            for action in note.actions { changes.append(action as! TestAction) }
        }
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.fail)
        store.dispatch(TestAction.add(2))
        #expect(changes.wait(forCount: 2))
        #expect(store.currentState().counter == 3)
        #expect(changes.values == [.increment, .add(2)])
        token.cancel()
    }

    @Test func actionsDispatchedByAFailedActionAreDiscardedWithIt() {
        let handle = StoreHandle()
        let store = makeStore([
            { state, action in
                guard let action = action as? TestAction else { return }
                if case .append(let entry) = action {
                    state.log.append(entry)
                    if entry == "commit" { handle.store.dispatch(TestAction.append("follow-up of commit")) }
                    if entry == "abort" {
                        handle.store.dispatch(TestAction.append("follow-up of abort"))
                        throw TestFailure()
                    }
                }
            }
        ])
        handle.store = store
        let (announced, token) = recordAppends(announcedBy: store)
        store.dispatch(TestAction.append("abort"))
        store.dispatch(TestAction.append("commit"))
        store.dispatch(TestAction.append("after"))
        #expect(announced.wait { $0.contains("follow-up of commit") })
        token.cancel()
        let log = store.currentState().log
        #expect(log.first == "commit")
        #expect(Set(log) == ["commit", "after", "follow-up of commit"])
    }
}

import Foundation
import Testing

@testable import ReduxSwift

/// Promises of the threading model about reducing that no other suite checks on a whole store.
@Suite(.offThePool) struct DispatchGuaranteeTests {
    @Test func aReducersDispatchIsHandledRightAfterItsActionAheadOfWhatWasQueuedBefore() throws {
        let handle = StoreHandle()
        let store = makeStore([
            { state, action in
                guard case .append(let entry)? = action as? TestAction else { return }
                state.log.append(entry)
                if entry == "a" { handle.store.dispatch(TestAction.append("from a")) }
            }
        ])
        handle.store = store
        let (announced, token) = recordAppends(announcedBy: store)
        // Both queued before either is reduced: "b" is already waiting when "a" commits, and the
        // follow-up of "a" still goes first.
        let lock = store.lock("queue both first")
        store.dispatch(TestAction.append("a"))
        store.dispatch(TestAction.append("b"))
        try lock.release()
        #expect(announced.wait { $0.contains("b") })
        #expect(store.currentState().log == ["a", "from a", "b"])
        withExtendedLifetime(token) {}
    }

    @Test func reducersRegisteredByAFailedActionStayRegistered() {
        let handle = StoreHandle()
        let store = makeStore([
            testReducer,
            { _, action in
                guard action.identifier == "install, then fail" else { return }
                handle.store.register([{ state, action in state.log.append("new:\(action.identifier)") }])
                throw TestFailure()
            },
        ])
        handle.store = store
        store.dispatch(Action("install, then fail"))
        store.dispatch(Action("next"))
        #expect(store.currentState().log == ["new:next"])
    }

    @Test func middlewareRegisteredByAReducerArriveOnlyIfItsActionCommits() {
        let handle = StoreHandle()
        let seen = Recorder<String>()
        let store = makeStore([
            testReducer,
            { _, action in
                switch action.identifier {
                case "install":
                    handle.store.register(middleware: [recordingMiddleware("kept", into: seen)])
                case "install, then fail":
                    handle.store.register(middleware: [recordingMiddleware("lost", into: seen)])
                    throw TestFailure()
                default:
                    break
                }
            },
        ])
        handle.store = store
        store.dispatch(Action("install, then fail"))
        store.dispatch(Action("install"))
        // The first read covers "install"; the registration it queued on commit is covered by the second.
        _ = store.currentState()
        _ = store.currentState()
        store.dispatch(Action("after"))
        _ = store.currentState()
        #expect(seen.values == ["kept:after"])
    }

    @Test func aRolledBackActionsDispatchesAreNotRepeated() {
        let handle = StoreHandle()
        let echoes = Recorder<Int>()
        let store = makeStore([
            testReducer,
            { _, action in
                guard case .append("echo")? = action as? TestAction else { return }
                echoes.append(1)
                handle.store.dispatch(TestAction.append("echoed"))
            },
        ])
        handle.store = store
        let (announced, token) = recordAppends(announcedBy: store)
        store.dispatch(TestAction.append("echo"))
        store.dispatch(TestAction.fail)  // restores the checkpoint and re-applies "echo"
        _ = store.currentState()
        store.dispatch(TestAction.append("end"))
        #expect(announced.wait { $0.contains("end") })
        #expect(echoes.count == 2, "the rollback re-applied the reducer")
        #expect(announced.values.filter { $0 == "echoed" }.count == 1)
        #expect(store.currentState().log.filter { $0 == "echoed" }.count == 1)
        withExtendedLifetime(token) {}
    }

    @Test func anActionThatFailsOnlyWhenReappliedIsDroppedAndReported() {
        let calls = Recorder<Int>()
        // Succeeds the first time it sees "flaky" and throws every later time: not deterministic.
        let flaky: Reducer<TestState> = { state, action in
            guard action.identifier == "flaky" else { return }
            calls.append(1)
            if calls.count > 1 { throw TestFailure(reason: "flaky") }
            state.log.append("flaky")
        }
        let store = makeStore([testReducer, flaky])
        let failures = Recorder<String>()
        let token = store.observeFailures { note in failures.append(note.failedAction?.identifier ?? "?") }
        store.dispatch(TestAction.append("a"))
        store.dispatch(Action("flaky"))
        store.dispatch(TestAction.append("b"))
        store.dispatch(TestAction.fail)
        #expect(store.currentState().log == ["a", "b"])
        #expect(failures.wait(forCount: 2))
        #expect(Set(failures.values) == ["flaky", "TestAction.fail"])
        withExtendedLifetime(token) {}
    }
}

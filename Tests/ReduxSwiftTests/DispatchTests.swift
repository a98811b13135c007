import Foundation
import ReduxSwift
import Testing

/// Rule 1: asynchronous, ordered dispatch.
@Suite(.offThePool) struct DispatchTests {
    @Test func dispatchReturnsBeforeTheReducerRuns() {
        let release = Gate()
        let blocking: Reducer<TestState> = { state, _ in
            release.wait()
            state.counter += 1
        }
        let store = makeStore([blocking])
        store.dispatch(TestAction.increment)  // would hang here if dispatch ran the reducer
        release.open()
        #expect(store.currentState().counter == 1)
    }

    @Test func reducersRunOffTheDispatchingThread() {
        let threads = Recorder<ObjectIdentifier>()
        let store = makeStore([{ _, _ in threads.append(currentThreadID()) }])
        for _ in 0..<20 { store.dispatch(TestAction.increment) }
        _ = store.currentState()
        #expect(threads.count == 20)
        #expect(!threads.values.contains(currentThreadID()))
    }

    @Test func everyReducerOfEveryArraySeesEveryActionInRegistrationOrder() {
        func tagger(_ tag: String) -> Reducer<TestState> {
            { state, action in state.log.append("\(tag):\((action as? TestAction).map { "\($0)" } ?? "?")") }
        }
        let store = makeStore([tagger("a1"), tagger("a2")])
        store.register([tagger("b1")])
        store.register([tagger("c1"), tagger("c2")])
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.add(2))
        let expected = ["increment", "add(2)"].flatMap { name in
            ["a1", "a2", "b1", "c1", "c2"].map { "\($0):\(name)" }
        }
        #expect(store.currentState().log == expected)
    }

    @Test func registrationAffectsOnlyActionsDispatchedAfterIt() {
        let store = makeStore([testReducer])
        store.dispatch(TestAction.increment)
        store.register([{ state, _ in state.log.append("registered") }])
        store.dispatch(TestAction.increment)
        let state = store.currentState()
        #expect(state.counter == 2)
        #expect(state.log == ["registered"])
    }

    @Test func actionsAreReducedOneAtATimeKeepingEachThreadsOrder() {
        let active = Recorder<Int>()
        let overlap = Recorder<Bool>()
        let store = makeStore([
            { state, action in
                active.append(1)
                if active.count != state.log.count + 1 { overlap.append(true) }
                if let action = action as? TestAction, case .append(let entry) = action {
                    state.log.append(entry)
                }
            }
        ])
        let threads = 8
        let perThread = 250
        onThreads(threads) { thread in
            for step in 0..<perThread { store.dispatch(TestAction.append("\(thread):\(step)")) }
        }
        let log = store.currentState().log
        #expect(log.count == threads * perThread)
        #expect(overlap.values.isEmpty)
        for thread in 0..<threads {
            let own = log.filter { $0.hasPrefix("\(thread):") }.map { Int($0.split(separator: ":")[1])! }
            #expect(own == Array(0..<perThread), "thread \(thread) lost its own order")
        }
    }
}

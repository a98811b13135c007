import Foundation
import ReduxSwift
import Testing

/// Rule 2: `currentState()` reflects every action whose `dispatch` returned before the call.
@Suite(.offThePool) struct ReadYourWritesTests {
    @Test func aReadRightAfterDispatchingSeesTheAction() {
        let store = makeStore()
        for expected in 1...200 {
            store.dispatch(TestAction.increment)
            #expect(store.currentState().counter == expected)
        }
    }

    @Test func aReadAfterABurstSeesTheWholeBurst() {
        let store = makeStore()
        for _ in 0..<10_000 { store.dispatch(TestAction.increment) }
        #expect(store.currentState().counter == 10_000)
    }

    @Test func aReadOnAnotherThreadSeesWhatHappenedBeforeIt() {
        let store = makeStore()
        let dispatched = Gate()
        let seen = Recorder<Int>()
        let reader = Thread {
            dispatched.wait()
            seen.append(store.currentState().counter)
        }
        reader.start()
        for _ in 0..<500 { store.dispatch(TestAction.increment) }
        dispatched.open()
        #expect(seen.wait(forCount: 1))
        #expect(seen.values == [500])
    }

    @Test func readsFromManyThreadsEachSeeTheirOwnWrites() {
        let store = makeStore()
        onThreads(8) { thread in
            for step in 0..<50 {
                store.dispatch(TestAction.append("\(thread):\(step)"))
                let log = store.currentState().log
                #expect(log.contains("\(thread):\(step)"))
            }
        }
        #expect(store.currentState().log.count == 400)
    }
}

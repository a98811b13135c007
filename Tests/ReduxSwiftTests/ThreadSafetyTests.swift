import Foundation
import ReduxSwift
import Testing

/// Rule 8: the whole API at once, from many threads.
@Suite(.offThePool) struct ThreadSafetyTests {
    @Test func dispatchersReadersAndObserverChurnTogetherLoseNothing() {
        let center = StoreNotificationCenter()
        let store = makeStore(center: center)
        let (announced, token) = recordAppends(announcedBy: store)
        let finished = Gate()
        let helpers = DispatchGroup()
        let readerSawTheStateGoBack = Recorder<Int>()
        helpers.enter()
        Thread {
            var tokens: [ObserverToken] = []
            while !finished.wait(timeout: 0) {
                tokens.append(store.observeChanges(queue: .global()) { _ in })
                tokens.append(center.addObserver(forName: nil, object: nil, queue: nil) { _ in })
                if tokens.count > 20 { tokens.removeFirst(10) }
            }
            helpers.leave()
        }.start()
        helpers.enter()
        Thread {
            var last = 0
            while !finished.wait(timeout: 0) {
                let counter = store.currentState().counter
                if counter < last { readerSawTheStateGoBack.append(counter) }
                last = counter
            }
            helpers.leave()
        }.start()

        let dispatchers = 8
        let perDispatcher = 1_000
        onThreads(dispatchers) { thread in
            for step in 0..<perDispatcher {
                store.dispatch(TestAction.increment)
                store.dispatch(TestAction.append("\(thread):\(step)"))
            }
        }
        let total = dispatchers * perDispatcher
        let state = store.currentState()
        #expect(state.counter == total)
        #expect(state.log.count == total)
        #expect(announced.wait(forCount: total))
        #expect(announced.values == state.log)
        finished.open()
        helpers.wait()
        #expect(readerSawTheStateGoBack.values.isEmpty)
        token.cancel()
    }

    @Test func everySuccessfulActionIsAnnouncedExactlyOnceUnderContention() {
        let store = makeStore()
        let (announced, token) = recordAppends(announcedBy: store)
        onThreads(8) { thread in
            for step in 0..<500 {
                store.dispatch(TestAction.append("\(thread):\(step)"))
                if step % 50 == 0 { store.dispatch(TestAction.fail) }
                if step % 100 == 0 { _ = store.currentState() }
            }
        }
        let log = store.currentState().log
        #expect(log.count == 4_000)
        #expect(announced.wait(forCount: 4_000))
        #expect(announced.values == log)
        token.cancel()
    }
}

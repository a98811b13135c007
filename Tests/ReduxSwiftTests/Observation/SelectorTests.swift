import Foundation
import Testing

@testable import ReduxSwift

@Suite(.offThePool) struct SelectorTests {
    @Test func theCurrentValueComesFirstBeforeObserveReturns() {
        let store = makeStore(state: TestState(counter: 5))
        let seen = Recorder<Int>()
        let token = store.observe(\.counter) { seen.append($0) }
        #expect(seen.values == [5])
        withExtendedLifetime(token) {}
    }

    @Test func aValueIsDeliveredOnlyWhenItChanges() {
        let store = makeStore()
        let counters = Recorder<Int>()
        let token = store.observe(\.counter) { counters.append($0) }
        let (appends, appendToken) = recordAppends(announcedBy: store)
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.append("elsewhere"))
        store.dispatch(TestAction.append("again"))
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.append("last"))
        #expect(appends.wait(forCount: 3))
        #expect(counters.wait { $0.last == 2 })
        #expect(counters.values.first == 0)
        #expect(counters.values == counters.values.sorted(), "values never go back")
        #expect(Set(counters.values).count == counters.values.count, "no value repeats")
        withExtendedLifetime((token, appendToken)) {}
    }

    @Test func everyChangeOfTheValueIsSeenWhenChangesAreSlow() {
        let store = makeStore()
        let counters = Recorder<Int>()
        let token = store.observe(\.counter) { counters.append($0) }
        for expected in 1...5 {
            store.dispatch(TestAction.append("noise"))
            store.dispatch(TestAction.increment)
            #expect(counters.wait { $0.last == expected })
        }
        #expect(counters.values == [0, 1, 2, 3, 4, 5])
        withExtendedLifetime(token) {}
    }

    @Test func anEquatableProjectionsEqualityDecidesWhatARepeatIs() {
        let store = makeStore()
        let parities = Recorder<Int>()
        let token = store.observe({ Parity(counter: $0.counter) }, using: { parities.append($0.counter) })
        for _ in 0..<3 {
            store.dispatch(TestAction.add(2))
            _ = store.currentState()
        }
        store.dispatch(TestAction.increment)
        #expect(parities.wait { $0.count == 2 })
        #expect(parities.values == [0, 7])
        withExtendedLifetime(token) {}
    }

    @Test func anObserverChangingItsValueLeavesTheStoresStateAsItWas() {
        let store = makeStore(state: TestState(todos: [Todo(id: 0, title: "a")]))
        let seen = Recorder<[Todo]>()
        let token = store.observe(\.todos) { todos in
            var mutated = todos
            mutated[0].title = "changed by an observer"
            seen.append(todos)
        }
        #expect(store.currentState().todos.first?.title == "a")
        #expect(seen.values.first?.first?.title == "a")
        withExtendedLifetime(token) {}
    }

    @Test func aQueueReceivesEveryDelivery() {
        let store = makeStore()
        let queue = DispatchQueue(label: "selector-test")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let deliveries = Recorder<(value: Int, onQueue: Bool)>()
        let token = store.observe(\.counter, queue: queue) { value in
            deliveries.append((value, DispatchQueue.getSpecific(key: key) == true))
        }
        store.dispatch(TestAction.increment)
        // The first delivery may already see the increment; either way the last value is 1.
        #expect(deliveries.wait { $0.last?.value == 1 })
        let allOnQueue = deliveries.values.allSatisfy { $0.onQueue }
        #expect(allOnQueue)
        withExtendedLifetime(token) {}
    }

    @Test func anObserverWhoseQueueIsBusyGetsOnlyTheNewestValueOnceItFrees() {
        let store = makeStore()
        let queue = DispatchQueue(label: "selector-test-busy")
        let seen = Recorder<Int>()
        let token = store.observe(\.counter, queue: queue) { seen.append($0) }
        #expect(seen.wait { $0 == [0] })
        let busy = Gate()
        let blocked = Gate()
        queue.async {
            blocked.open()
            _ = busy.wait()
        }
        #expect(blocked.wait())
        for expected in 1...3 {
            store.dispatch(TestAction.increment)
            // A read that sees the value comes after its selection: 1 starts a delivery, which waits
            // for the queue, and 2 and 3 each replace the value before it.
            #expect(store.currentState().counter == expected)
        }
        busy.open()
        #expect(seen.wait { $0.last == 3 })
        #expect(seen.values == [0, 3])
        withExtendedLifetime(token) {}
    }

    @Test func nothingIsDeliveredAfterCancel() {
        let store = makeStore()
        let seen = Recorder<Int>()
        let token = store.observe(\.counter) { seen.append($0) }
        token.cancel()
        store.dispatch(TestAction.increment)
        let (appends, appendToken) = recordAppends(announcedBy: store)
        store.dispatch(TestAction.append("after"))
        #expect(appends.wait(forCount: 1))
        #expect(seen.values == [0])
        #expect(store.notificationCenter.observerCount == 1)
        withExtendedLifetime(appendToken) {}
    }

    @Test func observersComeAndGoWhileSeveralThreadsDispatch() {
        let store = makeStore()
        let releases = Recorder<Gate>()
        onThreads(4) { thread in
            for step in 0..<100 {
                if thread % 2 == 0 {
                    store.dispatch(TestAction.increment)
                } else {
                    let released = Gate()
                    releases.append(released)
                    let token = store.observe(witnessed(released) { $0.counter }) { _ in }
                    if step % 3 == 0 { token.cancel() }
                }
            }
        }
        #expect(store.currentState().counter == 200)
        #expect(releases.count == 200)
        let stillObserving = releases.values.filter { !$0.wait() }.count
        #expect(stillObserving == 0, "every observer was removed when its token was cancelled or released")
    }
}

import Foundation
import Testing

@testable import ReduxSwift

/// Selector and key-path observers never hold a lock while they wait for the store or call the
/// block, so re-entrant posts cannot deadlock them.
@Suite(.offThePool) struct ObserverReentrancyTests {
    @Test func aSelectedValueWhoseDeinitPostsMayBeReplacedWhileWaitingForDelivery() throws {
        let store = makeStore()
        let post = { @Sendable in
            store.notificationCenter.post(StoreNotification(name: .stateDidChange, object: store))
        }
        let hook = Hook()
        hook.set(post)
        let inBlock = Gate()
        let release = Gate()
        let seen = Recorder<Int>()
        let token = store.observe(
            { state in DeinitProbe(state.counter) { if $0 == 2 { hook.run() } } },
            removingDuplicates: { $0.value == $1.value },
            using: { probe in
                seen.append(probe.value)
                if probe.value == 1 {
                    inBlock.open()
                    release.wait()
                }
            })
        store.dispatch(TestAction.increment)
        try #require(inBlock.wait(timeout: 10), "the delivery thread is delivering 1")
        // While 1 is delivered, 2 is offered and waits for the deliverer...
        store.dispatch(TestAction.increment)
        #expect(finishing(within: 10) { post() } != nil)
        // ...until 3 replaces it; the replaced 2's deinit posts again, on the thread offering 3:
        // on its own thread, so that a lock held while releasing 2 fails the test instead of hanging it.
        store.dispatch(TestAction.increment)
        let offered = finishing(within: 10) { () -> Bool in
            post()
            return true
        }
        release.open()
        try #require(offered == true, "the replaced value was released under the selector's lock")
        #expect(seen.wait(timeout: 10) { $0.last == 3 })
        #expect(seen.values == [0, 1, 3])
        hook.set(nil)
        withExtendedLifetime(token) {}
    }

    @Test func aSelectorWhoseBlockRelaysTheChangeKeepsDelivering() {
        let store = makeStore()
        let seen = Recorder<Int>()
        let token = store.observe(\.counter) { value in
            seen.append(value)
            if value > 0 {
                store.notificationCenter.post(StoreNotification(name: .stateDidChange, object: store))
            }
        }
        let witness = Recorder<Int>()
        let witnessToken = store.observeChanges { _ in witness.append(1) }
        store.dispatch(TestAction.increment)
        #expect(witness.wait(forCount: 1, timeout: 10), "the delivery thread is stuck")
        store.dispatch(TestAction.increment)
        #expect(seen.wait(timeout: 10) { $0.last == 2 })
        #expect(seen.values == [0, 1, 2])
        withExtendedLifetime((token, witnessToken)) {}
    }

    @Test func aKeyPathObserverWhoseBlockRelaysTheChangeKeepsDelivering() {
        let store = makeStore()
        let seen = Recorder<[StateChange]>()
        let token = store.observeStateChanges(at: ["counter"]) { changes in
            seen.append(changes)
            store.notificationCenter.post(StoreNotification(name: .stateDidChange, object: store))
        }
        let witness = Recorder<Int>()
        let witnessToken = store.observeChanges { _ in witness.append(1) }
        store.dispatch(TestAction.increment)
        #expect(witness.wait(forCount: 1, timeout: 10), "the delivery thread is stuck")
        store.dispatch(TestAction.increment)
        #expect(seen.wait(timeout: 10) { $0.last?.first?.newValue?.intValue == 2 })
        #expect(seen.values.flatMap { $0 }.map { $0.newValue?.intValue } == [1, 2])
        withExtendedLifetime((token, witnessToken)) {}
    }

    @Test func aReducerPostingWhileASelectorWaitsForItsStoreDoesNotDeadlock() {
        let handle = StoreHandle()
        let reducing = Gate()
        let release = Gate()
        let reducer: Reducer<TestState> = { state, action in
            guard case .append("post")? = action as? TestAction else { return }
            reducing.open()
            release.wait()
            handle.store.notificationCenter.post(
                StoreNotification(name: .stateDidChange, object: handle.store))
        }
        let store = makeStore([testReducer, reducer])
        handle.store = store
        let seen = Recorder<Int>()
        let token = store.observe(\.counter) { seen.append($0) }
        store.dispatch(TestAction.append("post"))
        #expect(reducing.wait())
        // A post from another thread makes the selector wait for the blocked reducer.
        let posted = onNewThread {
            store.notificationCenter.post(StoreNotification(name: .stateDidChange, object: store))
        }
        #expect(
            waitUntil { store.kernel.inspect(\.waitingReaderCount) == 1 }, "the selector waits for the store")
        release.open()
        #expect(posted.wait(timeout: 10), "the selector and the reducer wait for each other")
        let read = onNewThread { _ = store.currentState() }
        #expect(read.wait(timeout: 10), "the store hangs")
        store.dispatch(TestAction.increment)
        #expect(seen.wait(timeout: 10) { $0.last == 1 })
        withExtendedLifetime(token) {}
    }

    @Test func aReducerPostingWhileASelectorsBlockReadsTheStoreDoesNotDeadlock() {
        let handle = StoreHandle()
        let reducer: Reducer<TestState> = { state, action in
            guard case .append("post")? = action as? TestAction else { return }
            handle.store.notificationCenter.post(
                StoreNotification(name: .stateDidChange, object: handle.store))
        }
        let store = makeStore([testReducer, reducer])
        handle.store = store
        let reads = Recorder<Int>()
        let token = store.observe(\.counter) { value in
            guard value == 1 else { return }
            store.dispatch(TestAction.append("post"))
            reads.append(store.currentState().log.count)
        }
        store.dispatch(TestAction.increment)
        #expect(
            reads.wait(forCount: 1, timeout: 10), "the selector's block and the reducer wait for each other")
        #expect(reads.values == [1])
        withExtendedLifetime(token) {}
    }
}

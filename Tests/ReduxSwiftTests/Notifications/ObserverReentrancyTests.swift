import Foundation
import Testing

@testable import ReduxSwift

/// Value observers never hold a lock while they call the block or release a value, so
/// re-entrant posts, reads and dispatches cannot deadlock them.
@Suite(.offThePool) struct ObserverReentrancyTests {
    @Test func aSelectedValueWhoseDeinitPostsMayBeReplacedWhileWaitingForDelivery() throws {
        let store = makeStore()
        let post = { @Sendable in
            store.notificationCenter.post(StoreNotification(name: .stateDidChange, object: store))
        }
        let hook = Hook()
        let deinitRan = Gate()
        hook.set {
            post()
            _ = store.currentState()
            deinitRan.open()
        }
        let inBlock = Gate()
        let release = Gate()
        let seen = Recorder<Int>()
        let token = store.observe(
            { state in ProbedCounter(probe: DeinitProbe(state.counter) { if $0 == 2 { hook.run() } }) },
            using: { counter in
                let probe = counter.probe
                seen.append(probe.value)
                if probe.value == 1 {
                    inBlock.open()
                    release.wait()
                }
            })
        store.dispatch(TestAction.increment)
        try #require(inBlock.wait(), "the delivery thread is delivering 1")
        // While 1 is delivered, 2 is offered and waits for the deliverer...
        store.dispatch(TestAction.increment)
        _ = store.currentState()
        // ...until 3 replaces it; the replaced 2's deinit posts and reads the store, on the
        // store's queue: a lock held while releasing 2 would hang it.
        store.dispatch(TestAction.increment)
        let replaced = deinitRan.wait()
        release.open()
        try #require(replaced, "the replaced value was released under a lock its deinit needs")
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

    @Test func aSelectorThatReadsItsStoreAndDispatchesDoesNotDeadlock() {
        let store = makeStore()
        let other = makeStore(state: TestState(counter: 7))
        let reads = Recorder<Int>()
        let dispatched = LockedFlag()
        let token = TokenBox()
        // Registered on a thread of its own, so that a selector waiting for its store fails the
        // test instead of hanging it.
        let registered = onNewThread {
            token.value = store.observe({ state -> Int in
                reads.append(store.currentState().counter + other.currentState().counter)
                // Once: the change it makes runs the selector again.
                if state.counter == 1, !dispatched.isSet {
                    dispatched.set()
                    store.dispatch(TestAction.append("from the selector"))
                }
                return state.counter
            }) { _ in }
        }
        #expect(registered.wait(), "the first selection waited for the store it runs on")
        #expect(reads.values == [7])
        let logs = Recorder<[String]>()
        let logToken = store.observe(\.log) { logs.append($0) }
        store.dispatch(TestAction.increment)
        #expect(logs.wait { $0.last == ["from the selector"] }, "the selector's dispatch was reduced")
        let read = onNewThread { _ = store.currentState() }
        #expect(read.wait(), "the store hangs")
        #expect(store.currentState().counter == 1)
        withExtendedLifetime((token, logToken)) {}
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

/// A selected value whose `==` compares the counters of its probes, so that an observer skips a
/// repeat of the counter and a replaced value's `deinit` runs the probe's code.
struct ProbedCounter: Equatable, Sendable {
    let probe: DeinitProbe

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.probe.value == rhs.probe.value
    }
}

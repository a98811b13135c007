import Foundation
import Testing

@testable import ReduxSwift

/// "Once `cancel()` returns, the observer is not called again, not even for deliveries already
/// queued", for every kind of observer.
@Suite(.offThePool) struct CancellationTests {
    @Test func aPlainObserverIsNeverCalledAfterCancelReturnsWhileAnotherThreadPosts() {
        let center = StoreNotificationCenter()
        let name = Notification.Name("cancellation race")
        let stop = LockedFlag()
        let late = LockedCounter()
        let posterFinished = onNewThread {
            while !stop.isSet { center.post(StoreNotification(name: name)) }
        }
        let deadline = Date(timeIntervalSinceNow: 5)
        var trials = 0
        while trials < 5_000, Date() < deadline {
            let cancelled = LockedFlag()
            let calls = LockedCounter()
            let tokens = (0..<4).map { _ in
                center.addObserver(forName: name, object: nil, queue: nil) { _ in
                    if cancelled.isSet { late.increment() }
                    calls.increment()
                }
            }
            // Cancel while the poster is delivering to these observers.
            while calls.value == 0, Date() < deadline { sched_yield() }
            for token in tokens { token.cancel() }
            cancelled.set()
            trials += 1
        }
        stop.set()
        #expect(posterFinished.wait())
        #expect(late.value == 0, "\(late.value) calls began after cancel() returned, in \(trials) trials")
        #expect(center.observerCount == 0)
    }

    /// A post walks the observer list it copied under the lock after releasing the lock, so
    /// cancelling or adding an observer must never write into storage that a post read without the
    /// two threads synchronizing; the thread sanitizer reports it when it does (in an optimized
    /// build, where the array code is compiled into the module and instrumented). Selectors whose
    /// value never changes pass no lock or gate that the cancelling thread takes, and the
    /// dispatching thread pauses between actions, so changes land after a delivery, not only during.
    @Test func changingObserversBetweenDeliveriesNeverWritesToTheListADeliveryWalked() {
        let store = makeStore()
        let stop = LockedFlag()
        let changes = LockedCounter()
        let watcher = store.observeChanges { _ in changes.increment() }
        let dispatcherFinished = onNewThread {
            while !stop.isSet {
                store.dispatch(TestAction.increment)
                for _ in 0..<32 { sched_yield() }
            }
        }
        let deadline = Date(timeIntervalSinceNow: 3)
        var rounds = 0
        while rounds < 300, Date() < deadline {
            var tokens: [ObserverToken] = []
            for index in 0..<48 {
                tokens.append(
                    store.observe({ $0.log.count }, queue: index % 4 == 0 ? .global() : nil) { _ in })
                sched_yield()
            }
            for token in tokens {
                token.cancel()
                sched_yield()
            }
            rounds += 1
        }
        stop.set()
        #expect(dispatcherFinished.wait())
        #expect(changes.value > 0, "no change was delivered in \(rounds) rounds")
        watcher.cancel()
        #expect(store.notificationCenter.observerCount == 0)
    }

    /// The center-level shape of the same race: entries whose calls pass a gate of their own
    /// choosing (as value observers' do) make no synchronizing write on the posting thread when
    /// they have nothing to deliver, so only the registry's storage orders a post against a removal.
    @Test func removingGatedEntriesBetweenPostsNeverWritesToTheListAPostWalked() {
        let center = StoreNotificationCenter()
        let name = Notification.Name("changes between posts")
        let stop = LockedFlag()
        let posterFinished = onNewThread {
            while !stop.isSet {
                center.post(StoreNotification(name: name))
                for _ in 0..<32 { sched_yield() }
            }
        }
        let deadline = Date(timeIntervalSinceNow: 3)
        var rounds = 0
        while rounds < 300, Date() < deadline {
            let entries = (0..<48).map { _ in
                center.register(forName: name, object: nil, queue: nil, gate: CallGate()) { _ in }
            }
            for entry in entries {
                sched_yield()
                if entry.deactivate() { center.remove(entry) }
            }
            rounds += 1
        }
        stop.set()
        #expect(posterFinished.wait())
        #expect(center.observerCount == 0)
    }

    @Test func cancelWaitsForACallUnderWayOnAnotherThread() {
        let store = makeStore()
        let entered = Gate()
        let release = Gate()
        let events = Recorder<String>()
        let token = store.observeChanges { _ in
            entered.open()
            release.wait()
            events.append("call ended")
        }
        store.dispatch(TestAction.increment)
        #expect(entered.wait())
        let cancelling = Gate()
        let cancelled = onNewThread {
            cancelling.open()
            token.cancel()
            events.append("cancel returned")
        }
        #expect(cancelling.wait())
        // A cancel that waits marks the observer before it blocks; one that does not, returns.
        #expect(waitUntil { token.wasWaitedFor || cancelled.wait(timeout: 0) })
        #expect(!cancelled.wait(timeout: 0), "cancel() returned while a call was under way")
        release.open()
        #expect(cancelled.wait())
        #expect(events.values == ["call ended", "cancel returned"])
    }

    /// An async sequence ends its observer without waiting, from a termination handler that can run
    /// while Swift holds a lock the delivering thread needs; whichever thread then frees the token
    /// must not wait for that call after all.
    @Test func releasingATokenCancelledWithoutWaitingDoesNotWaitForACallUnderWay() {
        let store = makeStore()
        let entered = Gate()
        let release = Gate()
        let holder = LockedValue<ObserverToken?>(nil)
        holder.withLock {
            $0 = store.observeChanges { _ in
                entered.open()
                release.wait()
            }
        }
        store.dispatch(TestAction.increment)
        #expect(entered.wait())
        holder.withLock { $0?.cancelWithoutWaiting() }
        let released = onNewThread { holder.withLock { $0 = nil } }
        #expect(released.wait(timeout: 5), "releasing the cancelled token waited for the call under way")
        release.open()
        #expect(released.wait())
    }

    @Test func anObserverCancellingItselfReturnsAtOnceAndIsNotCalledAgain() {
        let store = makeStore()
        let calls = Recorder<Int>()
        let token = TokenBox()
        token.value = store.observeChanges { _ in
            token.value?.cancel()
            calls.append(1)
        }
        let (appends, witness) = recordAppends(announcedBy: store)
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.append("later"))
        #expect(appends.wait(forCount: 1))
        #expect(calls.values == [1])
        withExtendedLifetime(witness) {}
    }

    @Test func twoObserversCancellingEachOtherFromConcurrentCallsDoNotDeadlock() {
        let first = makeStore()
        let second = makeStore()
        let firstToken = TokenBox()
        let secondToken = TokenBox()
        let firstEntered = Gate()
        let secondEntered = Gate()
        let finished = Recorder<String>()
        firstToken.value = first.observeChanges { _ in
            firstEntered.open()
            secondEntered.wait()
            secondToken.value?.cancel()
            finished.append("first")
        }
        secondToken.value = second.observeChanges { _ in
            secondEntered.open()
            firstEntered.wait()
            firstToken.value?.cancel()
            finished.append("second")
        }
        first.dispatch(TestAction.increment)
        second.dispatch(TestAction.increment)
        #expect(finished.wait(forCount: 2, timeout: 10), "the two cancels waited for each other")
    }

    @Test func cancelInsideAReducerDoesNotWaitForACallThatWaitsForTheStore() {
        let handle = StoreHandle()
        let token = TokenBox()
        let entered = Gate()
        let cancelled = Gate()
        let reducer: Reducer<TestState> = { state, action in
            guard case .append("cancel")? = action as? TestAction else { return }
            entered.wait()
            token.value?.cancel()
            cancelled.open()
        }
        let store = makeStore([testReducer, reducer])
        handle.store = store
        let reads = Recorder<Int>()
        token.value = store.observeChanges { _ in
            guard reads.count == 0 else { return }
            store.dispatch(TestAction.append("cancel"))
            entered.open()
            reads.append(handle.store.currentState().log.count)
        }
        store.dispatch(TestAction.increment)
        #expect(cancelled.wait(timeout: 10), "the reducer's cancel() waited for the observer")
        #expect(reads.wait(forCount: 1, timeout: 10))
    }

    @Test func theFirstValueOfAQueueSelectorIsNotDeliveredAfterCancel() {
        let store = makeStore()
        let queue = DispatchQueue(label: "blocked selector queue")
        let unblock = Gate()
        queue.async { unblock.wait() }
        let seen = Recorder<Int>()
        let token = store.observe(\.counter, queue: queue) { seen.append($0) }
        token.cancel()
        unblock.open()
        queue.sync {}
        #expect(seen.values.isEmpty)
    }

    @Test func aSelectorIsNotCalledAfterCancelReturnsWhileItsValueWasBeingSelected() {
        let store = makeStore()
        let selecting = Gate()
        let release = Gate()
        let armed = LockedFlag()
        let seen = Recorder<Int>()
        let select: @Sendable (TestState) -> Int = { state in
            if armed.isSet, state.counter == 1 {
                selecting.open()
                release.wait()
            }
            return state.counter
        }
        let token = store.observe(select) { seen.append($0) }
        let witness = Recorder<Int>()
        let witnessToken = store.observeChanges { _ in witness.append(1) }
        armed.set()
        store.dispatch(TestAction.increment)
        #expect(selecting.wait())
        token.cancel()
        release.open()
        #expect(witness.wait(forCount: 1))
        #expect(seen.values == [0])
        withExtendedLifetime(witnessToken) {}
    }

    @Test func anOwnerBoundSelectorIsNotCalledAfterCancelReturnsWhileItsValueWasBeingSelected() {
        final class Owner: Sendable {}
        let store = makeStore()
        let owner = Owner()
        let selecting = Gate()
        let release = Gate()
        let armed = LockedFlag()
        let seen = Recorder<Int>()
        let select: @Sendable (TestState) -> Int = { state in
            if armed.isSet, state.counter == 1 {
                selecting.open()
                release.wait()
            }
            return state.counter
        }
        let token = store.observe(select, owner: owner) { _, value in seen.append(value) }
        let witness = Recorder<Int>()
        let witnessToken = store.observeChanges { _ in witness.append(1) }
        armed.set()
        store.dispatch(TestAction.increment)
        #expect(selecting.wait())
        token.cancel()
        release.open()
        #expect(witness.wait(forCount: 1))
        #expect(seen.values == [0])
        withExtendedLifetime((owner, witnessToken)) {}
    }
}

import Foundation
import Testing

@testable import ReduxSwift

/// A flag that tests set on one thread and read on another.
final class LockedFlag: @unchecked Sendable {
    // `@unchecked Sendable`: `value` is only touched while `lock` is held.
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

/// A counter that tests increment on one thread and read on another.
final class LockedCounter: @unchecked Sendable {
    // `@unchecked Sendable`: `count` is only touched while `lock` is held.
    private let lock = NSLock()
    private var count = 0

    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// Waits until `condition` holds, checking it every millisecond, or until `timeout` seconds pass.
/// - Returns: Whether the condition held.
@discardableResult
func waitUntil(timeout: TimeInterval = 20, _ condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while !condition() {
        if Date() >= deadline { return condition() }
        Thread.sleep(forTimeInterval: 0.001)
    }
    return true
}

/// Runs `body` on a new thread; the returned gate opens when it returns.
func onNewThread(_ body: @escaping @Sendable () -> Void) -> Gate {
    let finished = Gate()
    Thread {
        body()
        finished.open()
    }.start()
    return finished
}

/// Makes `encode(to:)` of a ``HookedState`` stop until released, once armed.
final class EncodeHook: Sendable {
    private let armed = LockedFlag()
    let entered = Gate()
    let release = Gate()

    func arm() { armed.set() }

    func encodeWillBegin() {
        guard armed.isSet else { return }
        entered.open()
        release.wait()
    }
}

/// A counter whose live copy (the one inside the store) can make encoding wait; decoded copies
/// have no hook.
struct HookedState: StateProtocol {
    var counter = 0
    var hook: EncodeHook?

    enum CodingKeys: String, CodingKey { case counter }

    init(hook: EncodeHook) {
        self.hook = hook
    }

    init(from decoder: any Decoder) throws {
        counter = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .counter)
    }

    func encode(to encoder: any Encoder) throws {
        hook?.encodeWillBegin()
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(counter, forKey: .counter)
    }
}

let hookedReducer: Reducer<HookedState> = { state, action in
    if case .increment? = action as? TestAction { state.counter += 1 }
}

/// "Once `cancel()` returns, the observer is not called again, not even for deliveries already
/// queued", for every kind of observer.
@Suite struct CancellationTests {
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
    /// choosing (as selector observers' do) make no synchronizing write on the posting thread when
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
        #expect(!cancelled.wait(timeout: 0.2), "cancel() returned while a call was under way")
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

    @Test func aKeyPathObserverIsNotCalledAfterCancelReturnsWhileTheStateWasBeingEncoded() {
        let hook = EncodeHook()
        let store = Store(
            reducers: [hookedReducer], state: HookedState(hook: hook),
            notificationCenter: StoreNotificationCenter())
        let seen = Recorder<[StateChange]>()
        let token = store.observeChanges(at: ["counter"]) { seen.append($0) }
        let witness = Recorder<Int>()
        let witnessToken = store.observeChanges { _ in witness.append(1) }
        hook.arm()
        store.dispatch(TestAction.increment)
        #expect(hook.entered.wait(), "the key-path observer encodes the new version")
        token.cancel()
        hook.release.open()
        #expect(witness.wait(forCount: 1))
        #expect(seen.values.isEmpty)
        withExtendedLifetime(witnessToken) {}
    }
}

/// Holds a token that a block registered with it needs to reach.
final class TokenBox: @unchecked Sendable {
    // `@unchecked Sendable`: `token` is only touched while `lock` is held.
    private let lock = NSLock()
    private var token: ObserverToken?

    var value: ObserverToken? {
        get { lock.withLock { token } }
        set { lock.withLock { token = newValue } }
    }
}

/// Selector and key-path observers never hold a lock while they wait for the store or call the
/// block, so re-entrant posts cannot deadlock them.
@Suite struct ObserverReentrancyTests {
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
        let token = store.observeChanges(at: ["counter"]) { changes in
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
        #expect(waitUntil { store.core.waitingReaderCount == 1 }, "the selector waits for the store")
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

/// "When actions arrive faster than observers consume notifications, the notifications merge",
/// per observer, also for observers with a queue.
@Suite struct QueueCoalescingTests {
    /// Dispatches `count` increments, each announced on its own before the next is dispatched.
    func dispatchOneNotificationEach(_ count: Int, to store: Store<TestState>) {
        let announced = Recorder<Int>()
        let token = store.observeChanges { note in
            for _ in note.actions { announced.append(1) }
        }
        for index in 1...count {
            store.dispatch(TestAction.increment)
            announced.wait(forCount: index)
        }
        token.cancel()
    }

    @Test func aSlowQueueObserverGetsOneMergedNotificationNotABacklog() {
        let store = makeStore()
        let queue = DispatchQueue(label: "slow observer")
        let entered = Gate()
        let release = Gate()
        let calls = Recorder<Int>()
        let token = store.observeChanges(queue: queue) { note in
            entered.open()
            release.wait()
            calls.append(note.actions.count)
        }
        dispatchOneNotificationEach(1, to: store)
        #expect(entered.wait())
        dispatchOneNotificationEach(999, to: store)
        // Every block queued for the observer so far runs before this marker.
        let beforeMarker = LockedCounter()
        let markerRan = Gate()
        queue.async {
            for _ in calls.values.dropFirst() { beforeMarker.increment() }
            markerRan.open()
        }
        release.open()
        #expect(markerRan.wait())
        #expect(beforeMarker.value <= 1, "\(beforeMarker.value) blocks were queued for one observer")
        #expect(calls.wait { $0.reduce(0, +) == 1_000 })
        queue.sync {}
        #expect(calls.values == [1, 999], "the 999 notifications that came during the call merge")
        withExtendedLifetime(token) {}
    }

    @Test func mergedNotificationsKeepEveryActionInOrderAndFailuresInTheirPlace() {
        let store = makeStore()
        let queue = DispatchQueue(label: "slow observer")
        let entered = Gate()
        let release = Gate()
        let heard = Recorder<(name: Notification.Name, entries: [String])>()
        let token = store.notificationCenter.addObserver(forName: nil, object: store, queue: queue) { note in
            entered.open()
            release.wait()
            let entries = note.actions.compactMap { action -> String? in
                switch action as? TestAction {
                case .append(let entry): entry
                case .fail: "fail"
                default: nil
                }
            }
            heard.append((note.name, entries))
        }
        let posted = Recorder<Int>()
        let witness = store.notificationCenter.addObserver(forName: nil, object: store, queue: nil) { _ in
            posted.append(1)
        }
        let actions: [TestAction] = [
            .append("a"), .append("b"), .append("c"), .fail, .append("d"), .append("e"),
        ]
        for (index, action) in actions.enumerated() {
            store.dispatch(action)
            #expect(posted.wait(forCount: index + 1), "one notification per action")
            if index == 0 { #expect(entered.wait()) }
        }
        release.open()
        #expect(heard.wait { $0.last?.entries.last == "e" })
        queue.sync {}
        #expect(
            heard.values.map(\.name) == [.stateDidChange, .stateDidChange, .dispatchDidFail, .stateDidChange])
        #expect(heard.values.map(\.entries) == [["a"], ["b", "c"], ["fail"], ["d", "e"]])
        withExtendedLifetime((token, witness)) {}
    }
}

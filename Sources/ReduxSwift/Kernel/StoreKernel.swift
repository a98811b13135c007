import Dispatch
import Foundation

/// The heart of a store: its lock and bookkeeping, its two queues, and the effects they ask for.
///
/// Every dispatch, read, lock and transaction goes through one kernel method that makes a
/// transition of the ``StoreMachine`` under the lock and then performs what the transition answers
/// (one ``StoreMachine/Effects``) after releasing it: wake readers, unblock dispatchers, schedule a
/// drain on the reducing queue or a delivery on the delivery queue, and say what the calling thread
/// does next. The drain loop reduces with the store's ``AnyLiveState``; the delivery posts the
/// store's notifications to its ``StoreNotificationCenter``.
///
/// Not generic on purpose. `Store` is generic over the client's state and runs unspecialized; from
/// there, calling `LockedValue<StoreMachine<…>>.withLock` instantiated that type's metadata on
/// every dispatch, which cost more than the rest of the dispatch. A concrete class keeps every call
/// on the dispatch path concrete.
final class StoreKernel: @unchecked Sendable {
    // `@unchecked Sendable`: the machine is guarded by its lock; `liveState` is used only by the holder
    // of the live state (the state changes hands under that lock); `store` is written once, by
    // `attach(sender:)` in the store's initializer, before any other thread can see the kernel;
    // the other properties are immutable and `Sendable`.

    typealias Machine = StoreMachine<QueueEntry, Waiter>

    private let machine: LockedValue<Machine>
    /// The live state, its reducers and middleware; touched only by the holder of the state.
    let liveState: any AnyLiveState
    /// Where the store's notifications go.
    let notificationCenter: StoreNotificationCenter
    /// The store, while it exists: the sender of its notifications. Weak, since the store owns its kernel;
    /// work scheduled on the queues keeps the store alive until it is done (see ``scheduleDrain()``).
    private(set) weak var store: (any AnyObject & Sendable)?
    /// Held by the transaction that uses this store, by the thread that commits it (see
    /// ``StoreTransaction``).
    let transactionGate = NSLock()
    private let reduceQueue: DispatchQueue
    private let deliveryQueue: DispatchQueue
    /// The action types the holder of the state found not to be ``AsyncAction``s, for what store
    /// code dispatches; touched only by the holder of the state, like `liveState`.
    @exclusivity(unchecked) var holderActionTypes = ActionTypes()
    /// The kinds of action whose failure no observer heard was reported (see
    /// ``reportUnobserved(_:_:site:)``).
    let reportedFailureKinds = LockedValue<Set<String>>([])
    /// Hears each failure of the store itself (a lock freed without being released, a state that
    /// cannot round-trip) on the thread that finds it, as it is announced: in order with the
    /// reduction tap's records (see `Store.installTap(_:storeFailures:)`).
    let storeFailureTap = LockedValue<(@Sendable (any Error) -> Void)?>(nil)

    init(
        liveState: any AnyLiveState, initialSnapshot: Snapshot,
        notificationCenter: StoreNotificationCenter,
        label: String
    ) {
        machine = LockedValue(Machine(initialSnapshot: initialSnapshot))
        self.liveState = liveState
        liveState.checksHolder = true
        self.notificationCenter = notificationCenter
        reduceQueue = DispatchQueue(
            label: label + ".reduce", qos: .userInitiated, autoreleaseFrequency: .workItem)
        deliveryQueue = DispatchQueue(
            label: label + ".deliver", qos: .userInitiated, autoreleaseFrequency: .workItem)
    }

    /// Names the store as the sender of its notifications; called once, by its initializer.
    func attach(sender: any AnyObject & Sendable) {
        store = sender
    }

    // MARK: Dispatching

    /// Dispatches `action` from the calling thread: deferred until the current action commits when
    /// called from store code (see ``StoreCodeScope``), queued otherwise. Its static type tells an
    /// ``AsyncAction`` apart without a cast (see ``ActionTypes``); an existential is opened to it.
    @inline(__always)
    func dispatch<Action: ActionProtocol>(action: Action) {
        let entry = QueueEntry.entry(for: action)
        let type = ObjectIdentifier(Action.self)
        if StoreCodeScope.deferIfReducing(entry, dispatchedAs: type, to: .queue(self)) { return }
        enqueue(entry, dispatchedAs: type)
    }

    /// Dispatches an entry that is not an action dispatched by the app (an action passed on later)
    /// like ``dispatch(action:)``.
    func dispatch(_ entry: QueueEntry) {
        if StoreCodeScope.deferIfReducing(entry, to: .queue(self)) { return }
        enqueue(entry)
    }

    /// Dispatches `entry` like ``dispatch(action:)``, but never waits for room: returns whether the
    /// queue is full, so that a caller holding a lock can release it before ``waitForRoom()``.
    /// (Waiting under a lock the drainer may need, as an async action's run lock, deadlocks.)
    func dispatchWithoutWaitingForRoom(_ entry: QueueEntry, dispatchedAs type: ObjectIdentifier?) -> Bool {
        if StoreCodeScope.deferIfReducing(entry, dispatchedAs: type, to: .queue(self)) { return false }
        var entry = Optional(entry)
        var effects = machine.withLock { machine in
            if let type { machine.actionTypes.mark(&entry!, dispatchedAs: type) }
            return machine.enqueue(entry.take()!)
        }
        let isFull = effects.queueIsFull
        effects.queueIsFull = false
        perform(effects)
        return isFull
    }

    /// Queues `entry`; a dispatcher that filled the queue waits for room where it may. An action
    /// dispatched as `type` is told apart from an ``AsyncAction`` first, under the lock.
    func enqueue(
        _ entry: consuming QueueEntry, dispatchedAs type: ObjectIdentifier? = nil,
        _ admission: Machine.Admission = .pending
    ) {
        var entry = Optional(entry)
        let effects = machine.withLock { machine in
            if let type { machine.actionTypes.mark(&entry!, dispatchedAs: type) }
            return machine.enqueue(entry.take()!, admission)
        }
        perform(effects)
    }

    /// Queues a change to the middleware chain (see ``StoreMachine/enqueueChainChange(_:)``).
    func enqueueChain(_ change: Machine.ChainChange) {
        perform(machine.withLock { $0.enqueueChainChange(change) })
    }

    /// Back-pressure: a dispatcher that filled the queue waits until the drainer takes it, so that a
    /// tight loop cannot run ahead of the reducers without bound. Never where the drainer, or
    /// whatever it waits for, could be waiting for this thread: in store code (a reducer, a
    /// middleware, an `encode(to:)`, a drain releasing the dispatches of an action) or on a
    /// delivery thread (see <doc:ThreadingModel>). The entry is queued already; only the return waits.
    func waitForRoom() {
        guard StoreCodeScope.current == nil, !DeliveringThreadFlag.isCurrent else { return }
        lendPriorityIfMainThread()
        if case .waitForRoom(let waiter) = perform(
            machine.withLock { $0.blockUntilTaken(makeWaiter: Waiter.init) })
        {
            waiter.waitUntilUnblocked()
        }
    }

    // MARK: Locks

    /// Takes a dispatch lock; returns its identifier.
    func lock() -> UInt64 {
        machine.withLock { $0.lock() }
    }

    /// Releases the dispatch lock `id`.
    func unlock(_ id: UInt64) {
        perform(machine.withLock { $0.unlock(id) })
    }

    /// Releases a dispatch lock nobody released, and reports it.
    func abandonLock(_ id: UInt64, report: DispatchLock.ReleaseError) {
        perform(machine.withLock { $0.abandonLock(id, report: report) })
    }

    /// Dispatch locks held now.
    var lockCount: Int {
        machine.withLock { $0.lockCount }
    }

    // MARK: Reading

    /// A snapshot that covers every entry enqueued before the call: the published one, one this
    /// thread encodes while the store is idle, or one the drainer publishes while this thread waits.
    /// Inside store code it never waits (see ``StoreCodeScope``).
    func latestSnapshot() -> Snapshot {
        let waiting = StoreCodeScope.current == nil
        switch perform(machine.withLock { $0.beginRead(waiting: waiting, makeWaiter: Waiter.init) }) {
        case .read(let snapshot):
            return snapshot
        case .encode(let version):
            return encodeAsSnapshotter(version: version)
        case .waitForSnapshot(let waiter):
            lendPriorityIfMainThread()
            switch waiter.wait() {
            case .read(let snapshot): return snapshot
            case .encode(let version): return encodeAsSnapshotter(version: version)
            }
        case .nothing, .reduce, .waitForRoom:
            preconditionFailure("a read was answered with work that is not a read's")
        }
    }

    /// Encodes the state as the snapshotter, the holder a read made of this thread, publishes it and
    /// gives the state back.
    private func encodeAsSnapshotter(version: UInt64) -> Snapshot {
        let snapshot = encodeOwnedState(version: version)
        perform(machine.withLock { $0.snapshotterDidEncode(snapshot) })
        return snapshot
    }

    /// Returns once every entry queued before the call is reduced, except those a dispatch lock
    /// holds, as a read would wait, but without encoding the state; inside store code, at once.
    func waitUntilReduced() {
        guard StoreCodeScope.current == nil else { return }
        let reached = DispatchSemaphore(value: 0)
        enqueue(.command(StartWatching(watcher: PlaceInQueue { reached.signal() })), .neverHeld)
        lendPriorityIfMainThread()
        reached.wait()
    }

    // MARK: Idle

    /// Calls `done` once the store is idle: every entry queued before reduced (those a dispatch
    /// lock holds included), what they dispatched reduced too, no asynchronous work of an action
    /// running, and every delivery to the delivery thread made. Never blocks the calling thread.
    ///
    /// Each round marks the end of the queue; when the holder of the state reaches the mark, and
    /// the drain that reached it has handed over its notifications, and the delivery thread has
    /// made every delivery scheduled before, the store is idle if nothing was queued since the
    /// mark and no asynchronous work runs. Otherwise another round starts.
    ///
    /// The rounds hold the kernel weakly: the caller holds it while it waits, and a wait that
    /// ended (it timed out, or was cancelled) keeps no store alive while its last round finishes.
    ///
    /// Waits that come while nothing was queued since the newest mark share it, and a wait that
    /// ends leaves its mark and the parked waits at once (see ``idleWaitEnded(_:)``): waits
    /// repeated while a lock or long work keeps the store busy leave nothing behind.
    /// - Parameters:
    ///   - wait: The wait, by which it leaves the marks and the parked waits when it ends.
    ///   - fromAsyncWork: Whether the caller is this store's asynchronous work, which does not
    ///     wait for work that waits (see
    ///     ``StoreMachine/checkIdle(since:fromAsyncWork:wait:isWanted:resume:)``).
    ///   - isWanted: Whether the wait still waits; once it does not (it timed out or was
    ///     cancelled), no round starts again.
    func whenIdle(
        wait: ObjectIdentifier, fromAsyncWork: Bool, isWanted: @escaping @Sendable () -> Bool,
        _ done: @escaping @Sendable () -> Void
    ) {
        let again: @Sendable () -> Void = { [weak self] in
            self?.whenIdle(wait: wait, fromAsyncWork: fromAsyncWork, isWanted: isWanted, done)
        }
        let reached: @Sendable (UInt64) -> Void = { [weak self] work in
            // Hops to the end of the reducing queue, so that the drain that reached the mark has
            // scheduled its deliveries, then to the end of the delivery queue, behind them.
            self?.reduceQueue.async { [weak self] in
                self?.deliveryQueue.async { [weak self] in
                    guard
                        let check = self?.machine.withLock({
                            $0.checkIdle(
                                since: work, fromAsyncWork: fromAsyncWork, wait: wait, isWanted: isWanted,
                                resume: again)
                        })
                    else { return }
                    switch check {
                    case .idle: done()
                    case .busy: again()
                    case .parked: break
                    }
                }
            }
        }
        perform(
            machine.withLock { machine in
                machine.enqueueIdleMark(for: wait, isWanted: isWanted, reached: reached) { mark in
                    .command(
                        StartWatching(watcher: PlaceInQueue { [weak self] in self?.idleMarkReached(mark) })
                    )
                }
            })
    }

    /// The holder of the state reached the mark of waits until idle `mark`.
    private func idleMarkReached(_ mark: UInt64) {
        let (work, reached) = machine.withLock { $0.idleMarkReached(mark) }
        for call in reached { call(work) }
    }

    /// What the store keeps for waits until idle (see ``StoreMachine/idleWaitsKept``).
    var idleWaitsKept: (marks: Int, waits: Int, parked: Int, markedWaits: Int) {
        machine.withLock { $0.idleWaitsKept }
    }

    /// The wait until idle `wait` ended: the store keeps nothing of it.
    func idleWaitEnded(_ wait: ObjectIdentifier) {
        machine.withLock { $0.idleWaitEnded(wait) }
    }

    /// A wait of this store's asynchronous work `work` (its run) opens (`true`) or ends.
    func asyncWork(_ work: ObjectIdentifier, waits: Bool) {
        for resume in machine.withLock({ $0.asyncWork(work, waits: waits) }) { resume() }
    }

    /// An action's asynchronous work started: the store is not idle until it ends.
    func asyncWorkStarted(_ work: ObjectIdentifier) {
        machine.withLock { $0.asyncWorkStarted(work) }
    }

    /// An action's asynchronous work ended, after queuing everything it dispatched.
    func asyncWorkEnded(_ work: ObjectIdentifier) {
        for resume in machine.withLock({ $0.asyncWorkEnded(work) }) { resume() }
    }

    /// A registering thread delivering an observer's first value holds a later delivery to the
    /// delivery thread (`true`), or has handed it over: the store is not idle meanwhile.
    func deliveryHeld(_ held: Bool) {
        for resume in machine.withLock({ $0.deliveryHeld(held) }) { resume() }
    }

    /// What keeps the store from being idle now, for a wait (made by this store's asynchronous
    /// work or not) that timed out.
    func busyness(fromAsyncWork: Bool) -> (queued: Int, heldByLocks: Bool, asyncWork: Int) {
        machine.withLock { $0.busyness(fromAsyncWork: fromAsyncWork) }
    }

    /// Remembers that `snapshot` decoded, so that a later failing version can fall back to it.
    func recordRoundTrip(_ snapshot: Snapshot) {
        machine.withLock { $0.recordRoundTrip(snapshot) }
    }

    /// Reports a state that does not round-trip where a developer looks (see ``RuntimeWarning``).
    static func warn(_ error: SnapshotError) {
        let sentence = "\(error)"
        RuntimeWarning.report(
            "\(sentence)\(sentence.hasSuffix(".") ? "" : ".") Readers get the newest state that round-trips until the state changes again; "
                + "observe the store's failures to handle it (only this store's first such state is "
                + "reported here).")
    }

    /// Whether a reader decoded this very snapshot, so that a save need not decode it again.
    func hasRoundTripped(_ snapshot: Snapshot) -> Bool {
        machine.withLock { $0.lastRoundTripped === snapshot }
    }

    /// A reader could not decode `snapshot`: announces it, once per version.
    func snapshotDidNotDecode(_ snapshot: Snapshot, _ error: SnapshotError) {
        perform(machine.withLock { $0.snapshotFailed(snapshot, error) })
    }

    /// The snapshots a failing read falls back on, newest first: the newest that encoded, the
    /// newest that decoded, and the initial one until some version decoded.
    var fallbacks: [Snapshot] {
        machine.withLock { [$0.lastEncoded, $0.lastRoundTripped, $0.initialEncoded].compactMap { $0 } }
    }

    /// Committed state changes so far.
    var committedVersion: UInt64 {
        machine.withLock { $0.version }
    }

    /// Encodes the live state as its current holder, in a scope without a reducing store, so that
    /// `encode(to:)` may read stores without waiting and dispatch normally.
    private func encodeOwnedState(version: UInt64) -> Snapshot {
        StoreCodeScope(reducing: nil, holding: liveState).install { liveState.encodeState(version: version) }
    }

    // MARK: Performing effects

    /// Performs what a transition asked for, outside the lock; returns what the caller does next.
    @inline(__always)
    @discardableResult
    private func perform(_ effects: Machine.Effects) -> Machine.Next {
        if let wakeups = effects.wakeups {
            // The store's own failure is heard before any reader resumes, so that a read waiting
            // for the version that failed returns after it is recorded.
            if let failure = wakeups.storeFailure { storeFailureTap.withLock { $0 }?(failure) }
            if let snapshot = wakeups.snapshot {
                for reader in wakeups.readers { reader.resume(with: snapshot) }
            }
            for dispatcher in wakeups.dispatchers { dispatcher.unblock() }
            if let (reader, version) = wakeups.encoder { reader.resume(encoding: version) }
        }
        if effects.scheduleDrain { scheduleDrain() }
        if effects.scheduleDelivery { scheduleDelivery() }
        if effects.queueIsFull { waitForRoom() }
        return effects.next
    }

    /// Runs ``drain()`` on the reducing queue. The block keeps the store alive until it runs, as it
    /// did when the store scheduled itself: a store with queued actions lives to announce them.
    private func scheduleDrain() {
        let store = store
        reduceQueue.async { withExtendedLifetime(store) { self.drain() } }
    }

    private func scheduleDelivery() {
        let store = store
        deliveryQueue.async { withExtendedLifetime(store) { self.deliver() } }
    }

    /// Runs `body` on the store's delivery thread, in order with its notifications.
    func onDeliveryThread(_ body: @escaping @Sendable () -> Void) {
        let store = store
        deliveryQueue.async { withExtendedLifetime(store) { DeliveringThreadFlag.run(body) } }
    }

    // MARK: Reducing (on the reducing queue, as the holder of the live state)

    /// Reduces queued entries until none are left, then lets go of the state.
    private func drain() {
        var next = perform(machine.withLock { $0.startDrain() })
        guard case .reduce = next else { return }
        let scope = StoreCodeScope(reducing: self, holding: liveState)
        scope.install {
            while true {
                switch next {
                case .reduce(let pass):
                    let announcing = notificationCenter.mayHearChanges
                    liveState.announcesChanges = announcing
                    let reduced = liveState.reduce(pass, scope: scope)
                    let events = announcing ? reduced.events : Self.withoutChanges(reduced.events)
                    next = perform(
                        machine.withLock {
                            $0.finishPass(processed: pass.count, changes: reduced.changes, events: events)
                        })
                case .encode(let version):
                    let snapshot = encodeOwnedState(version: version)
                    next = perform(machine.withLock { $0.drainerDidEncode(snapshot) })
                case .nothing, .read, .waitForSnapshot, .waitForRoom:
                    return
                }
            }
        }
    }

    /// The events of a pass without its changes, when no observer of the store's center could
    /// hear them (see ``StoreNotificationCenter/mayHearChanges``): a store nobody observes builds
    /// no notification and does not go to its delivery thread for a change. Failures always go:
    /// one that nobody hears is still reported there.
    private static func withoutChanges(_ events: [StoreEvent]) -> [StoreEvent] {
        guard !events.isEmpty else { return events }
        return events.filter { if case .changed = $0 { false } else { true } }
    }

    // MARK: Delivering (on the delivery queue)

    /// Posts every undelivered event, in order, to the store's notification center.
    private func deliver() {
        DeliveringThreadFlag.run {
            let events = machine.withLock { $0.takeEvents() }
            guard let store else { return }
            for event in events {
                var notification = event.notification(from: store)
                switch event {
                case .failed(let action, let error, let site):
                    notification.hearing = hearing(action, error, site: site)
                case .snapshotFailed(let error):
                    // Like a failed action's: reported only when no observer hears it, once per store.
                    notification.hearing = FailureHearing { [weak self] in
                        guard
                            self?.reportedFailureKinds.withLock({
                                $0.insert("a state that cannot round-trip").inserted
                            }) == true
                        else { return }
                        Self.warn(error)
                    }
                default:
                    break
                }
                notificationCenter.post(notification)
            }
        }
    }

    // MARK: Priority

    /// Called by the main thread before it blocks until the reducing queue gets somewhere (a read,
    /// a full queue, a transaction): lends the main thread's priority to the work ahead of it.
    ///
    /// A semaphore donates no priority, so the main thread (user-interactive) would wait behind the
    /// store's user-initiated queue: a priority inversion. A block queued on a serial queue at a
    /// higher QoS than the blocks ahead of it raises the queue to that QoS until the block runs, so
    /// an empty one at the main thread's QoS does the lending. It runs on every platform (QoS has
    /// no effect on Linux), so the tests exercise the same path.
    func lendPriorityIfMainThread() {
        guard MainThread.isCurrent else { return }
        machine.withLock { $0.priorityLoans += 1 }
        reduceQueue.async(qos: .userInteractive, flags: .enforceQoS) {}
    }

    // MARK: For tests

    /// Sets the queue's high-water mark (tests lower it).
    func setHighWaterMark(_ mark: Int) {
        precondition(mark > 0, "the high-water mark must be positive")
        machine.withLock { $0.highWaterMark = mark }
    }

    /// Sets the snapshot size from which a waiting reader encodes a new version itself (tests lower
    /// it; see ``StoreMachine/readerEncodingThreshold``).
    func setReaderEncodingThreshold(_ bytes: Int) {
        machine.withLock { $0.readerEncodingThreshold = bytes }
    }

    /// Reads the bookkeeping under the lock (tests use it to wait for a state of the store).
    func inspect<Result>(_ body: (Machine) -> Result) -> Result {
        machine.withLock { body($0) }
    }
}

/// A thread blocked on a store: a reader until a snapshot that covers its target is published (or
/// the drainer hands it the state to encode that snapshot itself), or a dispatcher until the
/// drainer takes the entries of a full queue (which uses only `unblock()` and
/// `waitUntilUnblocked()`).
///
/// `@unchecked Sendable`: `resumption` is written once, before `semaphore.signal()`, and read only
/// after `semaphore.wait()` returns, which orders the two.
final class Waiter: @unchecked Sendable {
    /// What a reader does once resumed.
    enum Resumption {
        /// Reads this snapshot.
        case read(Snapshot)
        /// Holds the state: encodes this version and publishes it as the snapshotter.
        case encode(version: UInt64)
    }

    private let semaphore = DispatchSemaphore(value: 0)
    private var resumption: Resumption?

    func resume(with snapshot: Snapshot) {
        resumption = .read(snapshot)
        semaphore.signal()
    }

    func resume(encoding version: UInt64) {
        resumption = .encode(version: version)
        semaphore.signal()
    }

    func wait() -> Resumption {
        semaphore.wait()
        guard let resumption else { preconditionFailure("a reader was resumed with nothing to read") }
        return resumption
    }

    func unblock() {
        semaphore.signal()
    }

    func waitUntilUnblocked() {
        semaphore.wait()
    }
}

/// A place in a store's queue: the holder of the state calls `reached` when it gets there, and
/// forgets it. A thread that waits for the queue, and a wait until idle, mark their place so.
final class PlaceInQueue: StateWatcher {
    let reached: @Sendable () -> Void

    init(reached: @escaping @Sendable () -> Void) {
        self.reached = reached
    }

    func activate(on state: StatePointer) -> Bool {
        reached()
        return false
    }

    func select(from state: StatePointer) -> Bool {
        false
    }

    func storeDidEnd() {}

    func hasEnded() -> Bool { true }
}

import Foundation

/// The store's bookkeeping: a pure, synchronous state machine with no locks, threads or user code.
///
/// `Store` keeps one of these behind a lock and performs what each transition returns (schedule a
/// drain, encode, wake readers, schedule a delivery) after releasing the lock. Keeping the rules
/// here makes them testable without threads.
///
/// The live state has exactly one **holder** at a time: nobody, the drainer (reducing on the
/// store's queue) or a snapshotter (a reader encoding an idle store). Only the holder touches it.
/// Readers ask for a ``Snapshot`` that covers every entry enqueued before they asked; they use the
/// published one when it is current, encode the state themselves when the store is idle, and
/// otherwise wait for the holder to publish. A drainer that reaches a waiting reader encodes for
/// it, or, when the state is large, hands it the state to encode itself (see
/// ``readerEncodingThreshold``).
struct StoreMachine<Entry, Waiter> {
    enum Holder: Equatable {
        case nobody
        case drainer
        case snapshotter
    }

    /// What the thread that made a transition does next.
    enum Next {
        /// Nothing: return.
        case nothing
        /// Reduce this pass (the caller holds the state), then report ``finishPass(processed:changes:events:)``.
        case reduce([Entry])
        /// Encode the state (the caller holds it) at this version, then report
        /// ``drainerDidEncode(_:)`` or ``snapshotterDidEncode(_:)``.
        case encode(version: UInt64)
        /// A reader: this snapshot is current enough.
        case read(Snapshot)
        /// A reader: wait until this waiter is resumed; the snapshot comes with the resumption.
        case waitForSnapshot(Waiter)
        /// A dispatcher: wait until this waiter is unblocked, when the drainer takes the full queue.
        case waitForRoom(Waiter)
    }

    /// What a transition asks for, performed by the caller after the lock is released: every
    /// transition that can lead to work answers in this one shape.
    struct Effects {
        /// What the caller does next.
        var next = Next.nothing
        /// Threads to wake; `nil` in the common case, so that the effects of a plain dispatch hold
        /// nothing to release.
        var wakeups: Wakeups?
        /// Schedule a drain on the store's queue.
        var scheduleDrain = false
        /// Schedule a delivery on the store's delivery queue.
        var scheduleDelivery = false
        /// The entry just queued filled the queue: a dispatcher that may wait calls
        /// ``blockUntilTaken(makeWaiter:)`` (see ``isFull``).
        var queueIsFull = false

        /// Readers to wake, each with ``snapshot``.
        var resumed: [Waiter] { wakeups?.readers ?? [] }
        /// The snapshot the resumed readers receive.
        var snapshot: Snapshot? { wakeups?.snapshot }
        /// Dispatchers blocked by a full queue, to wake: the drainer took the entries they waited on.
        var unblocked: [Waiter] { wakeups?.dispatchers ?? [] }
        /// The waiting reader the drainer handed the state to, to wake to encode this version.
        var handedOver: (reader: Waiter, version: UInt64)? { wakeups?.encoder }
        /// The failure of the store itself this transition announced, if any.
        var storeFailure: (any Error)? { wakeups?.storeFailure }

        /// Carries `storeFailure` to the caller, who tells the store's failure tap.
        mutating func announce(storeFailure: any Error) {
            let carried = wakeups ?? Wakeups()
            carried.storeFailure = storeFailure
            wakeups = carried
        }
    }

    /// Threads a transition wakes. A class, so that effects that wake nobody (a plain dispatch's)
    /// hold one null reference: their copies and destruction stay a few instructions.
    final class Wakeups {
        var readers: [Waiter] = []
        var snapshot: Snapshot?
        var dispatchers: [Waiter] = []
        /// A waiting reader that now holds the state, and the version it encodes before it reports
        /// ``snapshotterDidEncode(_:)``.
        var encoder: (reader: Waiter, version: UInt64)?
        /// A failure of the store itself just announced, with no action: a lock freed without being
        /// released, or a state that cannot round-trip (see ``StoreKernel/storeFailureTap``).
        var storeFailure: (any Error)?
    }

    /// The default ``highWaterMark``: 16,384 entries, about 0.8 MB of queue.
    static var defaultHighWaterMark: Int { 16_384 }
    /// The capacity, in entries, the queue keeps once a drain finishes; a larger buffer, left by a
    /// burst, is released then, so that an idle store holds nothing extra while a steady stream
    /// of dispatches does not reallocate it.
    static var retainedCapacity: Int { 1_024 }

    private var pending: [Entry] = []
    /// Entries reduced even while locked, ahead of `pending`: those dispatched before the locks
    /// that are held were taken, and those dispatched through a lock.
    private var exclusive: [Entry] = []
    /// The dispatch locks held, oldest first: each one's identifier, and how many entries at the
    /// front of `pending` were queued before it was taken (it does not hold those). While any lock
    /// is held, `pending` holds only entries that some held lock was taken before.
    private var locks: [(id: UInt64, heldFrom: Int)] = []
    private var nextLockID: UInt64 = 0
    /// Changes to the middleware chain made while locks held entries queued before them, oldest
    /// first, each with how many entries at the front of `pending` were queued before it: the
    /// change passed the locks, and those entries, once let through, see the chain as it was
    /// before it (see ``enqueueChainChange(_:)``).
    private var heldChainChanges: [(change: ChainChange, heldBefore: Int)] = []
    /// Entries ever enqueued; a reader's target is this count when it asks.
    private(set) var enqueuedCount: UInt64 = 0
    /// Entries ever reduced, successfully or not.
    private(set) var processedCount: UInt64 = 0
    /// Committed state changes.
    private(set) var version: UInt64 = 0
    private(set) var holder = Holder.nobody
    private(set) var isDrainScheduled = false
    /// The newest encoded version.
    private(set) var published: Snapshot {
        didSet {
            guard case .success = published.result else { return }
            lastEncoded = published
            if let failed = announcedFailure, published.version > failed { isFailingToRoundTrip = false }
        }
    }
    /// The newest version whose failure to round-trip was announced: each is announced once.
    private var announcedFailure: UInt64?
    /// Whether the versions since the last announced failure failed too: a stretch of versions
    /// that cannot round-trip is announced once, however the drains grouped them.
    private var isFailingToRoundTrip = false
    /// The newest snapshot that encoded, decoded or not yet: a fallback for a later version that
    /// cannot be encoded, even when no reader has decoded anything yet.
    private(set) var lastEncoded: Snapshot?
    /// The newest snapshot some reader decoded successfully.
    private(set) var lastRoundTripped: Snapshot? {
        // Once a version has round-tripped, it is a newer fallback than the initial state.
        didSet { initialEncoded = nil }
    }
    /// The initial state's snapshot, until a reader decodes some version: the last fallback of a
    /// read whose version encodes but does not decode, when no version was read before.
    private(set) var initialEncoded: Snapshot?
    private var waiters: [(target: UInt64, waiter: Waiter)] = []
    /// Readers waiting for queued entries, for tests that need a reader to be waiting.
    var waitingReaderCount: Int { waiters.count }
    /// How often a main thread lent its priority to the store's queue before waiting for it (see
    /// `Store.lendPriorityIfMainThread()`), for the tests: QoS cannot be observed on Linux.
    var priorityLoans = 0
    /// The size of snapshot, in bytes, from which a drainer that reaches a waiting reader hands it
    /// the state to encode instead of encoding it itself: when the newest snapshot that encoded is
    /// at least this large (tests lower it).
    ///
    /// The reader decodes what it waited for on its own thread either way. Encoding there too
    /// keeps a large state's encoding and decoding work space in one place: `JSONEncoder` builds a
    /// tree of the whole state (four times the JSON), and glibc's allocator keeps what a thread
    /// frees at the end of a thread's arena, where `malloc_trim` does not reach, for that thread's
    /// next allocations. Encoded by the reducing queue's threads, whichever ran the drain, each of
    /// their arenas kept up to a tree's worth of memory resident beside the reader's, and the next
    /// encoding on another thread could not reuse it.
    var readerEncodingThreshold = MemoryRelease.threshold
    /// How many pending entries make the queue full: a dispatcher that may wait, and queues an entry
    /// that brings `pending` to this count while no lock holds it, waits until the drainer takes
    /// them (see ``isFull``). Bounds the queue under a tight loop of dispatches.
    var highWaterMark = Self.defaultHighWaterMark
    /// Dispatchers waiting for the drainer to take the pending entries.
    private var blockedDispatchers: [Waiter] = []
    /// Dispatchers the drainer unblocked by taking the pending entries, until the caller takes them.
    private var unblockedDispatchers: [Waiter] = []
    private var undelivered: [StoreEvent] = []
    private(set) var isDeliveryScheduled = false
    /// Asynchronous actions of this store whose work is running, each by its run: each may
    /// dispatch more.
    private var runningWork: Set<ObjectIdentifier> = []
    /// For each asynchronous work of this store that waits, how many of its waits are open: waits
    /// until idle made by its tasks (those it left behind included), and awaits of the end of
    /// another action's work on this store. Work that waits dispatches nothing until its waits end.
    private var waitsOfWork: [ObjectIdentifier: Int] = [:]
    /// Deliveries to observers on the delivery thread that the registering thread holds, while
    /// it delivers the first value, until it hands them to the delivery thread.
    private var heldDeliveries = 0
    /// Entries that only mark a place in the queue for a wait until the store is idle; they are
    /// not work, so that two such waits never keep each other waiting.
    private var idleBarriers: UInt64 = 0
    /// Those marks still queued, not yet reached by the holder of the state.
    private var queuedIdleBarriers = 0
    /// Waits until the store is idle that found asynchronous work running or a delivery held, by
    /// wait: they look again once some work ends or starts waiting, or a held delivery is handed
    /// over. A wait that ends leaves (see ``idleWaitEnded(_:)``).
    private var parkedIdleWaits: [ObjectIdentifier: @Sendable () -> Void] = [:]
    /// The marks of waits until idle still queued, by mark: the work queued before the mark, and
    /// what each wait sharing it calls when the owner reaches it. A wait that ends leaves.
    private var idleMarks: [UInt64: (work: UInt64, waits: [ObjectIdentifier: @Sendable (UInt64) -> Void])] =
        [:]
    /// The newest mark, while nothing was queued after it: a new wait shares it, so that waits
    /// repeated while a lock holds the store add nothing to its queue.
    private var newestIdleMark: (id: UInt64, enqueuedCount: UInt64, work: UInt64)?
    /// The mark each waiting wait is registered with, to leave it at once when it ends.
    private var markOfWait: [ObjectIdentifier: UInt64] = [:]
    private var nextIdleMark: UInt64 = 0
    /// The action types found not to be ``AsyncAction``s, for dispatches from outside store code.
    var actionTypes = ActionTypes()

    init(initialSnapshot: Snapshot) {
        published = initialSnapshot
        if case .success = initialSnapshot.result {
            lastEncoded = initialSnapshot
            initialEncoded = initialSnapshot
        }
    }

    // MARK: Dispatch

    /// How an entry joins the queue.
    enum Admission {
        /// Behind every pending entry, held by the dispatch locks taken before it.
        case pending
        /// Through the dispatch locks: ahead of what they hold, behind earlier entries that pass them.
        case passingLocks
        /// Behind the other pending entries while no lock is held, through the locks otherwise:
        /// for entries that no lock may hold (a transaction's part, a recording's start or stop).
        case neverHeld
    }

    /// Queues an entry.
    @inline(__always)
    mutating func enqueue(_ entry: consuming Entry, _ admission: Admission = .pending) -> Effects {
        switch admission {
        case .pending: pending.append(entry)
        case .passingLocks: exclusive.append(entry)
        case .neverHeld:
            if lockCount == 0 { pending.append(entry) } else { exclusive.append(entry) }
        }
        enqueuedCount += 1
        var effects = Effects()
        effects.scheduleDrain = scheduleDrainIfIdle()
        effects.queueIsFull = isFull
        return effects
    }

    /// A change to the middleware chain, with the entries that undo and redo it for actions queued
    /// before it that a lock held while it was made.
    struct ChainChange {
        /// The change, when no lock holds an entry queued before it.
        var plain: Entry
        /// The change, when locks hold entries queued before it: made now, ahead of them, in a
        /// form that ``revert`` can undo.
        var passing: Entry
        /// Undoes ``passing`` for the held entries queued before it.
        var revert: Entry
        /// Makes it again after some of them, when others are still held.
        var reinstate: Entry
        /// Makes it again after the last of them, for good.
        var finish: Entry
    }

    /// Queues a change to the middleware chain so that it takes effect for exactly the entries
    /// queued after it, in whatever order the locks let them through: behind the pending entries
    /// when no lock is held; otherwise through the locks, ahead of what they hold (so that an
    /// entry dispatched through a lock afterwards sees it), while the held entries queued before
    /// it see the chain without it: when a lock lets them through, the change is undone ahead of
    /// them and made again after them.
    mutating func enqueueChainChange(_ change: ChainChange) -> Effects {
        guard lockCount > 0 else { return enqueue(change.plain, .pending) }
        guard !pending.isEmpty else { return enqueue(change.plain, .passingLocks) }
        heldChainChanges.append((change, pending.count))
        return enqueue(change.passing, .passingLocks)
    }

    /// Lets the first `count` pending entries through, with the chain each was queued with (see
    /// ``enqueueChainChange(_:)``).
    private mutating func letThrough(_ count: Int) {
        guard !heldChainChanges.isEmpty else {
            exclusive.append(contentsOf: pending[..<count])
            pending.removeFirst(count)
            return
        }
        let before = exclusive.count
        for held in heldChainChanges.reversed() { exclusive.append(held.change.revert) }
        var position = 0
        var stillHeld: [(change: ChainChange, heldBefore: Int)] = []
        // Oldest first: `heldBefore` never decreases from older changes to newer ones.
        for held in heldChainChanges {
            let end = min(held.heldBefore, count)
            exclusive.append(contentsOf: pending[position..<end])
            position = end
            if held.heldBefore <= count {
                exclusive.append(held.change.finish)
            } else {
                exclusive.append(held.change.reinstate)
                stillHeld.append((held.change, held.heldBefore - count))
            }
        }
        exclusive.append(contentsOf: pending[position..<count])
        pending.removeFirst(count)
        heldChainChanges = stillHeld
        // The undoing and redoing entries are entries like the others: reduced, so counted.
        enqueuedCount += UInt64(exclusive.count - before - count)
    }

    // MARK: Back-pressure

    /// Whether the queue is full: a dispatcher that just queued an entry should call
    /// ``blockUntilTaken(makeWaiter:)``. Never while a lock holds the pending entries, which no
    /// wait could drain. While this holds, the pending entries are reducible, so a drain is
    /// scheduled or a holder will take them when it is done.
    var isFull: Bool { lockCount == 0 && pending.count >= highWaterMark }

    /// Blocks a dispatcher until the drainer takes the pending entries, if the queue is still full
    /// (`next` is then ``Next/waitForRoom(_:)``).
    mutating func blockUntilTaken(makeWaiter: () -> Waiter) -> Effects {
        var effects = Effects()
        guard isFull else { return effects }
        let waiter = makeWaiter()
        blockedDispatchers.append(waiter)
        effects.next = .waitForRoom(waiter)
        return effects
    }

    /// Hands over the dispatchers unblocked since the last call, to wake outside the lock.
    private mutating func takeUnblockedDispatchers() -> [Waiter] {
        guard !unblockedDispatchers.isEmpty else { return [] }
        defer { unblockedDispatchers = [] }
        return unblockedDispatchers
    }

    /// The capacity of the queue of pending entries (tests read it).
    var pendingCapacity: Int { pending.capacity }

    /// Dispatchers waiting for room (tests read it).
    var blockedDispatcherCount: Int { blockedDispatchers.count }

    // MARK: Locks

    /// Dispatch locks held; while any is, the entries dispatched after it was taken wait.
    var lockCount: Int { locks.count }

    /// Holds every entry dispatched from now on until this lock is released (and each entry until
    /// every lock taken before it is); entries already queued are not held by it. Returns the
    /// lock's identifier, for `unlock(_:)`.
    mutating func lock() -> UInt64 {
        if locks.isEmpty, !pending.isEmpty {
            assert(heldChainChanges.isEmpty, "a chain change outlived the locks that held entries before it")
            exclusive.append(contentsOf: pending)
            pending.removeAll(keepingCapacity: true)
        }
        nextLockID += 1
        locks.append((nextLockID, pending.count))
        return nextLockID
    }

    /// Releases the lock `id`, and lets through the entries that no lock still held was taken
    /// before.
    mutating func unlock(_ id: UInt64) -> Effects {
        guard let index = locks.firstIndex(where: { $0.id == id }) else {
            preconditionFailure("a dispatch lock was released more often than taken")
        }
        locks.remove(at: index)
        // `heldFrom` never decreases from older locks to newer ones, and the oldest lock holds
        // every entry from its own on: what lies before the oldest lock left is held by none.
        if let oldest = locks.first, oldest.heldFrom > 0 {
            let released = oldest.heldFrom
            letThrough(released)
            for position in locks.indices { locks[position].heldFrom -= released }
        } else if locks.isEmpty, !heldChainChanges.isEmpty {
            letThrough(pending.count)
        }
        var effects = Effects()
        effects.scheduleDrain = scheduleDrainIfIdle()
        return effects
    }

    /// Releases a lock nobody released, and queues the report.
    mutating func abandonLock(_ id: UInt64, report: DispatchLock.ReleaseError) -> Effects {
        var effects = unlock(id)
        effects.scheduleDelivery = append([.lockAbandoned(report)])
        effects.announce(storeFailure: report)
        return effects
    }

    /// Called by a scheduled drain: takes the state and the pending entries (`next` is
    /// ``Next/reduce(_:)``), unless another holder has the state (it schedules a drain when it is
    /// done) or nothing is pending.
    mutating func startDrain() -> Effects {
        isDrainScheduled = false
        var effects = Effects()
        guard holder == .nobody, hasReducibleEntries else { return effects }
        holder = .drainer
        effects.next = .reduce(takePending())
        effects.wakeUp(dispatchers: takeUnblockedDispatchers())
        return effects
    }

    /// Records a reduced pass and says what the drainer does next.
    /// - Parameters:
    ///   - processed: Entries in the pass.
    ///   - changes: State changes the pass committed.
    ///   - events: Notifications to post, in order.
    mutating func finishPass(processed: Int, changes: Int, events: [StoreEvent]) -> Effects {
        precondition(holder == .drainer, "finishPass called by a drainer that does not hold the state")
        processedCount += UInt64(processed)
        version += UInt64(changes)
        var effects = Effects()
        effects.scheduleDelivery = append(events)
        return continueDraining(effects)
    }

    /// Publishes what the drainer encoded and says what it does next.
    mutating func drainerDidEncode(_ snapshot: Snapshot) -> Effects {
        precondition(holder == .drainer, "drainerDidEncode called by a drainer that does not hold the state")
        published = snapshot
        guard case .failure(let error) = snapshot.result else { return continueDraining(Effects()) }
        return continueDraining(snapshotFailed(snapshot, error))
    }

    /// Queues the announcement that `snapshot` does not round-trip, unless this version's failure
    /// (or a newer one's) was announced already, or the versions published since the last one
    /// announced all failed: the encoder fails once per version, while every reader of a version
    /// that does not decode fails again, and a drain encodes only the newest of the versions it
    /// reduced, so announcing each failing version would announce a varying number.
    mutating func snapshotFailed(_ snapshot: Snapshot, _ error: SnapshotError) -> Effects {
        var effects = Effects()
        guard announcedFailure.map({ snapshot.version > $0 }) ?? true else { return effects }
        announcedFailure = snapshot.version
        guard !isFailingToRoundTrip else { return effects }
        isFailingToRoundTrip = true
        effects.scheduleDelivery = append([.snapshotFailed(error)])
        effects.announce(storeFailure: error)
        return effects
    }

    private mutating func continueDraining(_ effects: Effects) -> Effects {
        var effects = effects
        resumeSatisfiedWaiters(&effects)
        if published.version != version,
            let reader = waiters.firstIndex(where: { $0.target <= processedCount })
        {
            guard readerEncodes else {
                effects.next = .encode(version: version)
                return effects
            }
            // The reader encodes and publishes as a snapshotter, and schedules a drain for what
            // is left.
            holder = .snapshotter
            let wakeups = effects.wakeups ?? Wakeups()
            wakeups.encoder = (waiters.remove(at: reader).waiter, version)
            effects.wakeups = wakeups
            return effects
        }
        if hasReducibleEntries {
            effects.next = .reduce(takePending())
            effects.wakeUp(dispatchers: takeUnblockedDispatchers())
            return effects
        }
        holder = .nobody
        // What a burst left: released now, not when the next dispatch comes.
        if pending.isEmpty, pending.capacity > Self.retainedCapacity {
            pending = []
        }
        return effects
    }

    // MARK: Reading

    /// Starts a read.
    /// - Parameters:
    ///   - waiting: `false` inside a reducer or an encode: use the published snapshot whatever its
    ///     age, because waiting there could wait for the caller itself.
    ///   - makeWaiter: Creates the waiter when the reader has to wait.
    mutating func beginRead(waiting: Bool, makeWaiter: () -> Waiter) -> Effects {
        var effects = Effects()
        guard waiting else {
            effects.next = .read(published)
            return effects
        }
        // Entries held by a lock are not waited for: they may wait for this very reader.
        let target = lockCount > 0 ? enqueuedCount - UInt64(pending.count) : enqueuedCount
        if processedCount >= target {
            if published.version == version {
                effects.next = .read(published)
                return effects
            }
            if holder == .nobody {
                holder = .snapshotter
                effects.next = .encode(version: version)
                return effects
            }
        }
        let waiter = makeWaiter()
        waiters.append((target, waiter))
        effects.next = .waitForSnapshot(waiter)
        return effects
    }

    /// Publishes what a snapshotter encoded and gives the state back.
    mutating func snapshotterDidEncode(_ snapshot: Snapshot) -> Effects {
        precondition(
            holder == .snapshotter, "snapshotterDidEncode called by a reader that does not hold the state")
        published = snapshot
        holder = .nobody
        var effects = Effects()
        if case .failure(let error) = snapshot.result { effects = snapshotFailed(snapshot, error) }
        resumeSatisfiedWaiters(&effects)
        effects.scheduleDrain = scheduleDrainIfIdle()
        return effects
    }

    /// Remembers that `snapshot` decoded, so that a later failing version can fall back to it.
    mutating func recordRoundTrip(_ snapshot: Snapshot) {
        if lastRoundTripped.map({ snapshot.version > $0.version }) ?? true {
            lastRoundTripped = snapshot
        }
    }

    // MARK: Delivery

    /// Hands the delivery thread every undelivered event, oldest first.
    mutating func takeEvents() -> [StoreEvent] {
        isDeliveryScheduled = false
        defer { undelivered.removeAll() }
        return undelivered
    }

    /// Appends events, merging a change into an undelivered change just before it (coalescing).
    /// Returns whether a delivery must be scheduled.
    private mutating func append(_ events: [StoreEvent]) -> Bool {
        for event in events {
            if case .changed(let runs) = event {
                undelivered.appendChange(runs)
            } else {
                undelivered.append(event)
            }
        }
        guard !undelivered.isEmpty, !isDeliveryScheduled else { return false }
        isDeliveryScheduled = true
        return true
    }

    // MARK: Idle

    /// Entries queued so far that are work, not places marked by waits until idle.
    var workEnqueued: UInt64 { enqueuedCount - idleBarriers }

    /// Queues the mark of the wait until idle `wait`, made from the work queued so far, behind
    /// every pending entry (held by the dispatch locks as they are), unless the wait has ended;
    /// when nothing was queued since the newest mark, the wait shares that one instead. `reached`
    /// gets the work queued before the mark once the holder of the state reaches it;
    /// `makeEntry` makes the mark's entry from its identifier, for ``idleMarkReached(_:)``.
    mutating func enqueueIdleMark(
        for wait: ObjectIdentifier, isWanted: () -> Bool, reached: @escaping @Sendable (UInt64) -> Void,
        makeEntry: (_ mark: UInt64) -> Entry
    ) -> Effects {
        guard isWanted() else { return Effects() }
        if let newest = newestIdleMark, newest.enqueuedCount == enqueuedCount {
            idleMarks[newest.id, default: (newest.work, [:])].waits[wait] = reached
            markOfWait[wait] = newest.id
            return Effects()
        }
        let id = nextIdleMark
        nextIdleMark += 1
        let work = workEnqueued
        idleMarks[id] = (work, [wait: reached])
        markOfWait[wait] = id
        idleBarriers += 1
        queuedIdleBarriers += 1
        var effects = enqueue(makeEntry(id), .pending)
        // A wait never blocks for room: it queues one entry, and may run on the cooperative pool.
        effects.queueIsFull = false
        newestIdleMark = (id, enqueuedCount, work)
        return effects
    }

    /// The holder of the state reached the mark `id`: returns the work queued before it and what
    /// the waits sharing it call.
    mutating func idleMarkReached(_ id: UInt64) -> (work: UInt64, reached: [@Sendable (UInt64) -> Void]) {
        queuedIdleBarriers -= 1
        if newestIdleMark?.id == id { newestIdleMark = nil }
        guard let mark = idleMarks.removeValue(forKey: id) else { return (0, []) }
        for wait in mark.waits.keys { markOfWait[wait] = nil }
        return (mark.work, Array(mark.waits.values))
    }

    /// What the store keeps for waits until idle: the marks queued, the waits registered with
    /// them, the parked waits, and the callbacks the marks hold.
    var idleWaitsKept: (marks: Int, waits: Int, parked: Int, markedWaits: Int) {
        (
            queuedIdleBarriers, markOfWait.count, parkedIdleWaits.count,
            idleMarks.values.reduce(0) { $0 + $1.waits.count }
        )
    }

    /// The wait until idle `wait` ended (idle, timed out or cancelled): nothing of it stays behind,
    /// however long the store stays busy.
    mutating func idleWaitEnded(_ wait: ObjectIdentifier) {
        if let id = markOfWait.removeValue(forKey: wait) {
            idleMarks[id]?.waits[wait] = nil
            // A mark no wait needs any more keeps only its small entry in the queue.
            if idleMarks[id]?.waits.isEmpty == true { idleMarks[id] = nil }
        }
        parkedIdleWaits[wait] = nil
    }

    /// Queued entries that are work, not marks of waits until idle.
    private var queuedWork: Int { pending.count + exclusive.count - queuedIdleBarriers }

    /// Asynchronous work of an action started; `work` names its run.
    mutating func asyncWorkStarted(_ work: ObjectIdentifier) {
        runningWork.insert(work)
    }

    /// Asynchronous work ended, after queuing what it dispatched; returns the waits until idle
    /// that found work running, to look again (the work they wait for may be what is left).
    mutating func asyncWorkEnded(_ work: ObjectIdentifier) -> [@Sendable () -> Void] {
        runningWork.remove(work)
        return takeParkedIdleWaits()
    }

    /// A wait of the asynchronous work `work` of this store opens (`true`) or ends; returns the
    /// waits to look again (one may have waited for this work alone).
    mutating func asyncWork(_ work: ObjectIdentifier, waits: Bool) -> [@Sendable () -> Void] {
        let open = (waitsOfWork[work] ?? 0) + (waits ? 1 : -1)
        waitsOfWork[work] = open > 0 ? open : nil
        return takeParkedIdleWaits()
    }

    /// A registering thread holds a delivery to the delivery thread (`true`), or handed it over.
    mutating func deliveryHeld(_ held: Bool) -> [@Sendable () -> Void] {
        heldDeliveries += held ? 1 : -1
        return held ? [] : takeParkedIdleWaits()
    }

    private mutating func takeParkedIdleWaits() -> [@Sendable () -> Void] {
        guard !parkedIdleWaits.isEmpty else { return [] }
        defer { parkedIdleWaits.removeAll() }
        return Array(parkedIdleWaits.values)
    }

    /// How a wait until idle stands, once its mark was reduced and every delivery to the delivery
    /// thread scheduled before was made.
    enum IdleCheck {
        /// Nothing was queued since the mark, nothing waits for delivery, no work runs.
        case idle
        /// Something was queued since the mark, or waits: mark the queue again.
        case busy
        /// Asynchronous work runs, or a delivery is held: the wait looks again when that changes.
        case parked
    }

    /// Checks a wait until idle that marked the queue when `work` entries were queued.
    /// - Parameters:
    ///   - fromAsyncWork: Whether the waiter is this store's asynchronous work (or a task it left
    ///     behind), which does not wait for work that waits: that work dispatches nothing until its
    ///     waits end. Its own work waits, by this very wait.
    ///   - wait: The wait, which leaves the parked waits when it ends.
    ///   - isWanted: Whether the wait still waits; one that does not is not parked.
    ///   - resume: Called when some asynchronous work has ended or started waiting, or a held
    ///     delivery was handed over.
    mutating func checkIdle(
        since work: UInt64, fromAsyncWork: Bool, wait: ObjectIdentifier, isWanted: () -> Bool,
        resume: @escaping @Sendable () -> Void
    ) -> IdleCheck {
        // Other waits' marks may be queued: they are not work, or two waits would keep each other
        // busy.
        guard workEnqueued == work, queuedWork == 0, undelivered.isEmpty, !isDeliveryScheduled else {
            return .busy
        }
        guard heldDeliveries == 0, busyWork(fromAsyncWork: fromAsyncWork) == 0 else {
            // Checked under this lock: a wait that ended (see ``idleWaitEnded(_:)``) stays out.
            if isWanted() { parkedIdleWaits[wait] = resume }
            return .parked
        }
        return .idle
    }

    /// The running asynchronous work a wait waits for: all of it, or for a wait made by this
    /// store's asynchronous work, the work that does not wait.
    private func busyWork(fromAsyncWork: Bool) -> Int {
        guard fromAsyncWork else { return runningWork.count }
        return runningWork.reduce(0) { count, work in waitsOfWork[work] == nil ? count + 1 : count }
    }

    /// What keeps the store from being idle now, for a wait that timed out: the work queued, whether
    /// a dispatch lock holds some entry (the wait's own mark included), and the running
    /// asynchronous work the wait waits for.
    func busyness(fromAsyncWork: Bool) -> (queued: Int, heldByLocks: Bool, asyncWork: Int) {
        (queuedWork, lockCount > 0 && !pending.isEmpty, busyWork(fromAsyncWork: fromAsyncWork))
    }

    // MARK: Helpers

    /// Whether a drainer hands the encoding of a new version to a waiting reader: whether the
    /// newest snapshot that encoded is at least ``readerEncodingThreshold`` bytes.
    private var readerEncodes: Bool {
        guard case .success(let data)? = lastEncoded?.result else { return false }
        return data.count >= readerEncodingThreshold
    }

    private mutating func scheduleDrainIfIdle() -> Bool {
        guard holder == .nobody, !isDrainScheduled, hasReducibleEntries else { return false }
        isDrainScheduled = true
        return true
    }

    /// Whether there is something to reduce now: exclusive entries, or pending ones when unlocked.
    private var hasReducibleEntries: Bool {
        !exclusive.isEmpty || (lockCount == 0 && !pending.isEmpty)
    }

    /// Hands over the entries to reduce: exclusive ones first, then the pending ones unless a lock
    /// holds them, and unblocks the dispatchers waiting for room. The new queue starts with the
    /// capacity of the pass taken (up to the high-water mark), so that a steady stream of
    /// dispatches does not regrow it from empty after every pass.
    private mutating func takePending() -> [Entry] {
        if !blockedDispatchers.isEmpty {
            unblockedDispatchers.append(contentsOf: blockedDispatchers)
            blockedDispatchers.removeAll()
        }
        if !exclusive.isEmpty {
            var pass: [Entry] = []
            swap(&pass, &exclusive)
            if lockCount == 0 {
                pass.append(contentsOf: pending)
                pending.removeAll(keepingCapacity: true)
            }
            return pass
        }
        var pass: [Entry] = []
        pass.reserveCapacity(min(pending.count, highWaterMark))
        swap(&pass, &pending)
        return pass
    }

    /// Wakes every waiter whose target is processed, when the published snapshot is current.
    private mutating func resumeSatisfiedWaiters(_ effects: inout Effects) {
        guard published.version == version, !waiters.isEmpty else { return }
        var resumed: [Waiter] = []
        var stillWaiting: [(target: UInt64, waiter: Waiter)] = []
        for entry in waiters {
            if entry.target <= processedCount {
                resumed.append(entry.waiter)
            } else {
                stillWaiting.append(entry)
            }
        }
        waiters = stillWaiting
        guard !resumed.isEmpty else { return }
        let wakeups = effects.wakeups ?? Wakeups()
        wakeups.readers = resumed
        wakeups.snapshot = published
        effects.wakeups = wakeups
    }
}

extension StoreMachine.Effects {
    /// Adds dispatchers to wake.
    fileprivate mutating func wakeUp(dispatchers: [Waiter]) {
        guard !dispatchers.isEmpty else { return }
        let wakeups = self.wakeups ?? StoreMachine.Wakeups()
        wakeups.dispatchers.append(contentsOf: dispatchers)
        self.wakeups = wakeups
    }
}

extension Array where Element == StoreEvent {
    /// Appends committed runs, into the change event at the end when there is one (coalescing).
    ///
    /// Amortized O(runs): the last event's array is taken out of the enum before it grows, so that
    /// it is uniquely referenced and grows in place. Copying it on every append made a pass of many
    /// small runs (each action a middleware passes on is one) quadratic.
    mutating func appendChange(_ runs: [ActionRun]) {
        guard let last = indices.last, case .changed(var earlier) = self[last] else {
            append(.changed(runs))
            return
        }
        self[last] = .changed([])
        earlier.append(contentsOf: runs)
        self[last] = .changed(earlier)
    }
}

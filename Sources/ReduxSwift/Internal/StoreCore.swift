/// A store's `StoreMachine` behind its lock, with one method per transition.
///
/// Not generic on purpose. `Store` is generic over the client's state and runs unspecialized, and
/// calling `LockedValue<StoreMachine<…>>.withLock` from there instantiated that type's metadata on
/// every dispatch, which cost more than the rest of the dispatch. A concrete class keeps every
/// call concrete.
final class StoreCore: Sendable {
    typealias Machine = StoreMachine<PendingEntry, SnapshotWaiter>

    private let machine: LockedValue<Machine>

    init(initialSnapshot: Snapshot) {
        machine = LockedValue(Machine(initialSnapshot: initialSnapshot))
    }

    /// Queues an entry; returns whether to schedule a drain, and whether the queue is full (the
    /// caller waits with ``waitUntilTaken()`` where it may; see `StoreMachine.isFull`).
    func enqueue(_ entry: consuming PendingEntry) -> (scheduleDrain: Bool, isFull: Bool) {
        var entry = Optional(entry)
        return machine.withLock { machine in
            let scheduleDrain = machine.enqueue(entry.take()!)
            return (scheduleDrain, machine.isFull)
        }
    }

    /// Waits until the drainer takes the pending entries, if the queue is still full.
    func waitUntilTaken() {
        machine.withLock { $0.blockUntilTaken(makeWaiter: SnapshotWaiter.init) }?.waitUntilUnblocked()
    }

    /// Sets the queue's high-water mark (tests lower it).
    func setHighWaterMark(_ mark: Int) {
        precondition(mark > 0, "the high-water mark must be positive")
        machine.withLock { $0.highWaterMark = mark }
    }

    /// The capacity of the queue of pending entries (tests read it).
    var pendingCapacity: Int {
        machine.withLock { $0.pendingCapacity }
    }

    /// Dispatchers waiting for room (tests read it).
    var blockedDispatcherCount: Int {
        machine.withLock { $0.blockedDispatcherCount }
    }

    /// Entries queued and not yet reduced, including the batch being reduced (tests read it).
    var queuedCount: Int {
        machine.withLock { Int($0.enqueuedCount - $0.processedCount) }
    }

    func enqueueExclusive(_ entry: consuming PendingEntry) -> Bool {
        var entry = Optional(entry)
        return machine.withLock { $0.enqueueExclusive(entry.take()!) }
    }

    func enqueuePassingLocks(_ entry: consuming PendingEntry) -> Bool {
        var entry = Optional(entry)
        return machine.withLock { $0.enqueuePassingLocks(entry.take()!) }
    }

    func lock() -> UInt64 {
        machine.withLock { $0.lock() }
    }

    func unlock(_ id: UInt64) -> Bool {
        machine.withLock { $0.unlock(id) }
    }

    func abandonLock(_ id: UInt64, report: DispatchLockError) -> Machine.Effects {
        machine.withLock { $0.abandonLock(id, report: report) }
    }

    var lockCount: Int {
        machine.withLock { $0.lockCount }
    }

    /// Takes ownership and the pending entries, with the dispatchers that taking them unblocked.
    func startDrain() -> (batch: [PendingEntry], unblocked: [SnapshotWaiter])? {
        machine.withLock { machine in machine.startDrain().map { ($0, machine.takeUnblockedDispatchers()) } }
    }

    func finishPass(processed: Int, changes: Int, events: [StoreEvent]) -> (
        Machine.DrainStep, Machine.Effects
    ) {
        machine.withLock { $0.finishPass(processed: processed, changes: changes, events: events) }
    }

    func drainerDidEncode(_ snapshot: Snapshot) -> (Machine.DrainStep, Machine.Effects) {
        machine.withLock { $0.drainerDidEncode(snapshot) }
    }

    func beginRead(waiting: Bool) -> Machine.ReadStep {
        machine.withLock { $0.beginRead(waiting: waiting, makeWaiter: SnapshotWaiter.init) }
    }

    func snapshotterDidEncode(_ snapshot: Snapshot) -> Machine.Effects {
        machine.withLock { $0.snapshotterDidEncode(snapshot) }
    }

    func recordRoundTrip(_ snapshot: Snapshot) {
        machine.withLock { $0.recordRoundTrip(snapshot) }
    }

    /// Committed state changes so far.
    var committedVersion: UInt64 {
        machine.withLock { $0.version }
    }

    /// The newest snapshot that encoded and the newest that decoded, for a failing read to fall
    /// back on.
    var fallbacks: (encoded: Snapshot?, roundTripped: Snapshot?) {
        machine.withLock { ($0.lastEncoded, $0.lastRoundTripped) }
    }

    /// Readers waiting for queued entries, for tests that need a reader to be waiting.
    var waitingReaderCount: Int {
        machine.withLock { $0.waitingReaderCount }
    }

    /// Counts a main thread's priority loan before it waits (see `StoreMachine.priorityLoans`).
    func countPriorityLoan() {
        machine.withLock { $0.priorityLoans += 1 }
    }

    var priorityLoans: Int {
        machine.withLock { $0.priorityLoans }
    }

    func takeEvents() -> [StoreEvent] {
        machine.withLock { $0.takeEvents() }
    }
}

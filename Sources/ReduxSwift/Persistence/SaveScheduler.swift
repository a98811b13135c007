import Dispatch
import Foundation

/// The clock and timer a ``PersistenceService`` uses to decide when to save.
///
/// A service uses a ``DispatchSaveScheduler``: the system's monotonic clock and a dispatch queue of
/// its own. Tests pass a scheduler whose clock they move by hand, so that debouncing is tested
/// without waiting.
protocol SaveScheduler: Sendable {
    /// The current time in seconds, on a clock that never goes backwards.
    func now() -> Double

    /// Runs `work` once, at or after `deadline` on the clock of ``now()``, unless cancelled.
    ///
    /// It must not run `work` before returning, even when the deadline has passed.
    func schedule(at deadline: Double, _ work: @escaping @Sendable () -> Void) -> ScheduledWork

    /// Lends the calling thread's priority to the work under way on the scheduler, which the
    /// caller is about to wait for.
    func lendPriority()
}

/// Work a ``SaveScheduler`` will run, which can still be cancelled.
struct ScheduledWork: Sendable {
    private let cancelBlock: @Sendable () -> Void

    /// Creates a handle that calls `cancel` to prevent the work from running.
    init(cancel: @escaping @Sendable () -> Void) {
        cancelBlock = cancel
    }

    /// Prevents the work from running if it has not started.
    func cancel() {
        cancelBlock()
    }
}

/// Runs saves on a serial dispatch queue, timed by the system's monotonic clock.
struct DispatchSaveScheduler: SaveScheduler {
    /// The queue saves run on.
    let queue: DispatchQueue

    /// Creates a scheduler on `queue`, or on a new serial utility queue.
    init(queue: DispatchQueue = DispatchQueue(label: "ReduxSwift.PersistenceService", qos: .utility)) {
        self.queue = queue
    }

    /// Seconds since an arbitrary moment, from the monotonic clock `DispatchTime` uses.
    func now() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }

    /// Runs `work` on ``queue`` at `deadline`; a deadline beyond the clock's range never runs it.
    func schedule(at deadline: Double, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        // A deadline past what the clock counts (2^64 ns, about 584 years of uptime), or not a number,
        // never comes: there is nothing to run, and `UInt64(_:)` would trap on it.
        guard deadline * 1e9 < Double(UInt64.max) else { return ScheduledWork {} }
        let isCancelled = LockedValue(false)
        let nanoseconds = deadline <= 0 ? 0 : UInt64(deadline * 1e9)
        queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: max(nanoseconds, 1))) {
            if !isCancelled.withLock({ $0 }) { work() }
        }
        return ScheduledWork { isCancelled.withLock { $0 = true } }
    }

    /// Queues an empty block at the user-interactive QoS, which raises the queue, and the save
    /// running on it, to that QoS until the block runs: a semaphore donates no priority.
    func lendPriority() {
        queue.async(qos: .userInteractive, flags: .enforceQoS) {}
    }
}

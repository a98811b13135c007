/// The lifecycle of one asynchronous action: not started, running, cancelled, finished.
final class AsyncActionRun: Sendable {
    private enum Phase {
        case idle
        case running(Task<Void, Never>?)
        case finished
    }

    private struct Status {
        var phase = Phase.idle
        var isCancelled = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// `nextLater()` functions that hold the action and have not passed it on yet.
        var holders = 0
    }

    private let status = LockedValue(Status())

    var isCancelled: Bool { status.withLock { $0.isCancelled } }

    /// Whether the run is over, so that `finished()` returns at once.
    var isFinished: Bool {
        status.withLock { status in
            if case .finished = status.phase { return true }
            return false
        }
    }

    /// Starts the task unless cancelled (then the run is finished at once).
    /// - Returns: Whether the work started: `false` when it was cancelled before.
    @discardableResult
    func start(identifier: String, _ makeTask: (AsyncActionRun) -> Task<Void, Never>) throws(AsyncActionError)
        -> Bool
    {
        var startedBefore = false
        let shouldStart = status.withLock { status -> Bool in
            // Cancelled work is finished already; dispatching it again is not a mistake to report.
            if status.isCancelled { return false }
            guard case .idle = status.phase else {
                startedBefore = true
                return false
            }
            status.phase = .running(nil)
            return true
        }
        if startedBefore {
            let error = AsyncActionError(.alreadyStarted, identifier: identifier)
            RuntimeWarning.report(error.description)
            throw error
        }
        guard shouldStart else { return false }
        let task = makeTask(self)
        let cancelNow = status.withLock { status -> Bool in
            if case .running = status.phase { status.phase = .running(task) }
            return status.isCancelled
        }
        if cancelNow { task.cancel() }
        return true
    }

    /// Cancels the task if it runs; work that has not started is finished at once.
    func cancel() {
        let (task, wasIdle) = status.withLock { status -> (Task<Void, Never>?, Bool) in
            status.isCancelled = true
            switch status.phase {
            case .running(let task): return (task, false)
            case .idle: return (nil, true)
            case .finished: return (nil, false)
            }
        }
        task?.cancel()
        if wasIdle { finish() }
    }

    /// Queues `entry` while holding the run's lock, unless cancelled, so that a dispatch cannot
    /// overtake a `cancel()` that has returned; then, with the lock released, waits for room if the
    /// queue is full. Waiting under the lock deadlocked: the drainer takes the lock to start this
    /// run's task, and would never take the entries the dispatcher waits on.
    ///
    /// An entry dropped because the work was cancelled never reaches the store: the async actions
    /// it holds end without running, so that their `finished()` returns.
    func dispatchIfNotCancelled(
        _ entry: PendingEntry, dispatchedAs type: ObjectIdentifier? = nil, to kernel: StoreKernel
    ) {
        let (dropped, isFull) = status.withLock { status -> (Bool, Bool) in
            guard !status.isCancelled else { return (true, false) }
            return (false, kernel.dispatchWithoutWaitingForRoom(entry, dispatchedAs: type))
        }
        // Outside the lock: ending an action resumes its waiters.
        if dropped { entry.endAsyncActions() }
        if isFull { kernel.waitForRoom() }
    }

    /// A `nextLater()` function holds the action (`true`), or lets go of it (`false`).
    func hold(_ holds: Bool) {
        status.withLock { $0.holders += holds ? 1 : -1 }
    }

    /// Ends work that has not started, unless a `nextLater()` function still holds it: nothing
    /// else can pass it on any more.
    func endUnlessHeld() {
        let wasIdle = status.withLock { status -> Bool in
            guard case .idle = status.phase, status.holders == 0 else { return false }
            status.phase = .finished
            return true
        }
        if wasIdle { finish() }
    }

    /// Ends work that has not started and never will: ``finished()`` returns, and dispatching it
    /// again reports that it already started. Work that did start is left alone.
    func endWithoutRunning() {
        let wasIdle = status.withLock { status -> Bool in
            guard case .idle = status.phase else { return false }
            status.phase = .finished
            return true
        }
        if wasIdle { finish() }
    }

    func finish() {
        let waiters = status.withLock { status -> [CheckedContinuation<Void, Never>] in
            status.phase = .finished
            defer { status.waiters.removeAll() }
            return status.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func finished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = status.withLock { status -> Bool in
                if case .finished = status.phase { return true }
                status.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}

/// The lifecycle of one asynchronous action: not started, running, cancelled, finished.
final class AsyncActionRun: Sendable {
    private enum Phase {
        case idle
        case running(Task<Void, Never>?)
        case finished
    }

    /// A caller of ``finished()``, and the asynchronous work it belongs to, if any.
    private struct Awaiter {
        let continuation: CheckedContinuation<Void, Never>
        let work: AsyncWork?
        /// Whether its work counts as waiting on the store this run started on: awaiting the end
        /// of work of its own store, it dispatches nothing until that work ends.
        var waits = false
    }

    private struct Status {
        var phase = Phase.idle
        var isCancelled = false
        var waiters: [Awaiter] = []
        /// `nextLater()` functions that hold the action and have not passed it on yet.
        var holders = 0
        /// The store the work started on, while it runs.
        weak var kernel: StoreKernel?
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
        _ entry: QueueEntry, dispatchedAs type: ObjectIdentifier? = nil, to kernel: StoreKernel
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

    /// The work started on `kernel`: callers of ``finished()`` that are work of that store wait
    /// there until it ends.
    ///
    /// The store's bookkeeping changes under this run's lock, so that it never counts a caller
    /// after ``finish()`` uncounted it (the lock order is always the run's, then the store's).
    func started(on kernel: StoreKernel) {
        status.withLock { status in
            status.kernel = kernel
            for index in status.waiters.indices {
                guard let work = status.waiters[index].work, work.kernel === kernel else { continue }
                status.waiters[index].waits = true
                kernel.asyncWork(ObjectIdentifier(work.run), waits: true)
            }
        }
    }

    func finish() {
        let waiters = status.withLock { status -> [Awaiter] in
            status.phase = .finished
            // Uncounted before they resume: from then on, they may dispatch.
            for waiter in status.waiters where waiter.waits {
                if let work = waiter.work { work.kernel.asyncWork(ObjectIdentifier(work.run), waits: false) }
            }
            status.kernel = nil
            defer { status.waiters.removeAll() }
            return status.waiters
        }
        for waiter in waiters { waiter.continuation.resume() }
    }

    func finished() async {
        let work = AsyncWorkScope.work
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = status.withLock { status -> Bool in
                if case .finished = status.phase { return true }
                var awaiter = Awaiter(continuation: continuation, work: work)
                if let work, let kernel = status.kernel, kernel === work.kernel {
                    awaiter.waits = true
                    kernel.asyncWork(ObjectIdentifier(work.run), waits: true)
                }
                status.waiters.append(awaiter)
                return false
            }
            if done { continuation.resume() }
        }
    }
}

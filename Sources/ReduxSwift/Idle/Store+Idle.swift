import Foundation

extension Store {
    /// Waits until the store is idle: nothing more is coming from what was dispatched so far.
    ///
    /// ```swift
    /// store.dispatch(TodoAction.add("Milk"))  // a middleware dispatches a follow-up
    /// await store.waitUntilIdle()
    /// let state = store.currentState()  // holds the follow-up's change too
    /// ```
    ///
    /// Idle means, at one moment after the call:
    /// - every action, batch and registration queued before the call is reduced, those a dispatch
    ///   lock holds included (a lock held for the whole wait keeps it waiting);
    /// - so is everything they dispatched: from reducers, from middleware (``Middleware/Context``'s
    ///   dispatches, and actions passed on with ``Middleware/Context/nextLater()`` once the
    ///   middleware passes them on), and from the asynchronous work of every ``AsyncAction``, which
    ///   has ended;
    /// - every notification and value of the changes is delivered to the observers that run on
    ///   the store's delivery thread (those registered with no queue), and so is what they
    ///   dispatched in turn.
    ///
    /// Observers on a queue you gave (`.main` included) get their calls queued there by then, not
    /// necessarily made. A middleware that holds an action for later and never passes it on does
    /// not keep the store busy. Dispatches made by other threads during the wait keep it waiting
    /// until they too are handled.
    ///
    /// Only work the store knows of is waited for: a `Task` that a middleware or an observer starts
    /// itself is not, while an ``AsyncAction``'s work is.
    ///
    /// The wait never blocks a thread: it suspends. An ``AsyncAction``'s work (its task, its
    /// child tasks and the `Task`s it starts, not a `Task.detached`) may wait for its own store,
    /// with any number of waits at once: it waits for everything but the store's asynchronous work
    /// that waits, itself included, which dispatches nothing until its waits end. Work waits while
    /// any of its waits is open, or while it awaits ``AsyncAction/finished()`` of another action
    /// that runs on this store (so a parent awaiting its child that waits does not hold the child
    /// up). Work that waits for another store whose work waits for this one waits until its
    /// deadline. If the task is cancelled, the wait returns at once; ``waitUntilIdle(timeout:)``
    /// throws instead. Once a wait returns, it keeps nothing of the store alive.
    public func waitUntilIdle() async {
        _ = await idle(timeout: nil)
    }

    /// Waits until the store is idle, as ``waitUntilIdle()`` does, for at most `timeout` seconds.
    ///
    /// ```swift
    /// @Test func addingATodoShowsIt() async throws {
    ///     let store = Store(reducers: TodoReducers.reducers, state: AppState())
    ///     store.dispatch(TodoAction.add("Milk"))
    ///     try await store.waitUntilIdle(timeout: 5)
    ///     #expect(store.currentState().todos.map(\.title) == ["Milk"])
    /// }
    /// ```
    ///
    /// A wait takes a moment even on an idle store (its mark goes through the store's queues):
    /// a timeout of 0 throws at once.
    ///
    /// - Parameter timeout: Seconds; not negative.
    /// - Throws: ``IdleTimeoutError``, naming what kept the store busy, when it was not idle in
    ///   time; `CancellationError` when the task is cancelled first.
    public func waitUntilIdle(timeout: TimeInterval) async throws {
        precondition(
            timeout >= 0, "waitUntilIdle(timeout:) needs a timeout of 0 seconds or more, not \(timeout)")
        switch await idle(timeout: timeout) {
        case .idle:
            return
        case .timedOut(let error):
            throw error
        case .cancelled:
            throw CancellationError()
        }
    }

    /// Waits until the store is idle, the deadline passes, or the task is cancelled.
    private func idle(timeout: TimeInterval?) async -> IdleWait.End {
        let wait = IdleWait()
        let kernel = kernel
        // However the wait ends, the store keeps nothing of it, though it stays busy.
        defer { kernel.idleWaitEnded(ObjectIdentifier(wait)) }
        // The asynchronous work of an action of this store, when the task runs it or was left
        // behind by it: that work waits while this wait is open.
        let scope = AsyncWorkScope.work
        let work = scope.flatMap { $0.kernel === kernel ? ObjectIdentifier($0.run) : nil }
        if let work { kernel.asyncWork(work, waits: true) }
        defer { if let work { kernel.asyncWork(work, waits: false) } }
        let fromAsyncWork = work != nil
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                wait.start(continuation)
                guard let timeout else {
                    kernel.whenIdle(
                        wait: ObjectIdentifier(wait), fromAsyncWork: fromAsyncWork,
                        isWanted: { wait.isWaiting }
                    ) {
                        wait.end(.idle)
                    }
                    return
                }
                // Weak: a deadline that has not come yet keeps neither the wait nor the store.
                let timeOut: @Sendable () -> Void = { [weak wait, weak kernel] in
                    guard let wait, let kernel else { return }
                    let busy = kernel.busyness(fromAsyncWork: fromAsyncWork)
                    wait.end(
                        .timedOut(
                            IdleTimeoutError(
                                timeout: timeout, queuedEntries: busy.queued,
                                heldByDispatchLock: busy.heldByLocks, runningAsyncActions: busy.asyncWork)
                        ))
                }
                guard timeout > 0 else {
                    // A wait takes a moment even on an idle store: a deadline of now has passed.
                    timeOut()
                    return
                }
                kernel.whenIdle(
                    wait: ObjectIdentifier(wait), fromAsyncWork: fromAsyncWork, isWanted: { wait.isWaiting }
                ) {
                    wait.end(.idle)
                }
                let deadline = DispatchWorkItem(block: timeOut)
                wait.deadline = deadline
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: deadline)
            }
        } onCancel: {
            wait.end(.cancelled)
        }
    }
}

/// One wait until idle: ends once, by whichever comes first (idle, the deadline, cancellation),
/// even before its continuation is there (a task cancelled before it waits).
final class IdleWait: Sendable {
    enum End: Sendable {
        case idle
        case timedOut(IdleTimeoutError)
        case cancelled
    }

    private enum Phase {
        case starting
        case waiting(CheckedContinuation<End, Never>)
        case ended(End)
        case resumed
    }

    private let phase = LockedValue(Phase.starting)
    private let timer = LockedValue<DispatchWorkItem?>(nil)

    /// The deadline's work item, cancelled when the wait ends first.
    var deadline: DispatchWorkItem? {
        get { timer.withLock { $0 } }
        set {
            let ended = phase.withLock { phase -> Bool in
                if case .waiting = phase { return false }
                return true
            }
            if ended { newValue?.cancel() } else { timer.withLock { $0 = newValue } }
        }
    }

    /// Whether the wait has not ended yet.
    var isWaiting: Bool {
        phase.withLock { phase in
            switch phase {
            case .starting, .waiting: return true
            case .ended, .resumed: return false
            }
        }
    }

    func start(_ continuation: CheckedContinuation<End, Never>) {
        let end = phase.withLock { phase -> End? in
            guard case .ended(let end) = phase else {
                phase = .waiting(continuation)
                return nil
            }
            phase = .resumed
            return end
        }
        if let end { continuation.resume(returning: end) }
    }

    func end(_ end: End) {
        let continuation = phase.withLock { phase -> CheckedContinuation<End, Never>? in
            switch phase {
            case .starting:
                phase = .ended(end)
                return nil
            case .waiting(let continuation):
                phase = .resumed
                return continuation
            case .ended, .resumed:
                return nil
            }
        }
        guard let continuation else { return }
        // Let go of the deadline, which held the wait: an ended wait holds nothing.
        timer.withLock { timer in
            defer { timer = nil }
            return timer
        }?.cancel()
        continuation.resume(returning: end)
    }
}

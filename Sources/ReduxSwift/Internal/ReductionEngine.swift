/// A reducer whose state type is erased to a pointer.
///
/// `Store` is generic over the client's `State`, and the library is compiled without knowing it,
/// so generic code runs unspecialized: every access to an `Array<Reducer<State>>` would look up
/// generic metadata at run time. Erasing each reducer once, when it is registered, lets the
/// per-action loop run as concrete, specialized code whatever `State` is.
///
/// Not `@Sendable`: an erased reducer captures only a `Reducer<State>` (which is `Sendable`) and the
/// `State` metatype, and it crosses threads only inside the store's lock-protected queue.
typealias ErasedReducer = (UnsafeMutableRawPointer, any ActionProtocol) throws -> Void

/// Something queued for a store's reducing queue, in one total order.
enum PendingEntry {
    case action(any ActionProtocol)
    case register([ErasedReducer])
}

/// Consecutive committed actions of one batch, announced together without copying each action.
/// A run never contains a registration or a failed action: both end it.
struct ActionRun {
    let entries: [PendingEntry]
    let range: Range<Int>
}

/// Consecutive actions of one batch committed since the checkpoint, all seen by the first
/// `reducerCount` reducers. The log refers to the batch instead of copying each action.
struct LoggedRun {
    let entries: [PendingEntry]
    var range: Range<Int>
    let reducerCount: Int
}

/// How an action ended.
enum ReductionOutcome {
    /// Every reducer returned; the change stands.
    case committed
    /// A reducer threw `error`; the state is as it was before the action. `replayFailures` lists
    /// logged actions that threw when re-applied (only non-deterministic reducers do that): they
    /// are dropped from the state as well.
    case failed(any Error, replayFailures: [(action: any ActionProtocol, error: any Error)])
}

/// What reducing one batch produced.
struct ReducedBatch {
    /// Committed state changes.
    var changes = 0
    /// Notifications to post, in order.
    var events: [StoreEvent] = []
}

/// Applies actions to the live state in place, and restores it exactly when a reducer throws.
///
/// Plain synchronous code: `Store` runs it on whichever thread owns the state.
///
/// **Cost.** The common path runs each reducer once on the state itself, so an action costs the
/// reducers' own work plus a few counter updates. Nothing holds a second reference to the state
/// while reducers run, so Swift's copy-on-write never copies it per action, and nothing copies
/// the action either: the log and the notifications refer to runs of the batch array.
///
/// **Rollback.** The engine keeps a *checkpoint* (the state at some committed version, sharing
/// storage with it) and the log of actions committed since. When a reducer throws, the state is
/// rebuilt from the checkpoint by re-applying the logged actions, which is the extra cost a
/// failure pays. A checkpoint is taken whenever a snapshot is published (so rollback never
/// re-applies an action across a state a reader has seen) and every `checkpointInterval` actions
/// (which bounds the log and the replay). Taking a checkpoint makes the next mutation copy the
/// storage it touches, once.
struct ReductionEngine<State: StateProtocol> {
    /// The live state.
    private(set) var state: State
    private var reducers: [ErasedReducer]
    private var checkpoint: State
    /// What committed since the checkpoint, in order.
    private var log: [LoggedRun] = []
    private var loggedActions = 0
    let checkpointInterval: Int

    init(state: State, reducers: [Reducer<State>], checkpointInterval: Int = 4096) {
        precondition(checkpointInterval > 0, "checkpointInterval must be positive")
        self.state = state
        self.checkpoint = state
        self.reducers = Self.erase(reducers)
        self.checkpointInterval = checkpointInterval
    }

    /// Erases reducers for registration.
    static func erase(_ reducers: [Reducer<State>]) -> [ErasedReducer] {
        reducers.map { reducer in
            { pointer, action in try reducer(&pointer.assumingMemoryBound(to: State.self).pointee, action) }
        }
    }

    /// The number of committed actions a rollback would re-apply right now.
    var actionsSinceCheckpoint: Int { loggedActions }

    /// Appends reducers; they see every action applied after this call.
    mutating func register(_ newReducers: [Reducer<State>]) {
        reducers.append(contentsOf: Self.erase(newReducers))
    }

    /// Reduces a batch of queued entries in order.
    ///
    /// For each action it applies the registrations its reducers made, then releases the
    /// dispatches they made if it committed or discards them if it failed. Committed actions are
    /// announced as runs of `batch`, split around failures and registrations.
    mutating func reduce(_ batch: [PendingEntry], context: ReducerContext) -> ReducedBatch {
        var result = ReducedBatch()
        var runStart = 0
        var runHasActions = false
        func closeRun(at end: Int) {
            defer {
                runStart = end
                runHasActions = false
            }
            guard runHasActions else { return }
            let run = ActionRun(entries: batch, range: runStart..<end)
            if case .changed(let runs)? = result.events.last {
                result.events[result.events.count - 1] = .changed(runs + [run])
            } else {
                result.events.append(.changed([run]))
            }
        }
        for index in batch.indices {
            switch batch[index] {
            case .register(let newReducers):
                closeRun(at: index)
                runStart = index + 1
                reducers.append(contentsOf: newReducers)
            case .action(let action):
                let outcome = apply(action, at: index, of: batch, context: context)
                if context.hasDeferredRegistrations {
                    for newReducers in context.takeRegistrations() {
                        reducers.append(contentsOf: newReducers)
                    }
                }
                switch outcome {
                case .committed:
                    result.changes += 1
                    runHasActions = true
                    context.releaseDispatches()
                case .failed(let error, let replayFailures):
                    context.discardDispatches()
                    closeRun(at: index)
                    runStart = index + 1
                    for failure in replayFailures {
                        // The state no longer holds an action that had committed: a new version.
                        result.changes += 1
                        result.events.append(.failed(failure.action, failure.error))
                    }
                    result.events.append(.failed(action, error))
                }
            }
        }
        closeRun(at: batch.count)
        releaseBatch(batch)
        return result
    }

    /// Stops the log from keeping a large batch alive for the few actions it may replay: a run
    /// that covers less than half of its batch is copied out. This costs at most
    /// `checkpointInterval` copies per batch, and keeps memory after a burst at O(interval).
    private mutating func releaseBatch(_ batch: [PendingEntry]) {
        for position in log.indices where log[position].entries.isSameBuffer(as: batch) {
            let run = log[position]
            guard run.range.count * 2 < run.entries.count else { continue }
            log[position] = LoggedRun(
                entries: Array(run.entries[run.range]), range: 0..<run.range.count,
                reducerCount: run.reducerCount)
        }
    }

    /// Applies one action on its own (tests use this).
    mutating func apply(_ action: any ActionProtocol, context: ReducerContext?) -> ReductionOutcome {
        apply(action, at: 0, of: [.action(action)], context: context)
    }

    /// Runs every reducer on `action`, which is `batch[index]`, in registration order.
    /// - Parameter context: Marked as replaying while a rollback re-applies actions, so that
    ///   re-entrant dispatches and registrations are not made twice.
    @inline(__always)
    private mutating func apply(
        _ action: any ActionProtocol, at index: Int, of batch: [PendingEntry], context: ReducerContext?
    ) -> ReductionOutcome {
        do {
            try withUnsafeMutablePointer(to: &state) { [reducers] pointer in
                let raw = UnsafeMutableRawPointer(pointer)
                for reducer in reducers { try reducer(raw, action) }
            }
        } catch {
            return .failed(error, replayFailures: restoreCheckpointAndReplay(context: context))
        }
        logCommitted(at: index, of: batch)
        return .committed
    }

    /// Extends the last logged run when this action directly follows it in the same batch and was
    /// seen by the same reducers; otherwise starts a new run. Runs never span a failed action.
    @inline(__always)
    private mutating func logCommitted(at index: Int, of batch: [PendingEntry]) {
        loggedActions += 1
        if let last = log.indices.last, log[last].reducerCount == reducers.count,
            log[last].range.upperBound == index, log[last].entries.isSameBuffer(as: batch)
        {
            log[last].range = log[last].range.lowerBound..<(index + 1)
        } else {
            log.append(LoggedRun(entries: batch, range: index..<(index + 1), reducerCount: reducers.count))
        }
        if loggedActions >= checkpointInterval { takeCheckpoint() }
    }

    /// Makes the current state the rollback base, for example because a reader has now seen it.
    mutating func takeCheckpoint() {
        checkpoint = state
        log.removeAll(keepingCapacity: true)
        loggedActions = 0
    }

    /// Rebuilds the state from the checkpoint and the log. A logged action that throws on replay
    /// is removed from the log and the replay starts over, so this ends after at most
    /// `actionsSinceCheckpoint` restarts.
    private mutating func restoreCheckpointAndReplay(
        context: ReducerContext?
    ) -> [(action: any ActionProtocol, error: any Error)] {
        let wasReplaying = context?.isReplaying ?? false
        context?.isReplaying = true
        defer { context?.isReplaying = wasReplaying }
        var failures: [(action: any ActionProtocol, error: any Error)] = []
        while let failure = replayLog() {
            failures.append(failure)
        }
        return failures
    }

    /// Re-applies the log to the checkpoint. If a logged action throws, removes it from the log and
    /// returns it with the error; the state must then be rebuilt again.
    private mutating func replayLog() -> (action: any ActionProtocol, error: any Error)? {
        state = checkpoint
        let reducers = self.reducers
        for (position, run) in log.enumerated() {
            for index in run.range {
                guard case .action(let action) = run.entries[index] else { continue }
                do {
                    try withUnsafeMutablePointer(to: &state) { pointer in
                        let raw = UnsafeMutableRawPointer(pointer)
                        for reducer in reducers[..<run.reducerCount] { try reducer(raw, action) }
                    }
                } catch {
                    dropLogged(index, inRunAt: position)
                    return (action, error)
                }
            }
        }
        return nil
    }

    /// Removes one action from the log by splitting its run around it.
    private mutating func dropLogged(_ index: Int, inRunAt position: Int) {
        let run = log[position]
        let pieces = [run.range.lowerBound..<index, (index + 1)..<run.range.upperBound]
            .filter { !$0.isEmpty }
            .map { LoggedRun(entries: run.entries, range: $0, reducerCount: run.reducerCount) }
        log.replaceSubrange(position...position, with: pieces)
        loggedActions -= 1
    }
}

extension Array {
    /// Whether both arrays share one storage buffer (so indices of one address the other).
    fileprivate func isSameBuffer(as other: Self) -> Bool {
        withUnsafeBufferPointer { mine in other.withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress }
        }
    }
}

/// The reducers of one registration, with the state type erased to a pointer.
///
/// `Store` is generic over the client's `State`, and the library is compiled without knowing it,
/// so generic code runs unspecialized: every access to an `Array<Reducer<State>>` would look up
/// generic metadata at run time. Erasing each registration once lets the per-action loop run as
/// concrete, specialized code whatever `State` is.
///
/// Not `@Sendable`: an erased reducer captures only a `Reducer<State>` (which is `Sendable`) and the
/// `State` metatype, and it crosses threads only inside the store's lock-protected queue.
typealias ErasedReducer = (UnsafeMutableRawPointer, any ActionProtocol) throws -> Void

/// Something queued for a store's reducing queue, in one total order.
enum PendingEntry {
    case action(any ActionProtocol)
    /// Several actions reduced as one transaction.
    case batch(ActionBatch)
    case register([ErasedReducer])
    /// Middleware added to the end of the chain.
    case registerMiddleware([ErasedMiddleware])
    // The two rare cases below are `indirect` (boxed), so that no payload is larger than an
    // existential: a larger entry made every dispatch of a plain action slower.

    /// An action a middleware passed on later: it continues from the middleware at this position.
    indirect case resume(any ActionProtocol, middlewareIndex: Int)
    /// Work done outside the store failed (an asynchronous action threw): announce it in order.
    indirect case failure(any ActionProtocol, any Error)
    /// This store's part of a transaction across stores: applied, then held until every store of
    /// the transaction is ready, then committed or undone.
    case transaction(TransactionParticipant)
    /// An action log starts recording what commits from here on.
    case startRecording(RecordingSink)
    /// An action log stops recording here, and learns that it has everything before.
    case stopRecording(RecordingSink)
}

/// Consecutive committed actions of one batch, announced together without copying each action.
/// A run never contains a registration or a failed action: both end it.
struct ActionRun {
    let entries: [PendingEntry]
    let range: Range<Int>
}

/// Consecutive actions of one batch committed since the checkpoint, all seen by the first
/// `reducerCount` erased registrations. The log refers to the batch instead of copying each action.
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

/// The two state operations a rollback needs, erased to the state's address like the reducers.
struct CheckpointOperations {
    /// Makes the state at the address the checkpoint.
    let take: (UnsafeMutableRawPointer) -> Void
    /// Replaces the state at the address with the checkpoint.
    let restore: (UnsafeMutableRawPointer) -> Void
}

/// Everything the store does per action, with no generic parameter, so that it runs as concrete
/// code: applying the erased reducers, logging committed actions for rollback, collecting events.
struct ReductionPipeline {
    private(set) var reducers: [ErasedReducer]
    /// The middleware chain, in order; empty unless the store was given some.
    private(set) var middleware: [ErasedMiddleware] = []
    /// One reusable call object per middleware position (see `reusableCall(at:state:host:)`).
    var calls: [MiddlewareCall] = []
    /// What committed since the checkpoint, in order.
    private var log: [LoggedRun] = []
    private(set) var loggedActions = 0
    /// The action logs recording this store (see `ActionRecording`); empty unless one records.
    var recorders: [RecordingSink] = []
    /// How far the recorders have been given the events of the current pass.
    var recordedEvents = EventPosition()
    let checkpointInterval: Int
    let checkpoints: CheckpointOperations

    init(reducers: [ErasedReducer], checkpointInterval: Int, checkpoints: CheckpointOperations) {
        precondition(checkpointInterval > 0, "checkpointInterval must be positive")
        self.reducers = reducers
        self.checkpointInterval = checkpointInterval
        self.checkpoints = checkpoints
    }

    mutating func register(_ newReducers: [ErasedReducer]) {
        reducers.append(contentsOf: newReducers)
    }

    mutating func register(middleware newMiddleware: [ErasedMiddleware]) {
        middleware.append(contentsOf: newMiddleware)
    }

    /// Forgets the log, after the caller made the current state the checkpoint.
    mutating func clearLog() {
        log.removeAll(keepingCapacity: true)
        loggedActions = 0
    }

    /// Reduces a batch of queued entries in order, on the state at `state`.
    ///
    /// For each action it applies the registrations its reducers made, then releases the
    /// dispatches they made if it committed or discards them if it failed. Committed actions are
    /// announced as runs of `batch`, split around failures and registrations.
    mutating func reduce(
        _ batch: [PendingEntry], state: UnsafeMutableRawPointer, context: ReducerContext
    ) -> ReducedBatch {
        var result = ReducedBatch()
        var runStart = 0
        var runHasActions = false
        func closeRun(at end: Int) {
            defer {
                runStart = end
                runHasActions = false
            }
            guard runHasActions else { return }
            result.events.appendChange([ActionRun(entries: batch, range: runStart..<end)])
        }
        // Checked once per pass rather than per action; only a registration in the batch changes it.
        var hasMiddleware = !middleware.isEmpty
        recordedEvents = EventPosition()
        // Reading entries through the buffer borrows each action instead of retaining a copy.
        batch.withUnsafeBufferPointer { entries in
            for index in entries.indices {
                let outcome: ReductionOutcome
                switch entries[index] {
                case .register(let newReducers):
                    closeRun(at: index)
                    runStart = index + 1
                    reducers.append(contentsOf: newReducers)
                    continue
                case .action(let action):
                    guard !hasMiddleware else {
                        closeRun(at: index)
                        runStart = index + 1
                        passThroughMiddleware(action, from: 0, state: state, context: context, into: &result)
                        continue
                    }
                    outcome = apply(action, at: index, of: batch, state: state, context: context)
                case .batch(let actions):
                    guard !hasMiddleware else {
                        closeRun(at: index)
                        runStart = index + 1
                        passThroughMiddleware(actions, from: 0, state: state, context: context, into: &result)
                        continue
                    }
                    outcome = applyBatch(at: index, of: batch, state: state, context: context)
                case .registerMiddleware(let newMiddleware):
                    closeRun(at: index)
                    runStart = index + 1
                    middleware.append(contentsOf: newMiddleware)
                    hasMiddleware = !middleware.isEmpty
                    continue
                case .resume(let action, let position):
                    closeRun(at: index)
                    runStart = index + 1
                    passThroughMiddleware(
                        action, from: position, state: state, context: context, into: &result)
                    continue
                case .transaction(let participant):
                    closeRun(at: index)
                    runStart = index + 1
                    takePart(in: participant, state: state, context: context, into: &result)
                    continue
                case .failure(let action, let error):
                    closeRun(at: index)
                    runStart = index + 1
                    result.events.append(.failed(action, error))
                    continue
                case .startRecording(let sink):
                    closeRun(at: index)
                    runStart = index + 1
                    feedRecorders(result.events)
                    recorders.append(sink)
                    continue
                case .stopRecording(let sink):
                    closeRun(at: index)
                    runStart = index + 1
                    feedRecorders(result.events)
                    recorders.removeAll { $0 === sink }
                    sink.detach()
                    continue
                }
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
                    result.events.append(.failed(entries[index].announcedAction, error))
                }
            }
        }
        closeRun(at: batch.count)
        if !recorders.isEmpty { feedRecorders(result.events) }
        releaseBatch(batch)
        return result
    }

    /// Runs every reducer on `action`, which is `batch[index]`, in registration order.
    /// - Parameter context: Marked as replaying while a rollback re-applies actions, so that
    ///   re-entrant dispatches and registrations are not made twice.
    @inline(__always)
    mutating func apply(
        _ action: any ActionProtocol, at index: Int, of batch: [PendingEntry], state: UnsafeMutableRawPointer,
        context: ReducerContext?
    ) -> ReductionOutcome {
        do {
            // Through the buffer, each reducer is called without retaining and releasing it.
            try reducers.withUnsafeBufferPointer { reducers in
                for index in reducers.indices { try reducers[index](state, action) }
            }
        } catch {
            return .failed(error, replayFailures: restoreCheckpointAndReplay(state: state, context: context))
        }
        logCommitted(at: index, of: batch, state: state)
        return .committed
    }

    /// Runs every reducer on each action of the batch that is `batch[index]`, in order, as one
    /// transaction: if any reducer throws on any of them, the state is rebuilt as for one action.
    mutating func applyBatch(
        at index: Int, of batch: [PendingEntry], state: UnsafeMutableRawPointer, context: ReducerContext?
    ) -> ReductionOutcome {
        do {
            try reducers.withUnsafeBufferPointer { reducers in
                try Self.run(reducers, upTo: reducers.count, on: batch[index], state: state)
            }
        } catch {
            return .failed(error, replayFailures: restoreCheckpointAndReplay(state: state, context: context))
        }
        logCommitted(at: index, of: batch, state: state)
        return .committed
    }

    /// Applies the first `count` reducers to an entry's action, or to each action of its batch.
    private static func run(
        _ reducers: UnsafeBufferPointer<ErasedReducer>, upTo count: Int, on entry: PendingEntry,
        state: UnsafeMutableRawPointer
    ) throws {
        switch entry {
        case .action(let action):
            for index in 0..<count { try reducers[index](state, action) }
        case .batch(let batch):
            try run(reducers, upTo: count, onEachActionOf: batch, state: state)
        case .transaction(let participant):
            // Logged only once committed, as the batch it applied.
            try run(reducers, upTo: count, onEachActionOf: participant.batch, state: state)
        case .register, .registerMiddleware, .resume, .failure, .startRecording, .stopRecording:
            break
        }
    }

    /// Applies the first `count` reducers to each action of `batch` in order, expanding the
    /// batches it holds at any depth: reducers never see an ``ActionBatch``. Nested batches are
    /// expanded with a stack of positions, not recursion, so that no depth overflows the stack.
    private static func run(
        _ reducers: UnsafeBufferPointer<ErasedReducer>, upTo count: Int, onEachActionOf batch: ActionBatch,
        state: UnsafeMutableRawPointer
    ) throws {
        let actions = batch.actions
        var position = 0
        // A flat batch, or the flat start of one, needs no stack.
        while position < actions.count, ActionBatch.of(actions[position]) == nil {
            for index in 0..<count { try reducers[index](state, actions[position]) }
            position += 1
        }
        guard position < actions.count else { return }
        var pending: [(actions: [any ActionProtocol], next: Int)] = [(actions, position)]
        while let top = pending.indices.last {
            let (level, next) = pending[top]
            guard next < level.count else {
                pending.removeLast()
                continue
            }
            pending[top].next = next + 1
            let action = level[next]
            if let nested = ActionBatch.of(action) {
                pending.append((nested.actions, 0))
                continue
            }
            for index in 0..<count { try reducers[index](state, action) }
        }
    }

    /// Extends the last logged run when this action directly follows it in the same batch and was
    /// seen by the same reducers; otherwise starts a new run. Runs never span a failed action.
    @inline(__always)
    private mutating func logCommitted(
        at index: Int, of batch: [PendingEntry], state: UnsafeMutableRawPointer
    ) {
        loggedActions += 1
        if let last = log.indices.last, log[last].reducerCount == reducers.count,
            log[last].range.upperBound == index, log[last].entries.isSameBuffer(as: batch)
        {
            log[last].range = log[last].range.lowerBound..<(index + 1)
        } else {
            log.append(LoggedRun(entries: batch, range: index..<(index + 1), reducerCount: reducers.count))
        }
        if loggedActions >= checkpointInterval {
            checkpoints.take(state)
            clearLog()
        }
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

    /// Rebuilds the state from the checkpoint and the log. A logged action that throws on replay
    /// is removed from the log and the replay starts over, so this ends after at most
    /// `loggedActions` restarts.
    private mutating func restoreCheckpointAndReplay(
        state: UnsafeMutableRawPointer, context: ReducerContext?
    ) -> [(action: any ActionProtocol, error: any Error)] {
        let wasReplaying = context?.isReplaying ?? false
        context?.isReplaying = true
        defer { context?.isReplaying = wasReplaying }
        var failures: [(action: any ActionProtocol, error: any Error)] = []
        while let failure = replayLog(state: state) {
            failures.append(failure)
        }
        return failures
    }

    /// Re-applies the log to the checkpoint. If a logged action throws, removes it from the log and
    /// returns it with the error; the state must then be rebuilt again.
    private mutating func replayLog(state: UnsafeMutableRawPointer) -> (
        action: any ActionProtocol, error: any Error
    )? {
        checkpoints.restore(state)
        for (position, run) in log.enumerated() {
            for index in run.range {
                let entry = run.entries[index]
                do {
                    try reducers.withUnsafeBufferPointer { reducers in
                        try Self.run(reducers, upTo: run.reducerCount, on: entry, state: state)
                    }
                } catch {
                    dropLogged(index, inRunAt: position)
                    return (entry.announcedAction, error)
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

/// Applies actions to the live state in place, and restores it exactly when a reducer throws.
///
/// Plain synchronous code: `Store` runs it on whichever thread owns the state.
///
/// **Cost.** The common path runs each reducer once on the state itself, so an action costs the
/// reducers' own work plus a few counter updates. Nothing holds a second reference to the state
/// while reducers run, so Swift's copy-on-write never copies it per action, and nothing copies
/// the action either: the log and the notifications refer to runs of the batch array. The
/// per-action work lives in the non-generic ``ReductionPipeline``; this type only owns the state.
///
/// **Rollback.** The engine keeps a *checkpoint* (the state at some committed version, sharing
/// storage with it) and the log of actions committed since. When a reducer throws, the state is
/// rebuilt from the checkpoint by re-applying the logged actions, which is the extra cost a
/// failure pays. A checkpoint is taken whenever a snapshot is published (so rollback never
/// re-applies an action across a state a reader has seen) and every `checkpointInterval` actions
/// (which bounds the log and the replay). Taking a checkpoint makes the next mutation copy the
/// storage it touches, once.
struct ReductionEngine<State: StateProtocol> {
    private var pipeline: ReductionPipeline
    /// The live state.
    private(set) var state: State
    private let checkpoint: CheckpointBox<State>

    init(state: State, reducers: [Reducer<State>], checkpointInterval: Int = 4096) {
        let checkpoint = CheckpointBox(state)
        self.checkpoint = checkpoint
        self.state = state
        pipeline = ReductionPipeline(
            reducers: Self.erase(reducers), checkpointInterval: checkpointInterval,
            checkpoints: CheckpointOperations(
                take: { checkpoint.value = $0.assumingMemoryBound(to: State.self).pointee },
                restore: { $0.assumingMemoryBound(to: State.self).pointee = checkpoint.value }))
    }

    /// Erases one registration's reducers into a single closure that applies them in order.
    ///
    /// One erased call per registration per action, and inside it each reducer is called straight
    /// from the array: taking a reducer out of the array into a closure of its own would add a
    /// reabstraction thunk to every call.
    static func erase(_ reducers: [Reducer<State>]) -> [ErasedReducer] {
        guard !reducers.isEmpty else { return [] }
        return [
            { pointer, action in
                let state = pointer.assumingMemoryBound(to: State.self)
                try reducers.withUnsafeBufferPointer { reducers in
                    for index in reducers.indices { try reducers[index](&state.pointee, action) }
                }
            }
        ]
    }

    /// The number of committed actions a rollback would re-apply right now.
    var actionsSinceCheckpoint: Int { pipeline.loggedActions }

    /// Appends reducers; they see every action applied after this call.
    mutating func register(_ newReducers: [Reducer<State>]) {
        pipeline.register(Self.erase(newReducers))
    }

    /// Appends middleware; they see every action reduced after this call.
    mutating func register(middleware: [Middleware<State>]) {
        pipeline.register(middleware: middleware.map(\.erased))
    }

    /// Reduces a batch of queued entries in order; see ``ReductionPipeline/reduce(_:state:context:)``.
    mutating func reduce(_ batch: [PendingEntry], context: ReducerContext) -> ReducedBatch {
        withPipeline { pipeline, state in pipeline.reduce(batch, state: state, context: context) }
    }

    /// Applies one action (or batch) on its own (tests use this).
    mutating func apply(_ action: any ActionProtocol, context: ReducerContext?) -> ReductionOutcome {
        withPipeline { pipeline, state in
            switch PendingEntry.entry(for: action) {
            case .batch(let batch):
                return pipeline.applyBatch(at: 0, of: [.batch(batch)], state: state, context: context)
            default:
                return pipeline.apply(action, at: 0, of: [.action(action)], state: state, context: context)
            }
        }
    }

    /// Makes the current state the rollback base, for example because a reader has now seen it.
    mutating func takeCheckpoint() {
        checkpoint.value = state
        pipeline.clearLog()
    }

    /// Runs `body` with the pipeline moved out of `self` and the address of the state, so that the
    /// two can be used together without overlapping accesses to `self` or copying either.
    private mutating func withPipeline<Result>(
        _ body: (inout ReductionPipeline, UnsafeMutableRawPointer) -> Result
    ) -> Result {
        var pipeline = ReductionPipeline(
            reducers: [], checkpointInterval: self.pipeline.checkpointInterval,
            checkpoints: self.pipeline.checkpoints)
        swap(&pipeline, &self.pipeline)
        defer { swap(&pipeline, &self.pipeline) }
        return withUnsafeMutablePointer(to: &state) { body(&pipeline, UnsafeMutableRawPointer($0)) }
    }
}

/// The checkpoint, in a box that the pipeline's erased checkpoint operations share.
///
/// Only the owner of the store's state touches it, like the state itself.
final class CheckpointBox<State> {
    var value: State

    init(_ value: State) {
        self.value = value
    }
}

extension PendingEntry {
    /// The action observers hear about: the action, or the batch as one action.
    var announcedAction: any ActionProtocol {
        switch self {
        case .action(let action): return action
        case .batch(let batch): return batch
        case .resume(let action, _), .failure(let action, _): return action
        case .transaction(let participant): return participant.batch
        case .register, .registerMiddleware, .startRecording, .stopRecording:
            preconditionFailure("a registration is never announced")
        }
    }
}

extension Array {
    /// Whether both arrays share one storage buffer (so indices of one address the other).
    fileprivate func isSameBuffer(as other: Self) -> Bool {
        withUnsafeBufferPointer { mine in other.withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress }
        }
    }
}

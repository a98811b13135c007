/// Applies actions to the live state in place, and restores it exactly when a reducer throws.
///
/// Plain synchronous code: `Store` runs it on whichever thread owns the state.
///
/// **Cost.** The common path runs each reducer once on the state itself, so an action costs the
/// reducers' own work plus appending it to a short log. Nothing holds a second reference to the
/// state while reducers run, so Swift's copy-on-write never copies it per action.
///
/// **Rollback.** The engine keeps a *checkpoint* (the state at some committed version, sharing
/// storage with it) and the log of actions committed since. When a reducer throws, the state is
/// rebuilt from the checkpoint by re-applying the logged actions, which is the extra cost a
/// failure pays. A checkpoint is taken whenever a snapshot is published (so rollback never
/// re-applies an action across a state a reader has seen) and every `checkpointInterval` actions
/// (which bounds the log and the replay). Taking a checkpoint makes the next mutation copy the
/// storage it touches, once.
struct ReductionEngine<State: StateProtocol> {
    /// An action that committed since the checkpoint, and how many reducers saw it.
    private struct LoggedAction {
        let action: any ActionProtocol
        let reducerCount: Int
    }

    /// How an action ended.
    enum Outcome {
        /// Every reducer returned; the change stands.
        case committed
        /// A reducer threw `error`; the state is as it was before the action. `replayFailures`
        /// lists logged actions that threw when re-applied (only non-deterministic reducers do
        /// that): they are dropped from the state as well.
        case failed(any Error, replayFailures: [(action: any ActionProtocol, error: any Error)])
    }

    /// The live state.
    private(set) var state: State
    private(set) var reducers: [Reducer<State>]
    private var checkpoint: State
    private var log: [LoggedAction] = []
    let checkpointInterval: Int

    init(state: State, reducers: [Reducer<State>], checkpointInterval: Int = 4096) {
        precondition(checkpointInterval > 0, "checkpointInterval must be positive")
        self.state = state
        self.checkpoint = state
        self.reducers = reducers
        self.checkpointInterval = checkpointInterval
    }

    /// The number of committed actions a rollback would re-apply right now.
    var actionsSinceCheckpoint: Int { log.count }

    /// Appends reducers; they see every action applied after this call.
    mutating func register(_ newReducers: [Reducer<State>]) {
        reducers.append(contentsOf: newReducers)
    }

    /// Runs every reducer on `action`, in registration order.
    /// - Parameter context: Marked as replaying while a rollback re-applies actions, so that
    ///   re-entrant dispatches and registrations are not made twice.
    mutating func apply(_ action: any ActionProtocol, context: ReducerContext?) -> Outcome {
        let reducerCount = reducers.count
        do {
            for index in 0..<reducerCount {
                let reducer = reducers[index]
                try reducer(&state, action)
            }
        } catch {
            return .failed(error, replayFailures: restoreCheckpointAndReplay(context: context))
        }
        log.append(LoggedAction(action: action, reducerCount: reducerCount))
        if log.count >= checkpointInterval { takeCheckpoint() }
        return .committed
    }

    /// Makes the current state the rollback base, for example because a reader has now seen it.
    mutating func takeCheckpoint() {
        checkpoint = state
        log.removeAll(keepingCapacity: true)
    }

    /// Rebuilds the state from the checkpoint and the log. A logged action that throws on replay
    /// is removed from the log and the replay starts over, so this ends after at most `log.count`
    /// restarts.
    private mutating func restoreCheckpointAndReplay(
        context: ReducerContext?
    ) -> [(action: any ActionProtocol, error: any Error)] {
        let wasReplaying = context?.isReplaying ?? false
        context?.isReplaying = true
        defer { context?.isReplaying = wasReplaying }
        var failures: [(action: any ActionProtocol, error: any Error)] = []
        replay: while true {
            state = checkpoint
            for (position, logged) in log.enumerated() {
                do {
                    for index in 0..<logged.reducerCount {
                        let reducer = reducers[index]
                        try reducer(&state, logged.action)
                    }
                } catch {
                    failures.append((logged.action, error))
                    log.remove(at: position)
                    continue replay
                }
            }
            return failures
        }
    }
}

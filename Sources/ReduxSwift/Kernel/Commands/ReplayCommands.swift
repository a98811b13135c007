/// An action (or batch) an ``ActionLog`` replays: it committed once already, so the reducers alone
/// apply it, not the middleware, and what they dispatch is dropped, since the log holds what those
/// dispatches committed. It commits in the run of the actions before it, unless a history recorder keeps
/// the store, which must hear where each action ends.
///
/// Larger than an existential's inline buffer, so it is boxed once per replayed action.
struct ReplayAction: PipelineCommand {
    let action: any ActionProtocol

    func handle(
        _ pipeline: inout ReductionPipeline, at index: Int, of pass: [QueueEntry], state: StatePointer,
        scope: StoreCodeScope, into result: inout ReducedPass
    ) -> ReductionOutcome? {
        let outcome = pipeline.replay(action, at: index, of: pass, state: state, scope: scope)
        if !pipeline.historyRecorders.isEmpty { pipeline.tellHistoryRecordersFinished(action) }
        return outcome
    }

    func joinsRun(recordingHistory: Bool) -> Bool { !recordingHistory }

    var announcedAction: any ActionProtocol { action }

    func reapply(_ reducers: UnsafeBufferPointer<ErasedReducer>, upTo count: Int, state: StatePointer) throws
    {
        if let batch = ActionBatch.of(action) {
            try ReductionPipeline.run(reducers, upTo: count, onEachActionOf: batch, state: state)
        } else {
            for index in 0..<count { try reducers[index](state, action) }
        }
    }
}

/// A committed transaction's part an ``ActionLog`` replays: applied as a replayed batch, in the
/// run of the actions before it. Like a committed transaction, it is no action of its own: a
/// history recorder keeps it when it commits, and is told of no end.
struct ReplayTransactionPart: PipelineCommand {
    let batch: ActionBatch

    func handle(
        _ pipeline: inout ReductionPipeline, at index: Int, of entries: [QueueEntry], state: StatePointer,
        scope: StoreCodeScope, into result: inout ReducedPass
    ) -> ReductionOutcome? {
        let outcome = pipeline.applyBatch(at: index, of: entries, state: state, scope: scope)
        scope.discardDispatches()
        return outcome
    }

    func joinsRun(recordingHistory: Bool) -> Bool { true }

    var announcedAction: any ActionProtocol { batch }

    func reapply(_ reducers: UnsafeBufferPointer<ErasedReducer>, upTo count: Int, state: StatePointer) throws
    {
        try ReductionPipeline.run(reducers, upTo: count, onEachActionOf: batch, state: state)
    }

    var transactionPart: ActionBatch? { batch }
}

/// A history move an ``ActionLog`` replays, with the state it landed on when it was recorded (see
/// ``ReductionPipeline/replay(_:state:scope:into:)``). Ends the run before it, and commits as a
/// change of its own.
struct ReplayMove: PipelineCommand {
    let move: ReplayedMove

    func handle(
        _ pipeline: inout ReductionPipeline, at index: Int, of pass: [QueueEntry], state: StatePointer,
        scope: StoreCodeScope, into result: inout ReducedPass
    ) -> ReductionOutcome? {
        pipeline.replay(move, state: state, scope: scope, into: &result)
        return nil
    }

    var announcedAction: any ActionProtocol { move.move }
}

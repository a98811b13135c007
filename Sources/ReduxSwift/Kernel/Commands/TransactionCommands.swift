/// This store's part of a transaction across stores (see ``StoreTransaction``): its actions are
/// applied as one batch, the result reported, and the part held until every store of the
/// transaction is ready; then the change is kept, or undone exactly. The state is made the
/// rollback checkpoint first, so undoing it restores it. Committed, it is announced and logged as
/// the batch it applied.
struct TakePartInTransaction: PipelineCommand {
    let participant: TransactionParticipant

    func handle(
        _ pipeline: inout ReductionPipeline, at index: Int, of pass: [QueueEntry], state: StatePointer,
        scope: StoreCodeScope, into result: inout ReducedPass
    ) -> ReductionOutcome? {
        pipeline.checkpoints.take(state)
        pipeline.clearReplayList()
        let entries = [QueueEntry.command(self)]
        let mark = scope.deferredDispatchCount
        switch pipeline.applyBatch(at: 0, of: entries, state: state, scope: scope) {
        case .failed(let error, _, _):
            scope.discardDispatches(from: mark)
            participant.reportPrepared(error)
            _ = participant.awaitDecision()
            result.events.append(.failed(participant.batch, error, site: .transaction))
            pipeline.tap?(participant.batch, error, state)
        case .committed:
            participant.reportPrepared(nil)
            if participant.awaitDecision() {
                result.changes += 1
                result.events.appendChange([ActionRun(entries: entries, range: 0..<1)])
                pipeline.tap?(participant.batch, nil, state)
                _ = scope.releaseDispatches()
            } else {
                pipeline.checkpoints.restore(state)
                pipeline.clearReplayList()
                pipeline.tellHistoryRecordersRetracted(state: state)
                scope.discardDispatches(from: mark)
            }
        }
        if scope.hasDeferredRegistrations {
            for newReducers in scope.takeRegistrations() { pipeline.register(newReducers) }
        }
        return nil
    }

    var announcedAction: any ActionProtocol { participant.batch }

    /// Logged only once committed, as the batch it applied.
    func reapply(_ reducers: UnsafeBufferPointer<ErasedReducer>, upTo count: Int, state: StatePointer) throws
    {
        try ReductionPipeline.run(reducers, upTo: count, onEachActionOf: participant.batch, state: state)
    }

    var transactionPart: ActionBatch? { participant.batch }
}

extension ReductionPipeline {
    /// Applies a transaction's actions for this store, reports, waits for the decision, and then
    /// keeps or undoes the change. The state is made the checkpoint first, so undoing it is exact.
    mutating func takePart(
        in participant: TransactionParticipant, state: StatePointer, context: ReducerContext,
        into result: inout ReducedBatch
    ) {
        checkpoints.take(state)
        clearLog()
        let entries = [PendingEntry.transaction(participant)]
        let mark = context.deferredDispatchCount
        switch applyBatch(at: 0, of: entries, state: state, context: context) {
        case .failed(let error, _, _):
            context.discardDispatches(from: mark)
            participant.reportPrepared(error)
            _ = participant.awaitDecision()
            result.events.append(.failed(participant.batch, error, site: .transaction))
            tap?(participant.batch, error, state)
        case .committed:
            participant.reportPrepared(nil)
            if participant.awaitDecision() {
                result.changes += 1
                result.events.appendChange([ActionRun(entries: entries, range: 0..<1)])
                tap?(participant.batch, nil, state)
                _ = context.releaseDispatches()
            } else {
                checkpoints.restore(state)
                clearLog()
                tellJournalsRetracted(state: state)
                context.discardDispatches(from: mark)
            }
        }
        if context.hasDeferredRegistrations {
            for newReducers in context.takeRegistrations() { register(newReducers) }
        }
    }
}

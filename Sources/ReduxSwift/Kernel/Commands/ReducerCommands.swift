/// Reducers a store adds with `register(_:)`, queued like an action: the actions queued before it
/// never see them, and every action queued after it does. Ends the run of actions before it.
struct RegisterReducers: PipelineCommand {
    let reducers: [ErasedReducer]

    func handle(
        _ pipeline: inout ReductionPipeline, at index: Int, of batch: [PendingEntry], state: StatePointer,
        context: ReducerContext, into result: inout ReducedBatch
    ) -> ReductionOutcome? {
        pipeline.register(reducers)
        return nil
    }
}

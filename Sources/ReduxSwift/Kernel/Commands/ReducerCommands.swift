/// Reducers a store adds with `register(_:)`, queued like an action: the actions queued before it
/// never see them, and every action queued after it does. Ends the run of actions before it.
struct RegisterReducers: PipelineChange {
    let reducers: [ErasedReducer]

    func apply(to pipeline: inout ReductionPipeline) {
        pipeline.register(reducers)
    }
}

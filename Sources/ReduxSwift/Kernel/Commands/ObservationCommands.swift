/// Starts a value observer at this point of the queue: the holder of the state selects its
/// first value here, outside any reducer, and the observer then selects again after every pass
/// that changes the state (unless it ended at once). A ``PlaceInQueue`` uses it to learn that the
/// queue got this far.
struct StartWatching: PipelineCommand {
    let watcher: any StateWatcher

    func handle(
        _ pipeline: inout ReductionPipeline, at index: Int, of pass: [QueueEntry], state: StatePointer,
        scope: StoreCodeScope, into result: inout ReducedPass
    ) -> ReductionOutcome? {
        var keeps = false
        ReductionPipeline.selecting(scope) { keeps = watcher.activate(on: state) }
        if keeps { pipeline.keep(watcher) }
        return nil
    }
}

/// A tap (see ``ReductionTap``) starts hearing every change and failure queued after it, each with
/// the state it left; it replaces the one installed before. With a tap, runs hold one action.
struct InstallTap: PipelineChange {
    let tap: ErasedReductionTap

    func apply(to pipeline: inout ReductionPipeline) {
        pipeline.tap = tap
    }
}

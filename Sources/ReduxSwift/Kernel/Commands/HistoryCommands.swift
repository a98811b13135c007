/// A history recorder starts keeping what commits from here on: `start` makes it from the state
/// at this point of the queue, so that what was queued before is its first step. The actions after
/// it pass one at a time, so that the history recorder hears where each ends.
struct StartHistoryRecorder: PipelineCommand {
    let start: HistoryRecorderStart

    func handle(
        _ pipeline: inout ReductionPipeline, at index: Int, of pass: [QueueEntry], state: StatePointer,
        scope: StoreCodeScope, into result: inout ReducedPass
    ) -> ReductionOutcome? {
        pipeline.addHistoryRecorder(start(state))
        return nil
    }
}

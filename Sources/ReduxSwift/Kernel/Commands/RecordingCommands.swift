/// An action log starts recording the store: it gets every action that commits after this point
/// of the queue. What committed before it in the same pass goes to the recorders already there.
struct StartRecording: PipelineCommand {
    let sink: RecordingSink

    func handle(
        _ pipeline: inout ReductionPipeline, at index: Int, of pass: [QueueEntry], state: StatePointer,
        scope: StoreCodeScope, into result: inout ReducedPass
    ) -> ReductionOutcome? {
        pipeline.feedRecorders(result.events)
        pipeline.recorders.append(sink)
        return nil
    }
}

/// An action log stops recording the store at this point of the queue: it is given what committed
/// before, and then learns that it has everything (see ``RecordingSink/detach()``).
struct StopRecording: PipelineCommand {
    let sink: RecordingSink

    func handle(
        _ pipeline: inout ReductionPipeline, at index: Int, of pass: [QueueEntry], state: StatePointer,
        scope: StoreCodeScope, into result: inout ReducedPass
    ) -> ReductionOutcome? {
        pipeline.feedRecorders(result.events)
        pipeline.recorders.removeAll { $0 === sink }
        sink.detach()
        return nil
    }
}

/// A failure of work done outside the store (an asynchronous action threw), announced in the
/// queue's order: observers and the tap hear it as a failure of `action`, with no state change.
///
/// Larger than an existential's inline buffer, so it is boxed once per failure.
struct AnnounceFailure: PipelineCommand {
    let action: any ActionProtocol
    let error: any Error

    func handle(
        _ pipeline: inout ReductionPipeline, at index: Int, of pass: [QueueEntry], state: StatePointer,
        scope: StoreCodeScope, into result: inout ReducedPass
    ) -> ReductionOutcome? {
        result.events.append(.failed(action, error))
        pipeline.tap?(action, error, state)
        return nil
    }

    var announcedAction: any ActionProtocol { action }
}

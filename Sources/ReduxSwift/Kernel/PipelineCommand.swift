/// Something other than an action that a store's reducing queue carries, in order with the actions
/// (see ``QueueEntry/command(_:)``): a registration, a replayed action, a transaction's part, a
/// failure to announce, an observer to start… Each kind is its own type, which handles itself when
/// the holder of the state reaches it, so a feature that queues something new adds a type rather
/// than an arm in the pipeline's loop.
///
/// The pipeline ends the run of committed actions before a command (unless the command
/// ``joinsRun(recordingHistory:)``), lets it ``handle(_:at:of:state:scope:into:)`` itself, and then
/// handles what it dispatched to its own store before the entries after it. A command that applies
/// actions returns how they ended, and they are announced and listed for rollback as a plain
/// action would be; such a command also says how to apply them again (``reapply(_:upTo:state:)``)
/// and what observers hear (``announcedAction``).
///
/// Not `Sendable`, like ``QueueEntry``: a command crosses threads only inside the store's
/// lock-protected queue. A command's stored properties should fit an existential's inline buffer
/// (three words), or it is boxed, like an `indirect` case, once per command.
protocol PipelineCommand {
    /// Handles the command, which is `pass[index]`, as the holder of the state at `state`.
    ///
    /// - Returns: `nil` if it applied no action; otherwise how the actions it applied ended, which
    ///   the pipeline announces, lists for rollback and follows up as it does a plain action's.
    func handle(
        _ pipeline: inout ReductionPipeline, at index: Int, of pass: [QueueEntry], state: StatePointer,
        scope: StoreCodeScope, into result: inout ReducedPass
    ) -> ReductionOutcome?

    /// Whether the actions the command applies commit in the run of the actions before it instead
    /// of starting a new one; `recordingHistory` says whether a history recorder keeps the store's
    /// actions. False by default: a command ends the run before it.
    func joinsRun(recordingHistory: Bool) -> Bool

    /// The action observers hear about when the command's actions commit or fail. Only a command
    /// that applies actions, or announces a failure, has one.
    var announcedAction: any ActionProtocol { get }

    /// Applies again, with the first `count` of `reducers`, the actions the command committed: a
    /// rollback and a history do this. Does nothing by default, for a command that applies none.
    func reapply(_ reducers: UnsafeBufferPointer<ErasedReducer>, upTo count: Int, state: StatePointer) throws

    /// This store's part of a transaction, as the batch it applied, if the command is one (or
    /// replays one): a history and an action log keep it as one, with no step of its own.
    var transactionPart: ActionBatch? { get }

    /// Ends the async actions the command holds, when it is dropped before it is handled (it was
    /// dispatched by an action that failed): they will never run. Does nothing by default.
    func endAsyncActions()
}

extension PipelineCommand {
    func joinsRun(recordingHistory: Bool) -> Bool { false }

    var announcedAction: any ActionProtocol {
        preconditionFailure("\(Self.self) applies no action, so it is never announced")
    }

    func reapply(_ reducers: UnsafeBufferPointer<ErasedReducer>, upTo count: Int, state: StatePointer) throws
    {}

    var transactionPart: ActionBatch? { nil }

    func endAsyncActions() {}
}

/// A command that only changes what the pipeline holds (its reducers, its middleware, its tap) and
/// applies no action: it says what in ``apply(to:)``, and handles itself with that.
protocol PipelineChange: PipelineCommand {
    /// Makes the change, when the holder of the state reaches the command in the queue.
    func apply(to pipeline: inout ReductionPipeline)
}

extension PipelineChange {
    func handle(
        _ pipeline: inout ReductionPipeline, at index: Int, of pass: [QueueEntry], state: StatePointer,
        scope: StoreCodeScope, into result: inout ReducedPass
    ) -> ReductionOutcome? {
        apply(to: &pipeline)
        return nil
    }
}

/// A change to a store's middleware chain: queued like an action, so that it affects exactly the
/// actions queued after it, with the commands that undo and redo it for the actions queued before
/// it that a dispatch lock held meanwhile (see ``StoreMachine/ChainChange``).
protocol MiddlewareChainChange: PipelineChange {
    /// The entries that make this change in the queue's order, whatever the locks hold.
    var chainChange: StoreKernel.Machine.ChainChange { get }
}

/// Middleware added to the end of the chain, which a removal names by `key`. Runs in the queue's
/// order; the actions after it pass through the chain one at a time.
struct RegisterMiddleware: MiddlewareChainChange {
    let middleware: [ErasedMiddleware]
    let key: MiddlewareKey

    func apply(to pipeline: inout ReductionPipeline) {
        pipeline.register(middleware: middleware, key: key)
    }

    var chainChange: StoreKernel.Machine.ChainChange {
        .init(
            plain: .command(self), passing: .command(self), revert: .command(HideMiddleware(key: key)),
            reinstate: .command(ShowMiddleware(key: key)), finish: .command(ShowMiddleware(key: key)))
    }
}

/// The middleware registered with `key` leave the chain, for good, in the queue's order; once none
/// is left, the actions after it go straight to the reducers again.
struct RemoveMiddleware: MiddlewareChainChange {
    let key: MiddlewareKey

    func apply(to pipeline: inout ReductionPipeline) {
        pipeline.removeMiddleware(registeredWith: key)
    }

    var chainChange: StoreKernel.Machine.ChainChange {
        .init(
            plain: .command(self), passing: .command(HideMiddleware(key: key)),
            revert: .command(ShowMiddleware(key: key)), reinstate: .command(HideMiddleware(key: key)),
            finish: .command(self))
    }
}

/// The middleware registered with `key` leave the chain until a ``ShowMiddleware`` with the same
/// key: queued ahead of the actions a dispatch lock holds, so that a registration or removal made
/// meanwhile does not affect them.
struct HideMiddleware: PipelineChange {
    let key: MiddlewareKey

    func apply(to pipeline: inout ReductionPipeline) {
        pipeline.hideMiddleware(registeredWith: key)
    }
}

/// The middleware hidden with `key` (see ``HideMiddleware``) come back, each at its place in the
/// chain, for the actions queued after it.
struct ShowMiddleware: PipelineChange {
    let key: MiddlewareKey

    func apply(to pipeline: inout ReductionPipeline) {
        pipeline.showMiddleware(registeredWith: key)
    }
}

/// An action a middleware passed on later (with `nextLater()`): queued like a dispatch, it
/// continues through the chain with the middleware after the one in `slot` (see
/// ``MiddlewareLink/slot``), even if that one has left the chain.
///
/// Larger than an existential's inline buffer, so it is boxed once per action passed on later.
struct ResumeAction: PipelineCommand {
    let action: any ActionProtocol
    let slot: Int

    func handle(
        _ pipeline: inout ReductionPipeline, at index: Int, of pass: [QueueEntry], state: StatePointer,
        scope: StoreCodeScope, into result: inout ReducedPass
    ) -> ReductionOutcome? {
        pipeline.passThroughMiddleware(
            action, from: pipeline.position(afterSlot: slot), state: state, scope: scope, into: &result)
        return nil
    }

    var announcedAction: any ActionProtocol { action }

    func endAsyncActions() {
        for work in AsyncActionsHeldForLater.asyncActions(in: action) { work.run.endUnlessHeld() }
    }
}

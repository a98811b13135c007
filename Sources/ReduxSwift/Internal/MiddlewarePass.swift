/// One middleware with the state type erased, like ``ErasedReducer``: it receives the action and
/// the call it may use until it returns.
///
/// Not `@Sendable`, for the same reason as ``ErasedReducer``: it captures only a `Sendable`
/// closure and crosses threads only inside the store's lock-protected queue.
typealias ErasedMiddleware = (any ActionProtocol, MiddlewareCall) throws -> Void

/// What one middleware may do while it handles one action: read the live state, pass actions on,
/// and learn how they ended. Valid only until the middleware returns.
///
/// Confined to the store's reducing thread, like the state it points to.
final class MiddlewareCall {
    /// The live state; read only.
    let state: UnsafeMutableRawPointer
    /// The store, for dispatches and for passing actions on later.
    let host: any DeferredDispatchTarget
    /// The position of the next middleware, where actions passed on continue.
    let nextPosition: Int
    private var passOn: ((any ActionProtocol) -> DispatchOutcome)?
    /// How the actions passed on so far ended, combined.
    private(set) var outcome = DispatchOutcome.dropped

    init(
        state: UnsafeMutableRawPointer, host: any DeferredDispatchTarget, nextPosition: Int,
        passOn: @escaping (any ActionProtocol) -> DispatchOutcome
    ) {
        self.state = state
        self.host = host
        self.nextPosition = nextPosition
        self.passOn = passOn
    }

    /// Passes `action` to the rest of the chain and the reducers, now.
    func next(_ action: any ActionProtocol) -> DispatchOutcome {
        guard let passOn else {
            preconditionFailure(
                "MiddlewareContext.next(_:) called after the middleware returned; use nextLater() to pass "
                    + "an action on later")
        }
        let result = passOn(action)
        outcome = outcome.combined(with: result)
        return result
    }

    /// Makes sure the call is still in progress before the state is read.
    func checkActive() {
        precondition(passOn != nil, "MiddlewareContext.state read after the middleware returned")
    }

    /// Ends the call: nothing may use it afterwards.
    func end() {
        passOn = nil
    }
}

extension DispatchOutcome {
    /// The outcome of a middleware that passed on several actions: the first failure, otherwise
    /// committed if any action was reduced, otherwise dropped.
    func combined(with other: DispatchOutcome) -> DispatchOutcome {
        switch (self, other) {
        case (.failed, _): return self
        case (_, .failed): return other
        case (.committed, _), (_, .committed): return .committed
        default: return .dropped
        }
    }
}

extension ReductionPipeline {
    /// Passes one queued action through the middleware from `position` on, then releases the
    /// dispatches made meanwhile (a failed action has already discarded its own).
    mutating func passThroughMiddleware(
        _ action: any ActionProtocol, from position: Int, state: UnsafeMutableRawPointer,
        context: ReducerContext, into result: inout ReducedBatch
    ) {
        _ = forward(action, from: position, state: state, context: context, into: &result)
        if context.hasDeferredRegistrations {
            for newReducers in context.takeRegistrations() { register(newReducers) }
        }
        context.releaseDispatches()
    }

    /// Runs the middleware at `position` on `action`, or the reducers past the last one.
    private mutating func forward(
        _ action: any ActionProtocol, from position: Int, state: UnsafeMutableRawPointer,
        context: ReducerContext, into result: inout ReducedBatch
    ) -> DispatchOutcome {
        guard position < middleware.count else {
            return reduceForwarded(action, state: state, context: context, into: &result)
        }
        guard let host = context.reducingStore as? any DeferredDispatchTarget else {
            preconditionFailure("middleware runs only while a store reduces")
        }
        let handler = middleware[position]
        let mark = context.deferredDispatchCount
        do {
            let passOn = { (next: any ActionProtocol) -> DispatchOutcome in
                self.forward(next, from: position + 1, state: state, context: context, into: &result)
            }
            return try withoutActuallyEscaping(passOn) { passOn in
                let call = MiddlewareCall(
                    state: state, host: host, nextPosition: position + 1, passOn: passOn)
                defer { call.end() }
                try handler(action, call)
                return call.outcome
            }
        } catch {
            // Like a reducer's: a middleware that throws loses the dispatches it made.
            context.discardDispatches(from: mark)
            result.events.append(.failed(action, error))
            return .failed(error)
        }
    }

    /// Reduces an action that came out of the middleware chain. The action gets an entry array of
    /// its own, which the rollback log and the notification refer to.
    private mutating func reduceForwarded(
        _ action: any ActionProtocol, state: UnsafeMutableRawPointer, context: ReducerContext,
        into result: inout ReducedBatch
    ) -> DispatchOutcome {
        let entries = [PendingEntry.entry(for: action)]
        let mark = context.deferredDispatchCount
        let outcome: ReductionOutcome
        if case .batch = entries[0] {
            outcome = applyBatch(at: 0, of: entries, state: state, context: context)
        } else {
            outcome = apply(action, at: 0, of: entries, state: state, context: context)
        }
        if context.hasDeferredRegistrations {
            for newReducers in context.takeRegistrations() { register(newReducers) }
        }
        switch outcome {
        case .committed:
            result.changes += 1
            let run = ActionRun(entries: entries, range: 0..<1)
            if case .changed(let runs)? = result.events.last {
                result.events[result.events.count - 1] = .changed(runs + [run])
            } else {
                result.events.append(.changed([run]))
            }
            return .committed
        case .failed(let error, let replayFailures):
            context.discardDispatches(from: mark)
            for failure in replayFailures {
                result.changes += 1
                result.events.append(.failed(failure.action, failure.error))
            }
            result.events.append(.failed(entries[0].announcedAction, error))
            return .failed(error)
        }
    }
}

extension ReductionPipeline {
    /// Reduces the action or batch that is `pass[index]` on its own: through the middleware, or
    /// straight to the reducers (or to the history, for a move) when only a history recorder wants each
    /// action on its own.
    ///
    /// Never inlined: inlined into the loop that reduces plain actions, it made each of them slower.
    @inline(never)
    mutating func passOn(
        at index: Int, of pass: [QueueEntry], state: StatePointer, scope: StoreCodeScope,
        into result: inout ReducedPass
    ) {
        let action = pass[index].announcedAction
        guard middleware.isEmpty else {
            passThroughMiddleware(action, from: 0, state: state, scope: scope, into: &result)
            return
        }
        if let move = action as? HistoryAction {
            _ = self.move(move, state: state, scope: scope, into: &result)
        } else {
            // The entry needs no array of its own: the pass outlives the replay list and the notification
            // that refer to it, as in a run of actions.
            _ = reduce(at: index, of: pass, state: state, scope: scope, into: &result)
        }
        finishPassingOn(action, scope: scope)
    }

    /// Passes one queued action through the middleware from `position` on, then releases the
    /// dispatches made meanwhile (a failed action has already discarded its own).
    ///
    /// An async action it holds (itself, or in a batch) that no middleware started, and that no
    /// `nextLater()` function holds, will never run: the middleware dropped it, replaced it, or
    /// threw. It ends, so that its `finished()` returns; so do those whose functions went away
    /// during the pass.
    mutating func passThroughMiddleware(
        _ action: any ActionProtocol, from position: Int, state: StatePointer,
        scope: StoreCodeScope, into result: inout ReducedPass
    ) {
        let holdsAsyncActions = holdsAsyncActions(action)
        scope.isPassingThroughMiddleware = true
        _ = forward(action, from: position, state: state, scope: scope, into: &result)
        scope.isPassingThroughMiddleware = false
        if holdsAsyncActions {
            for work in AsyncActionsHeldForLater.asyncActions(in: action) { work.run.endUnlessHeld() }
        }
        if !scope.releasedAsyncActions.isEmpty {
            let released = scope.releasedAsyncActions
            scope.releasedAsyncActions.removeAll()
            for work in released { work.run.endUnlessHeld() }
        }
        finishPassingOn(action, scope: scope)
    }

    /// Whether `action` is an async action or a batch that holds one, at any depth.
    private mutating func holdsAsyncActions(_ action: any ActionProtocol) -> Bool {
        if let batch = ActionBatch.of(action) { return actionTypes.holdsAsyncAction(batch) }
        return actionTypes.isAsyncAction(action)
    }

    /// Tells the historyRecorders that `action` is done, and applies what its reducers and middleware
    /// registered and dispatched.
    private mutating func finishPassingOn(_ action: any ActionProtocol, scope: StoreCodeScope) {
        if !historyRecorders.isEmpty { tellHistoryRecordersFinished(action) }
        if scope.hasDeferredRegistrations {
            for newReducers in scope.takeRegistrations() { register(newReducers) }
        }
        _ = scope.releaseDispatches()
    }

    /// Runs the middleware at `position` on `action`, or the reducers past the last one.
    private mutating func forward(
        _ action: any ActionProtocol, from position: Int, state: StatePointer,
        scope: StoreCodeScope, into result: inout ReducedPass
    ) -> DispatchOutcome {
        guard position < middleware.count else {
            return reduceForwarded(action, state: state, scope: scope, into: &result)
        }
        guard let kernel = scope.reducingKernel else {
            preconditionFailure("middleware runs only while a store reduces")
        }
        let handler = middleware[position].handler
        let slot = middleware[position].slot
        let call = reusableCall(at: position, kernel: kernel)
        let mark = scope.deferredDispatchCount
        var committedDispatches: [Range<Int>] = []
        do {
            let passOn = { (next: any ActionProtocol) -> DispatchOutcome in
                let start = scope.deferredDispatchCount
                let outcome = self.forward(
                    next, from: position + 1, state: state, scope: scope, into: &result)
                // What a committed action dispatched stands, even if this middleware throws later.
                if case .committed = outcome {
                    committedDispatches.append(start..<scope.deferredDispatchCount)
                }
                return outcome
            }
            return try withoutActuallyEscaping(passOn) { passOn in
                call.begin(slot: slot, action: action, state: state, passOn: passOn)
                defer { call.end() }
                try handler(action, call)
                return call.outcome
            }
        } catch {
            // Like a reducer's: a middleware that throws loses the dispatches it made, but not
            // those of the actions it passed on that committed.
            scope.discardDispatches(from: mark, keeping: committedDispatches)
            result.events.append(.failed(action, error, site: .middleware))
            tap?(action, error, state)
            return .failed(error)
        }
    }

    /// The call object for the middleware at `position`: the one the last call used, unless the
    /// middleware kept its context (then that object stays invalid and a new one is made).
    /// Allocating one per middleware per action was a third of a middleware's cost.
    private mutating func reusableCall(
        at position: Int, kernel: StoreKernel
    ) -> MiddlewareCall {
        while calls.count <= position {
            calls.append(MiddlewareCall(kernel: kernel))
        }
        if !isKnownUniquelyReferenced(&calls[position]) {
            calls[position] = MiddlewareCall(kernel: kernel)
        }
        return calls[position]
    }

    /// Reduces an action that came out of the middleware chain, or hands a move to the history.
    /// The action gets an entry array of its own, which the replay list and the notification
    /// refer to.
    private mutating func reduceForwarded(
        _ action: any ActionProtocol, state: StatePointer, scope: StoreCodeScope,
        into result: inout ReducedPass
    ) -> DispatchOutcome {
        if !historyRecorders.isEmpty, let move = action as? HistoryAction {
            return self.move(move, state: state, scope: scope, into: &result)
        }
        var entry = QueueEntry.entry(for: action)
        if case .action = entry, actionTypes.isAsyncAction(action) { entry = .asyncAction(action) }
        return reduce(at: 0, of: [entry], state: state, scope: scope, into: &result)
    }

    /// Reduces the action or batch that is `entries[index]`, announces it as a run of its own, and
    /// applies the registrations its reducers made.
    private mutating func reduce(
        at index: Int, of entries: [QueueEntry], state: StatePointer, scope: StoreCodeScope,
        into result: inout ReducedPass
    ) -> DispatchOutcome {
        let mark = scope.deferredDispatchCount
        let outcome: ReductionOutcome
        switch entries[index] {
        case .batch: outcome = applyBatch(at: index, of: entries, state: state, scope: scope)
        case .asyncAction(let action):
            guard let work = action as? any AsyncActionStarting else {
                preconditionFailure("an entry for an async action holds another action")
            }
            outcome = refuse([work])
        case let entry:
            outcome = apply(entry.announcedAction, at: index, of: entries, state: state, scope: scope)
        }
        if scope.hasDeferredRegistrations {
            for newReducers in scope.takeRegistrations() { register(newReducers) }
        }
        switch outcome {
        case .committed:
            result.changes += 1
            appendChange(ActionRun(entries: entries, range: index..<(index + 1)), to: &result)
            tap?(entries[index].announcedAction, nil, state)
            return .committed
        case .failed(let error, let replayFailures, let site):
            scope.discardDispatches(from: mark)
            for failure in replayFailures {
                result.changes += 1
                result.events.append(.failed(failure.action, failure.error, site: failure.site))
                tap?(failure.action, failure.error, state)
            }
            result.events.append(.failed(entries[index].announcedAction, error, site: site))
            tap?(entries[index].announcedAction, error, state)
            return .failed(error)
        }
    }

    /// Announces a committed run, in the same notification as the changes just before it.
    private func appendChange(_ run: ActionRun, to result: inout ReducedPass) {
        result.events.appendChange([run])
    }
}

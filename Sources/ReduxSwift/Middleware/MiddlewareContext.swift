extension Middleware {
    /// What a middleware may do with the action it handles.
    ///
    /// A context is valid only while the middleware that received it runs; to pass an action on later,
    /// take ``nextLater()`` first, and to dispatch later, ``dispatchLater()``. It cannot leave the
    /// store's thread.
    public struct Context {
        let call: MiddlewareCall

        /// The live state, with every action reduced so far, including those passed on by this
        /// middleware.
        ///
        /// The same name as ``Store/currentState()`` and ``AsyncAction/Context/currentState()``, for the
        /// same question; here the answer is a plain copy of the state value (no JSON involved, and
        /// never a wait). Keep it only as long as you need it, because holding it while reducers run
        /// makes their next change copy what it touches.
        public func currentState() -> State {
            call.state(as: State.self).pointee
        }

        /// Passes `action` to the next middleware, or to the reducers after the last one, and returns
        /// how it ended.
        ///
        /// ```swift
        /// Middleware<AppState>("audit") { action, context in
        ///     if case .failed(let error) = context.next(action) { audit.record(action, error) }
        /// }
        /// ```
        @discardableResult
        public func next(_ action: any ActionProtocol) -> DispatchOutcome {
            call.next(action)
        }

        /// Returns a function that passes an action to the next middleware later, at any time and from
        /// any thread: the action queues behind the actions already dispatched and skips the
        /// middleware up to and including this one. Called from inside a reducer or a middleware of this
        /// store, the function passes the action on right after the current action has been handled,
        /// like ``Store/dispatch(_:)`` from there. If this middleware was removed meanwhile (see
        /// ``MiddlewareRegistration/remove()``), the action continues with the middleware registered
        /// after it that are still in the chain. The function keeps the store alive until it is
        /// released, so that the action it holds can always be passed on.
        ///
        /// ```swift
        /// Middleware<AppState>("delay toasts") { action, context in
        ///     guard case ToastAction.show = action else {
        ///         context.next(action)
        ///         return
        ///     }
        ///     let next = context.nextLater()
        ///     DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { next(action) }
        /// }
        /// ```
        public func nextLater() -> @Sendable (any ActionProtocol) -> Void {
            call.checkActive()
            let kernel = call.kernel
            // The store stays alive while an action may still be passed on, to announce it.
            let store = kernel.store
            let slot = call.slot
            let held = call.action.flatMap(AsyncActionsHeldForLater.init(holdingAsyncActionsOf:))
            return { action in
                held?.passedOn(action)
                withExtendedLifetime(store) {
                    kernel.dispatch(.command(ResumeAction(action: action, slot: slot)))
                }
            }
        }

        /// Dispatches another action to the store, from the first middleware. It is handled right after
        /// this action, ahead of everything else queued, like ``Store/dispatch(_:)`` from a reducer, and
        /// discarded if this middleware throws.
        public func dispatch(_ action: any ActionProtocol) {
            call.checkActive()
            let (entry, type) = QueueEntry.dispatched(action)
            StoreCodeScope.current?.deferDispatch(entry, dispatchedAs: type, to: .queue(call.kernel))
        }

        /// Returns a function that dispatches an action to the store, like ReSwift's `dispatch`: the
        /// middleware may keep it and call it at any time, from any thread.
        ///
        /// Calling it is calling ``Store/dispatch(_:)`` from where it is called. From outside store
        /// code, the action is queued behind the actions already queued and goes through the whole
        /// chain, this middleware included; an ``ActionBatch`` is dispatched as one unit. From inside a
        /// reducer or a middleware of this store, a later call of this middleware included, it is
        /// handled right after the current action, ahead of everything else queued: discarded if the
        /// reducer's action fails or the middleware throws, and kept when a reducer rejects an action
        /// the middleware passed on. So an undo block that dispatches the inverse of an edit, called
        /// while the middleware handles an undo, lands before the next queued edit reads the state.
        ///
        /// The function does not keep the store alive: called once the store is gone, it does nothing,
        /// and an ``AsyncAction`` given to it then ends without running (its
        /// ``AsyncAction/finished()`` returns).
        ///
        /// An undo middleware keeps, for each edit, a block that restores what the edit replaced, and
        /// calls the newest one on undo:
        ///
        /// ```swift
        /// let undoStack = UndoStack()
        /// let undo = Middleware<AppState>("undo") { action, context in
        ///     switch action {
        ///     case FilterAction.show:
        ///         let shown = context.currentState().filter
        ///         let dispatch = context.dispatchLater()
        ///         undoStack.push { dispatch(FilterAction.restore(shown)) }
        ///     case EditAction.undo:
        ///         undoStack.pop()?()
        ///     default:
        ///         break
        ///     }
        ///     context.next(action)
        /// }
        /// ```
        public func dispatchLater() -> @Sendable (any ActionProtocol) -> Void {
            call.checkActive()
            // Weak: a middleware that keeps the function lives in the store's chain, so a strong
            // reference would keep the kernel, and that chain with it, alive for ever.
            return { [weak kernel = call.kernel] action in
                // Held for the call, as the caller of `Store.dispatch(_:)` holds its store.
                guard let kernel, let store = kernel.store else {
                    // Dropped: an async action in it will never run.
                    QueueEntry.entry(for: action).endAsyncActions()
                    return
                }
                withExtendedLifetime(store) { kernel.dispatch(action: action) }
            }
        }
    }
}

/// An asynchronous unit of work that dispatches actions when it is done: fetching, saving,
/// anything that must not block a reducer.
///
/// Dispatch it like any action to a store that has the ``Middleware/asyncActions(dependencies:)``
/// middleware. The middleware starts the work in a task and the reducers never see it; the work
/// reads the state, uses the dependency you gave the middleware, and dispatches what it learns:
///
/// ```swift
/// let load = AsyncAction<AppState, API>("todos.load") { context in
///     let todos = try await context.dependencies.fetchTodos()
///     context.dispatch(TodoAction.loaded(todos))
/// }
/// store.dispatch(load)
/// load.cancel()  // if the user navigates away
/// ```
///
/// If the work throws, the store posts ``Foundation/NSNotification/Name/dispatchDidFail`` with
/// this action and the error. After ``cancel()`` returns, nothing the work dispatches reaches the
/// store, and cancellation (or an error thrown once cancelled) is not reported as a failure.
///
/// An async action runs once, so that ``cancel()`` and ``finished()`` speak of one run: make a
/// new one for each dispatch, for example in a function that returns it. Dispatching the same
/// value again does not run it; it reports an ``AsyncActionError`` of kind
/// ``AsyncActionError/Kind/alreadyStarted`` with ``Foundation/NSNotification/Name/dispatchDidFail``
/// and, in debug builds, as a runtime warning: Xcode shows it as a runtime issue, and elsewhere it
/// is a line on standard error.
///
/// ```swift
/// func loadTodos() -> AsyncAction<AppState, API> {
///     AsyncAction("todos.load") { context in
///         context.dispatch(TodoAction.loaded(try await context.dependencies.fetchTodos()))
///     }
/// }
///
/// store.dispatch(loadTodos())
/// ```
///
/// In a batch (``Store/dispatch(batch:)``, at any depth), an async action is taken out of the
/// batch by the middleware, the other actions go on as the batch, and the work starts once they
/// have been handled, in batch order; if the batch fails, the work ends without running. A
/// ``StoreTransaction`` refuses async actions with ``TransactionError/Kind/asyncAction(storeIndex:identifier:)``,
/// because it applies its actions at once and cannot wait for work.
///
/// An async action that reaches the reducers never runs: the store has no async-actions
/// middleware (or it was removed), or a middleware after it passed the action on. It fails there,
/// leaving the state as it was, and ends, so ``finished()`` returns; the store posts
/// ``Foundation/NSNotification/Name/dispatchDidFail`` with an ``AsyncActionError`` of kind
/// ``AsyncActionError/Kind/noAsyncActionsMiddleware``. A batch that holds one fails as a whole.
/// One that a middleware drops, replaces or rejects by throwing, or holds with a
/// ``Middleware/Context/nextLater()`` function that goes away without passing it on, ends without
/// running as well, and so does one whose dispatch never reaches the store: store code dispatched
/// it and its dispatches are dropped (its action failed, its middleware threw, or the action was
/// applied again), the work that dispatched it with its ``AsyncAction/Context`` was cancelled, or
/// it went to a ``Middleware/Context/dispatchLater()`` function once the store was gone.
public struct AsyncAction<State: StateProtocol, Dependencies: Sendable>: ActionProtocol {
    /// The work: it gets a context with the dependency, the store's state and a dispatch function.
    public typealias Work = @Sendable (AsyncAction<State, Dependencies>.Context) async throws -> Void

    /// A name for the work, such as `"todos.load"`; observers and logs see it.
    public let identifier: String
    let work: Work
    let run: AsyncActionRun

    /// Creates an asynchronous action.
    ///
    /// ```swift
    /// let load = AsyncAction<AppState, API>("todos.load") { context in
    ///     context.dispatch(TodoAction.loaded(try await context.dependencies.fetchTodos()))
    /// }
    /// ```
    /// - Parameters:
    ///   - identifier: A name for the work; `"AsyncAction"` by default.
    ///   - work: The work. It runs in a task of its own, once.
    public init(_ identifier: String = "AsyncAction", work: @escaping Work) {
        self.identifier = identifier
        self.work = work
        run = AsyncActionRun()
    }

    /// Cancels the work: it never starts if it has not yet, and a running task is cancelled.
    /// Once this returns, nothing the work dispatches reaches the store.
    public func cancel() {
        run.cancel()
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { run.isCancelled }

    /// Waits until the work has ended: returned, thrown, or cancelled. Work cancelled before it
    /// started has ended, and so has work that will never start: in a batch that failed, or
    /// dispatched where the dispatch is dropped (see above). Work never dispatched nor cancelled
    /// never ends. Another action's work that awaits this on the same store counts as waiting
    /// there, like a ``Store/waitUntilIdle()`` of its own, until this work ends.
    public func finished() async {
        await run.finished()
    }
}

extension AsyncAction: CustomStringConvertible {
    /// The identifier, as in `AsyncAction(todos.load)`, or `AsyncAction` for one created without an
    /// identifier: how logs, failure notifications and test failures name the action.
    ///
    /// The struct's own members are a closure and the state of its run, which tell a reader
    /// nothing; the identifier is what the code that created the action chose to call it. The form
    /// is ``Action``'s, so that both kinds of action read alike in one log.
    public var description: String {
        identifier == "AsyncAction" ? identifier : "AsyncAction(\(identifier))"
    }
}

extension AsyncAction {
    /// What asynchronous work may use: the dependency, the store's state, and dispatch.
    public struct Context: Sendable {
        /// The dependency given to ``Middleware/asyncActions(dependencies:)``, such as an API client.
        public let dependencies: Dependencies
        let store: Store<State>
        let run: AsyncActionRun

        /// Dispatches an action to the store, unless the work was cancelled: then the action is
        /// dropped, and an ``AsyncAction`` in it ends without running.
        public func dispatch(_ action: any ActionProtocol) {
            let (entry, type) = QueueEntry.dispatched(action)
            run.dispatchIfNotCancelled(entry, dispatchedAs: type, to: store.kernel)
        }

        /// Dispatches several actions as one batch (all or nothing), unless the work was cancelled:
        /// then the batch is dropped, and the ``AsyncAction``s in it end without running.
        public func dispatch(batch actions: [any ActionProtocol]) {
            run.dispatchIfNotCancelled(.batch(ActionBatch(actions)), to: store.kernel)
        }

        /// A deep copy of the store's state, as ``Store/currentState()`` returns it.
        public func currentState() -> State {
            store.currentState()
        }
    }
}

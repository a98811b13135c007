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
/// An async action runs once: dispatching the same value again reports an ``AsyncActionError`` of
/// kind ``AsyncActionError/Kind/alreadyStarted``.
///
/// In a batch (``Store/dispatch(batch:)``, at any depth), an async action is taken out of the
/// batch by the middleware, the other actions go on as the batch, and the work starts once they
/// have been handled, in batch order; if the batch fails, the work ends without running. A
/// ``StoreTransaction`` refuses async actions with ``TransactionError/Kind/asyncAction(storeIndex:identifier:)``,
/// because it applies its actions at once and cannot wait for work.
public struct AsyncAction<State: StateProtocol, Dependencies: Sendable>: ActionProtocol {
    /// The work: it gets a context with the dependency, the store's state and a dispatch function.
    public typealias Work = @Sendable (AsyncActionContext<State, Dependencies>) async throws -> Void

    /// A name for the work, such as `"todos.load"`; observers and logs see it.
    public let identifier: String
    let work: Work
    let run: AsyncActionRun

    /// Creates an asynchronous action.
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
    /// started has ended, and so has work in a batch that failed; work never dispatched nor
    /// cancelled never ends.
    public func finished() async {
        await run.finished()
    }
}

/// What asynchronous work may use: the dependency, the store's state, and dispatch.
public struct AsyncActionContext<State: StateProtocol, Dependencies: Sendable>: Sendable {
    /// The dependency given to ``Middleware/asyncActions(dependencies:)``, such as an API client.
    public let dependencies: Dependencies
    let store: Store<State>
    let run: AsyncActionRun

    /// Dispatches an action to the store, unless the work was cancelled.
    public func dispatch(_ action: any ActionProtocol) {
        run.ifNotCancelled { store.dispatch(action) }
    }

    /// Dispatches several actions as one batch (all or nothing), unless the work was cancelled.
    public func dispatch(batch actions: [any ActionProtocol]) {
        run.ifNotCancelled { store.dispatch(batch: actions) }
    }

    /// A deep copy of the store's state, as ``Store/currentState()`` returns it.
    public func currentState() -> State {
        store.currentState()
    }
}

extension Middleware {
    /// The middleware that runs ``AsyncAction``s and passes every other action on.
    ///
    /// An ``ActionBatch`` holding async actions, at any depth, is passed on without them, and they
    /// start once it has been handled, in batch order, unless it failed (then they end without
    /// running). An async action that cannot start is reported with
    /// ``Foundation/NSNotification/Name/dispatchDidFail``, naming it; the others still start.
    ///
    /// ```swift
    /// let store = Store(
    ///     reducers: reducers, state: AppState(), middleware: [.asyncActions(dependencies: LiveAPI())])
    /// ```
    ///
    /// - Parameter dependencies: What every async action of this store receives as
    ///   ``AsyncActionContext/dependencies``; use one type (a struct of clients) per store.
    public static func asyncActions<Dependencies: Sendable>(dependencies: Dependencies) -> Middleware {
        let dependencies: any Sendable = dependencies
        return Middleware(
            name: "asyncActions",
            erased: { action, call in
                if let work = action as? any AsyncActionStarting {
                    try work.start(on: call.kernel, dependencies: dependencies)
                    return
                }
                guard let batch = ActionBatch.of(action), batch.containsAsyncAction else {
                    _ = call.next(action)
                    return
                }
                runAsyncActions(of: batch, call: call, dependencies: dependencies)
            })
    }

    /// The middleware that runs ``AsyncAction``s without a dependency (`AsyncAction<State, Void>`).
    public static func asyncActions() -> Middleware {
        asyncActions(dependencies: ())
    }
}

/// Passes a batch on without its async actions, then starts them in order, or ends them without
/// running if the rest of the batch failed. Each async action that cannot start is reported on
/// its own, so that one mistake neither hides the others nor fails actions that committed.
private func runAsyncActions(of batch: ActionBatch, call: MiddlewareCall, dependencies: any Sendable) {
    var asyncActions: [any AsyncActionStarting] = []
    var otherActions = 0
    let rest = batch.takingOutAsyncActions(into: &asyncActions, counting: &otherActions)
    // A batch of async actions alone leaves nothing for the reducers: nothing to announce.
    let outcome = otherActions > 0 ? call.next(rest) : .committed
    if case .failed = outcome {
        for work in asyncActions { work.endWithoutRunning() }
        return
    }
    for work in asyncActions {
        do {
            try work.start(on: call.kernel, dependencies: dependencies)
        } catch {
            FailureReporter(kernel: call.kernel, action: work).report(error)
        }
    }
}

/// The type-erased way the middleware starts an ``AsyncAction``.
protocol AsyncActionStarting: ActionProtocol {
    func start(on kernel: StoreKernel, dependencies: any Sendable) throws(AsyncActionError)
    /// Ends work that will never start because the batch holding it failed.
    func endWithoutRunning()
}

extension ActionBatch {
    /// The first ``AsyncAction`` of the batch, at any depth.
    var firstAsyncAction: (any AsyncActionStarting)? {
        for action in actions {
            if let work = action as? any AsyncActionStarting { return work }
            if let nested = ActionBatch.of(action), let work = nested.firstAsyncAction { return work }
        }
        return nil
    }

    /// Whether the batch holds an ``AsyncAction``, at any depth.
    var containsAsyncAction: Bool { firstAsyncAction != nil }

    /// The batch without its async actions, nested batches kept as batches; appends the async
    /// actions taken out, in order, and counts the other actions, at any depth.
    func takingOutAsyncActions(
        into asyncActions: inout [any AsyncActionStarting], counting otherActions: inout Int
    ) -> ActionBatch {
        var rest: [any ActionProtocol] = []
        rest.reserveCapacity(actions.count)
        for action in actions {
            if let work = action as? any AsyncActionStarting {
                asyncActions.append(work)
            } else if let nested = ActionBatch.of(action) {
                rest.append(nested.takingOutAsyncActions(into: &asyncActions, counting: &otherActions))
            } else {
                otherActions += 1
                rest.append(action)
            }
        }
        return ActionBatch(rest)
    }
}

extension AsyncAction: AsyncActionStarting {
    func endWithoutRunning() {
        run.endWithoutRunning()
    }

    func start(on kernel: StoreKernel, dependencies: any Sendable) throws(AsyncActionError) {
        let host = kernel.store
        guard let store = host as? Store<State> else {
            throw AsyncActionError(
                .stateMismatch(
                    expected: String(describing: State.self),
                    store: host.map { String(describing: type(of: $0)) } ?? "a store that no longer exists"),
                identifier: identifier)
        }
        guard let dependencies = dependencies as? Dependencies else {
            throw AsyncActionError(
                .dependencyMismatch(
                    expected: String(describing: Dependencies.self),
                    provided: String(describing: type(of: dependencies))),
                identifier: identifier)
        }
        let job: any AsyncJob = TypedAsyncJob(
            work: work,
            context: AsyncActionContext(dependencies: dependencies, store: store, run: run))
        let failure = FailureReporter(kernel: kernel, action: self)
        try run.start(identifier: identifier) { run in
            Task.detached {
                defer { run.finish() }
                do {
                    try await job.run()
                } catch {
                    guard !(error is CancellationError) else { return }
                    // Under the run's lock, so that no failure is reported after cancel() returns.
                    run.ifNotCancelled { failure.report(error) }
                }
            }
        }
    }
}

/// Asynchronous work that needs no generic parameter to start.
protocol AsyncJob: Sendable {
    func run() async throws
}

/// An async action's work and its context. The task that runs it captures this box as an
/// ``AsyncJob``, so that its closure captures no metatype.
final class TypedAsyncJob<State: StateProtocol, Dependencies: Sendable>: AsyncJob {
    let work: AsyncAction<State, Dependencies>.Work
    let context: AsyncActionContext<State, Dependencies>

    init(
        work: @escaping AsyncAction<State, Dependencies>.Work,
        context: AsyncActionContext<State, Dependencies>
    ) {
        self.work = work
        self.context = context
    }

    func run() async throws {
        try await work(context)
    }
}

/// Reports an asynchronous action's error to its store, in order with its other notifications.
struct FailureReporter: Sendable {
    let kernel: StoreKernel
    let action: any ActionProtocol

    func report(_ error: any Error) {
        kernel.enqueue(.failure(action, error))
    }
}

/// The lifecycle of one asynchronous action: not started, running, cancelled, finished.
final class AsyncActionRun: Sendable {
    private enum Phase {
        case idle
        case running(Task<Void, Never>?)
        case finished
    }

    private struct Status {
        var phase = Phase.idle
        var isCancelled = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let status = LockedValue(Status())

    var isCancelled: Bool { status.withLock { $0.isCancelled } }

    /// Starts the task unless cancelled (then the run is finished at once).
    func start(identifier: String, _ makeTask: (AsyncActionRun) -> Task<Void, Never>) throws(AsyncActionError)
    {
        var startedBefore = false
        let shouldStart = status.withLock { status -> Bool in
            // Cancelled work is finished already; dispatching it again is not a mistake to report.
            if status.isCancelled { return false }
            guard case .idle = status.phase else {
                startedBefore = true
                return false
            }
            status.phase = .running(nil)
            return true
        }
        if startedBefore { throw AsyncActionError(.alreadyStarted, identifier: identifier) }
        guard shouldStart else { return }
        let task = makeTask(self)
        let cancelNow = status.withLock { status -> Bool in
            if case .running = status.phase { status.phase = .running(task) }
            return status.isCancelled
        }
        if cancelNow { task.cancel() }
    }

    /// Cancels the task if it runs; work that has not started is finished at once.
    func cancel() {
        let (task, wasIdle) = status.withLock { status -> (Task<Void, Never>?, Bool) in
            status.isCancelled = true
            switch status.phase {
            case .running(let task): return (task, false)
            case .idle: return (nil, true)
            case .finished: return (nil, false)
            }
        }
        task?.cancel()
        if wasIdle { finish() }
    }

    /// Runs `body` while holding the run's lock, unless cancelled, so that a dispatch cannot
    /// overtake a `cancel()` that has returned.
    func ifNotCancelled(_ body: () -> Void) {
        status.withLock { status in
            guard !status.isCancelled else { return }
            body()
        }
    }

    /// Ends work that has not started and never will: ``finished()`` returns, and dispatching it
    /// again reports that it already started. Work that did start is left alone.
    func endWithoutRunning() {
        let wasIdle = status.withLock { status -> Bool in
            guard case .idle = status.phase else { return false }
            status.phase = .finished
            return true
        }
        if wasIdle { finish() }
    }

    func finish() {
        let waiters = status.withLock { status -> [CheckedContinuation<Void, Never>] in
            status.phase = .finished
            defer { status.waiters.removeAll() }
            return status.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func finished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = status.withLock { status -> Bool in
                if case .finished = status.phase { return true }
                status.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}

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
    ///   ``AsyncAction/Context/dependencies``; use one type (a struct of clients) per store.
    public static func asyncActions<Dependencies: Sendable>(dependencies: Dependencies) -> Middleware {
        let dependencies: any Sendable = dependencies
        return Middleware(
            name: "asyncActions",
            erased: { action, call in
                if let work = action as? any AsyncActionStarting {
                    if try work.start(on: call.kernel, dependencies: dependencies) { call.markStarted() }
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
            if try work.start(on: call.kernel, dependencies: dependencies) { call.markStarted() }
        } catch {
            FailureReporter(kernel: call.kernel, action: work).report(error)
        }
    }
}

/// The type-erased way the middleware starts an ``AsyncAction``.
protocol AsyncActionStarting: ActionProtocol {
    /// Starts the work; `false` when it was cancelled before it could start.
    func start(on kernel: StoreKernel, dependencies: any Sendable) throws(AsyncActionError) -> Bool
    /// Ends work that will never start because the batch holding it failed.
    func endWithoutRunning()
    /// The run, shared by every copy of the action: what tells one async action from another.
    var run: AsyncActionRun { get }
}

extension AsyncAction: AsyncActionStarting {
    func endWithoutRunning() {
        run.endWithoutRunning()
    }

    func start(on kernel: StoreKernel, dependencies: any Sendable) throws(AsyncActionError) -> Bool {
        let host = kernel.store
        guard let store = host as? Store<State> else {
            // Work that can never start is finished: `finished()` returns.
            run.endWithoutRunning()
            throw AsyncActionError(
                .stateMismatch(
                    expected: String(describing: State.self),
                    store: host.map { String(describing: type(of: $0)) } ?? "a store that no longer exists"),
                identifier: identifier)
        }
        guard let dependencies = dependencies as? Dependencies else {
            run.endWithoutRunning()
            throw AsyncActionError(
                .dependencyMismatch(
                    expected: String(describing: Dependencies.self),
                    provided: String(describing: type(of: dependencies))),
                identifier: identifier)
        }
        let job: any AsyncJob = TypedAsyncJob(
            work: work,
            context: AsyncAction.Context(dependencies: dependencies, store: store, run: run))
        let failure = FailureReporter(kernel: kernel, action: self)
        return try run.start(identifier: identifier) { run in
            // Counted while the action is reduced, so that a wait until idle queued behind it sees
            // the work; uncounted once what it dispatched is queued.
            kernel.asyncWorkStarted(ObjectIdentifier(run))
            run.started(on: kernel)
            let scope = AsyncWork(kernel: kernel, run: run)
            return Task.detached {
                defer {
                    run.finish()
                    kernel.asyncWorkEnded(ObjectIdentifier(run))
                }
                do {
                    try await AsyncWorkScope.$work.withValue(scope) { try await job.run() }
                } catch {
                    guard !(error is CancellationError) else { return }
                    // Under the run's lock, so that no failure is reported after cancel() returns.
                    run.dispatchIfNotCancelled(
                        .command(AnnounceFailure(action: failure.action, error: error)), to: kernel)
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
    let context: AsyncAction<State, Dependencies>.Context

    init(
        work: @escaping AsyncAction<State, Dependencies>.Work,
        context: AsyncAction<State, Dependencies>.Context
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
        kernel.enqueue(.command(AnnounceFailure(action: action, error: error)))
    }
}

/// The asynchronous work of an action: its store and its run.
struct AsyncWork: Sendable {
    let kernel: StoreKernel
    let run: AsyncActionRun
}

/// The asynchronous work the current task runs, or was left behind by (a `Task` inherits it, a
/// `Task.detached` does not), so that the work may wait until its own store is idle without
/// waiting for itself, and that other work's waits know it waits.
enum AsyncWorkScope {
    @TaskLocal static var work: AsyncWork?
}

/// The async actions of an action a middleware held back with `nextLater()`, which the function
/// holds until it passes them on or goes away. One that no function holds any more, and that is
/// not passing through the chain, will never run: it ends (its `finished()` returns).
///
/// `@unchecked Sendable`: `pending` is a `LockedValue`; the rest is immutable.
final class AsyncActionsHeldForLater: @unchecked Sendable {
    /// The held async actions the function has not passed on yet.
    private let pending: LockedValue<[any AsyncActionStarting]>

    /// `nil` when `action` holds no async action.
    init?(holdingAsyncActionsOf action: any ActionProtocol) {
        let asyncActions = Self.asyncActions(in: action)
        guard !asyncActions.isEmpty else { return nil }
        for work in asyncActions { work.run.hold(true) }
        pending = LockedValue(asyncActions)
    }

    /// The function passes `action` on: the held async actions it holds are the chain's again.
    func passedOn(_ action: any ActionProtocol) {
        let passed = Self.asyncActions(in: action).map { ObjectIdentifier($0.run) }
        guard !passed.isEmpty else { return }
        let released = pending.withLock { pending -> [any AsyncActionStarting] in
            let released = pending.filter { passed.contains(ObjectIdentifier($0.run)) }
            pending.removeAll { passed.contains(ObjectIdentifier($0.run)) }
            return released
        }
        for work in released { work.run.hold(false) }
    }

    deinit {
        let left = pending.withLock { $0 }
        for work in left { work.run.hold(false) }
        if let scope = StoreCodeScope.current, scope.isPassingThroughMiddleware {
            // Let go of while an action passes through the chain, which may still pass these on:
            // they end after that pass if nothing started them.
            scope.releasedAsyncActions.append(contentsOf: left)
        } else {
            for work in left { work.run.endUnlessHeld() }
        }
    }

    /// The async actions of `action`: itself, or those of a batch at any depth, in order.
    static func asyncActions(in action: any ActionProtocol) -> [any AsyncActionStarting] {
        if let work = action as? any AsyncActionStarting { return [work] }
        guard let batch = ActionBatch.of(action) else { return [] }
        var asyncActions: [any AsyncActionStarting] = []
        var otherActions = 0
        _ = batch.takingOutAsyncActions(into: &asyncActions, counting: &otherActions)
        return asyncActions
    }
}

extension QueueEntry {
    /// Ends the async actions an entry holds that is dropped before it is reduced (what a failed
    /// action or a throwing middleware dispatched, or a dispatch made while actions are applied
    /// again): they will never run.
    func endAsyncActions() {
        switch self {
        case .action(let action), .asyncAction(let action), .batch(let action as any ActionProtocol):
            // `.action` too: an entry is marked as an async action's only once queued.
            for work in AsyncActionsHeldForLater.asyncActions(in: action) { work.run.endUnlessHeld() }
        case .command(let command):
            command.endAsyncActions()
        }
    }
}

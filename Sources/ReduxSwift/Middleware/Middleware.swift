/// A function around the reducers that sees every action before they do, and may pass it on,
/// change it, drop it, hold it back, or dispatch others.
///
/// Middleware run in order on the store's queue, one action at a time, before the reducers. Each
/// one passes an action on with ``Middleware/Context/next(_:)``; the last one's `next` runs the
/// reducers. Not calling `next` drops the action; calling it with another action transforms it;
/// calling it several times reduces several actions, each committing or failing on its own.
///
/// ```swift
/// let rejectEmptyTitles = Middleware<AppState>("reject empty titles") { action, context in
///     if case TodoAction.add(let title) = action, title.isEmpty { return }  // dropped
///     context.next(action)
/// }
///
/// let store = Store(
///     reducers: TodoReducers.reducers, state: AppState(),
///     middleware: [.logger(), .asyncActions(dependencies: api), rejectEmptyTitles])
/// ```
///
/// Middleware follow the reducers' re-entrancy rules: ``Store/dispatch(_:)`` (or
/// ``Middleware/Context/dispatch(_:)``) from a middleware queues the action once the current one
/// has been handled, and discards it if the middleware throws; ``Store/currentState()`` returns
/// the newest published state without waiting. A middleware that throws drops the action and the
/// store posts ``Foundation/NSNotification/Name/dispatchDidFail`` with the error; actions it
/// passed on before throwing stay reduced.
///
/// A batch reaches middleware as one ``ActionBatch``, batches nested in it included; passing it on
/// reduces it as one unit, all or nothing, every nested action in order.
/// When a reducer throws and the store rolls back, it re-applies the actions the reducers saw,
/// without running the middleware again.
public struct Middleware<State: StateProtocol>: Sendable {
    /// A name for logs and debugging.
    public let name: String
    /// The body with the state type erased; closures built in generic code capture no metatype.
    private let body: @Sendable (any ActionProtocol, MiddlewareCall) throws -> Void

    /// Creates a middleware.
    ///
    /// ```swift
    /// let audit = Middleware<AppState>("audit") { action, context in
    ///     if case .failed(let error) = context.next(action) { AuditLog.shared.record(action, error) }
    /// }
    /// ```
    /// - Parameters:
    ///   - name: A name for logs and debugging.
    ///   - body: Handles one action. Pass it on with `context.next(action)`; throw to reject it.
    public init(
        _ name: String,
        _ body:
            @escaping @Sendable (_ action: any ActionProtocol, _ context: Middleware<State>.Context) throws ->
            Void
    ) {
        self.name = name
        let typed: any MiddlewareBox = TypedMiddleware(body)
        self.body = { action, call in try typed.handle(action, call) }
    }

    /// Creates a middleware from a handler type, which suits middleware with stored properties and
    /// generic code (a closure written in a generic context would capture the state's metatype).
    ///
    /// ```swift
    /// struct Analytics: MiddlewareHandler {
    ///     let tracker: Tracker
    ///     func handle(_ action: any ActionProtocol, context: Middleware<AppState>.Context) throws {
    ///         tracker.track(action.identifier)
    ///         context.next(action)
    ///     }
    /// }
    ///
    /// let store = Store(reducers: reducers, state: AppState(), middleware: [Middleware("analytics", handler: Analytics(tracker: tracker))])
    /// ```
    public init<Handler: MiddlewareHandler>(_ name: String, handler: Handler) where Handler.State == State {
        self.name = name
        let typed: any MiddlewareBox = HandlerMiddleware(handler)
        self.body = { action, call in try typed.handle(action, call) }
    }

    /// Creates a middleware from a body that needs no typed state.
    init(name: String, erased body: @escaping @Sendable (any ActionProtocol, MiddlewareCall) throws -> Void) {
        self.name = name
        self.body = body
    }

    /// The middleware with the state type erased, for the store's non-generic pipeline.
    var erased: ErasedMiddleware { body }
}

/// A typed middleware body, boxed so that it needs no generic parameter to call. Not to be confused
/// with the public ``MiddlewareHandler``, which is one of the bodies such a box holds.
protocol MiddlewareBox: Sendable {
    func handle(_ action: any ActionProtocol, _ call: MiddlewareCall) throws
}

/// Calls a typed middleware body. A generic method builds the typed context, so that the closure
/// the pipeline calls captures only this box as a ``MiddlewareBox`` and no metatype.
final class TypedMiddleware<State: StateProtocol>: MiddlewareBox {
    let body: @Sendable (any ActionProtocol, Middleware<State>.Context) throws -> Void

    init(_ body: @escaping @Sendable (any ActionProtocol, Middleware<State>.Context) throws -> Void) {
        self.body = body
    }

    func handle(_ action: any ActionProtocol, _ call: MiddlewareCall) throws {
        try body(action, Middleware.Context(call: call))
    }
}

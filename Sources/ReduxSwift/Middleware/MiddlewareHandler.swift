/// A middleware as a type: ``handle(_:context:)`` is called for every action, like the closure
/// given to ``Middleware/init(_:_:)``. Wrap one with ``Middleware/init(_:handler:)``.
public protocol MiddlewareHandler: Sendable {
    /// The state of the stores this middleware is for.
    associatedtype State: StateProtocol

    /// Handles one action; pass it on with `context.next(action)`, throw to reject it.
    func handle(_ action: any ActionProtocol, context: Middleware<State>.Context) throws
}

/// Calls a ``MiddlewareHandler`` from the pipeline, like ``TypedMiddleware`` calls a closure.
final class HandlerMiddleware<Handler: MiddlewareHandler>: MiddlewareBox {
    let handler: Handler

    init(_ handler: Handler) {
        self.handler = handler
    }

    func handle(_ action: any ActionProtocol, _ call: MiddlewareCall) throws {
        try handler.handle(action, context: Middleware.Context(call: call))
    }
}

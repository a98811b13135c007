/// The error of an asynchronous action that could not start; posted with
/// ``Foundation/NSNotification/Name/dispatchDidFail``.
public struct AsyncActionError: Error, Sendable, CustomStringConvertible, Equatable {
    /// Why the action could not start.
    public enum Kind: Sendable, Equatable {
        /// The action was dispatched before and has already started.
        case alreadyStarted
        /// The action needs dependencies of type `expected`, and the middleware provides
        /// `provided`.
        case dependencyMismatch(expected: String, provided: String)
        /// The action was declared for the state type `expected`, and dispatched to a store of
        /// `store`.
        case stateMismatch(expected: String, store: String)
        /// The action reached the reducers: no ``Middleware/asyncActions(dependencies:)``
        /// middleware ran it, because the store has none (or it was removed), or because a
        /// middleware after it passed the action on.
        case noAsyncActionsMiddleware
    }

    /// Why the action could not start.
    public let kind: Kind
    /// The action's ``AsyncAction/identifier``.
    public let identifier: String

    init(_ kind: Kind, identifier: String) {
        self.kind = kind
        self.identifier = identifier
    }

    /// A sentence naming the action and why it could not start.
    public var description: String {
        switch kind {
        case .alreadyStarted:
            return "\(identifier) was dispatched again; an AsyncAction runs once: make a new one for "
                + "each dispatch, for example in a function that returns it"
        case .dependencyMismatch(let expected, let provided):
            return "\(identifier) needs dependencies of type \(expected), but the asyncActions middleware "
                + "provides \(provided)"
        case .stateMismatch(let expected, let store):
            return "\(identifier) is an AsyncAction for \(expected), dispatched to a store of \(store)"
        case .noAsyncActionsMiddleware:
            return "\(identifier) reached the reducers, so it never runs: give the store the "
                + "asyncActions(dependencies:) middleware, ahead of any middleware that passes it on"
        }
    }
}

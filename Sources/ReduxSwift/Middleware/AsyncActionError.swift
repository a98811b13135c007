/// Why an asynchronous action could not start; posted with
/// ``Foundation/NSNotification/Name/dispatchDidFail``.
public enum AsyncActionError: Error, Equatable, CustomStringConvertible {
    /// The action was dispatched before and has already started.
    case alreadyStarted(identifier: String)
    /// The action needs dependencies of another type than the middleware provides.
    case dependencyMismatch(identifier: String, expected: String, provided: String)
    /// The action was declared for another state type than the store's.
    case stateMismatch(identifier: String, expected: String, store: String)

    /// One sentence saying what went wrong.
    public var description: String {
        switch self {
        case .alreadyStarted(let identifier):
            return "\(identifier) was dispatched again; an AsyncAction runs once, create a new one"
        case .dependencyMismatch(let identifier, let expected, let provided):
            return "\(identifier) needs dependencies of type \(expected), but the asyncActions middleware "
                + "provides \(provided)"
        case .stateMismatch(let identifier, let expected, let store):
            return "\(identifier) is an AsyncAction for \(expected), dispatched to a store of \(store)"
        }
    }
}

/// How an action passed on by a middleware ended.
public enum DispatchOutcome {
    /// The reducers applied it and the change stands.
    case committed
    /// A reducer or a later middleware threw this error; the state is as it was before the action.
    case failed(any Error)
    /// No reducer saw it: a later middleware dropped it or holds it back.
    case dropped
    /// An ``AsyncAction``: the ``Middleware/asyncActions(dependencies:)`` middleware further down
    /// the chain started its work, whose results reach the store as actions of their own. No
    /// reducer saw the async action itself. A batch of async actions alone is `started` when at
    /// least one of them started; one cancelled before it was dispatched does not start, and is
    /// `dropped`.
    case started
}

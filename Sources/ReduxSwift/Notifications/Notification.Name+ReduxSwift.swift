import Foundation

extension Notification.Name {
    /// Posted by a ``Store`` after it reduced one or more actions.
    ///
    /// The notification's `object` is the store. ``StoreNotification/actions`` lists the actions it
    /// covers, in the order they were reduced: a burst of actions is coalesced into fewer
    /// notifications, and every action that succeeded appears in exactly one of them.
    ///
    /// It announces reduced actions, not a changed state: an action that no reducer handles is
    /// announced too. To hear only of values that changed, observe them with
    /// ``Store/observe(_:queue:using:)-(_,DispatchQueue?,_)``.
    public static let stateDidChange = Notification.Name("ReduxSwift.stateDidChange")

    /// Posted by a ``Store`` when a reducer threw while reducing an action.
    ///
    /// The store's state is exactly what it was before that action. ``StoreNotification/failedAction``
    /// and ``StoreNotification/error`` say which action failed and why.
    public static let dispatchDidFail = Notification.Name("ReduxSwift.dispatchDidFail")
}

import Foundation

extension Notification.Name {
    /// Posted by a ``Store`` after one or more actions changed its state.
    ///
    /// The notification's `object` is the store. ``StoreNotification/actions`` lists the actions it
    /// covers, in the order they were reduced: a burst of actions is coalesced into fewer
    /// notifications, and every action that succeeded appears in exactly one of them.
    public static let stateDidChange = Notification.Name("ReduxSwift.stateDidChange")

    /// Posted by a ``Store`` when a reducer threw while reducing an action.
    ///
    /// The store's state is exactly what it was before that action. ``StoreNotification/failedAction``
    /// and ``StoreNotification/error`` say which action failed and why.
    public static let dispatchDidFail = Notification.Name("ReduxSwift.dispatchDidFail")
}

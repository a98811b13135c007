import Foundation

/// A notification delivered by a ``StoreNotificationCenter``.
///
/// Stores post ``Foundation/NSNotification/Name/stateDidChange`` and
/// ``Foundation/NSNotification/Name/dispatchDidFail``; the typed accessors ``actions``,
/// ``failedAction`` and ``error`` read their `userInfo`.
public struct StoreNotification: Sendable {
    /// The notification's name.
    public let name: Notification.Name
    /// The object that posted the notification: for a store's notifications, the store.
    public let object: (any AnyObject & Sendable)?
    /// Extra information for observers of your own notifications.
    ///
    /// Read what a store's notifications carry through ``actions``, ``failedAction`` and
    /// ``error``; the keys a store uses in `userInfo` are not part of the API.
    public let userInfo: [String: any Sendable]
    /// The actions of a store's notification, kept beside `userInfo` so that every observer reads
    /// them without a dictionary lookup and a cast.
    private let storedActions: ActionList?
    /// For a store's failure, what tells whether an observer heard it; `nil` otherwise.
    var hearing: FailureHearing?

    /// Creates a notification.
    ///
    /// ```swift
    /// let sessionDidEnd = Notification.Name("MyApp.sessionDidEnd")
    /// store.notificationCenter.post(StoreNotification(name: sessionDidEnd, object: store))
    /// ```
    /// - Parameters:
    ///   - name: The notification's name.
    ///   - object: The sender, which observers can filter on.
    ///   - userInfo: Extra information for observers.
    public init(
        name: Notification.Name,
        object: (any AnyObject & Sendable)? = nil,
        userInfo: [String: any Sendable] = [:]
    ) {
        self.name = name
        self.object = object
        self.userInfo = userInfo
        self.storedActions = nil
    }

    init(
        name: Notification.Name, object: any AnyObject & Sendable, actions: ActionList,
        userInfo: [String: any Sendable]
    ) {
        self.name = name
        self.object = object
        self.storedActions = actions
        var userInfo = userInfo
        userInfo[Self.actionsKey] = actions
        self.userInfo = userInfo
    }

    /// The runs of a store's change notification, which a later change notification of the same
    /// store can merge into; `nil` for any other notification.
    var mergeableRuns: [ActionRun]? {
        guard name == .stateDidChange, let storedActions, userInfo.count == 1 else { return nil }
        return storedActions.runs
    }

    /// This change notification with the actions of later ones appended, as if the store had
    /// coalesced them.
    func merging(_ laterRuns: [ActionRun]) -> StoreNotification {
        guard let object, let storedActions else { return self }
        return StoreNotification(
            name: name, object: object, actions: ActionList(runs: storedActions.runs + laterRuns),
            userInfo: [:])
    }

    /// The `userInfo` key of the actions a store notification covers, as an ``ActionList``.
    static let actionsKey = "actions"
    /// The `userInfo` key of the action that failed, in a `dispatchDidFail` notification.
    static let actionKey = "action"
    /// The `userInfo` key of the error a reducer threw, in a `dispatchDidFail` notification.
    static let errorKey = "error"

    /// The actions this notification covers, in the order they were reduced.
    ///
    /// For `stateDidChange`, the actions whose changes it announces; for `dispatchDidFail`, the one
    /// action that failed. Empty for other notifications. Reading it copies nothing.
    public var actions: ActionList {
        if let storedActions { return storedActions }
        switch userInfo[Self.actionsKey] {
        case let list as ActionList: return list
        case let array as [any ActionProtocol]: return ActionList(array)
        default: return ActionList()
        }
    }

    /// The action that failed, for a `dispatchDidFail` notification.
    public var failedAction: (any ActionProtocol)? {
        userInfo[Self.actionKey] as? any ActionProtocol
    }

    /// The error a reducer threw, for a `dispatchDidFail` notification.
    public var error: (any Error)? {
        userInfo[Self.errorKey] as? any Error
    }
}

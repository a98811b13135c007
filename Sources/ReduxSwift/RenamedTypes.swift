// The names 0.1.0 gave types that now live inside the type they belong to. Each is deprecated with
// a fix-it to the new name, so code written for 0.1.0 still builds and says what to change.

/// The recording an ``ActionLog`` keeps: renamed ``ActionLog/Recording``.
@available(*, deprecated, renamed: "ActionLog.Recording")
public typealias ActionRecording = ActionLog.Recording

/// The error of a replay that stopped: renamed ``ActionLog/ReplayError``.
@available(*, deprecated, renamed: "ActionLog.ReplayError")
public typealias ActionLogError = ActionLog.ReplayError

/// The error of a dispatch lock used wrongly: renamed ``DispatchLock/ReleaseError``.
@available(*, deprecated, renamed: "DispatchLock.ReleaseError")
public typealias DispatchLockError = DispatchLock.ReleaseError

/// The actions a store notification covers: renamed ``StoreNotification/ActionList``.
@available(*, deprecated, renamed: "StoreNotification.ActionList")
public typealias ActionList = StoreNotification.ActionList

/// What an asynchronous action's body is handed: renamed ``AsyncAction/Context``.
@available(*, deprecated, renamed: "AsyncAction.Context")
public typealias AsyncActionContext<State: StateProtocol, Dependencies: Sendable> =
    AsyncAction<State, Dependencies>.Context

/// What a middleware is handed with each action: renamed ``Middleware/Context``.
@available(*, deprecated, renamed: "Middleware.Context")
public typealias MiddlewareContext<State: StateProtocol> = Middleware<State>.Context

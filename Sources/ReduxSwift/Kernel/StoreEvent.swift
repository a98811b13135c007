/// Something a store will post, kept in order until its delivery thread gets to it.
enum StoreEvent {
    /// Actions that committed, as runs of the batches they were reduced in.
    case changed([ActionRun])
    /// An action whose reducer threw, and the error.
    case failed(any ActionProtocol, any Error)
    /// A dispatch lock was released by its deinitializer: a programmer error to report.
    case lockAbandoned(DispatchLockError)
    /// A committed state does not round-trip through JSON: readers get an older copy. `warns` is
    /// true for the store's first such version, which is also reported as a runtime warning.
    case snapshotFailed(SnapshotError, warns: Bool)
}

extension StoreEvent {
    /// The notification that announces this event, posted by `sender`.
    func notification(from sender: any AnyObject & Sendable) -> StoreNotification {
        switch self {
        case .changed(let runs):
            return StoreNotification(
                name: .stateDidChange, object: sender, actions: ActionList(runs: runs), userInfo: [:])
        case .failed(let action, let error):
            return StoreNotification(
                name: .dispatchDidFail, object: sender, actions: ActionList([action]),
                userInfo: [StoreNotification.actionKey: action, StoreNotification.errorKey: error])
        case .lockAbandoned(let error as any Error), .snapshotFailed(let error as any Error, _):
            return StoreNotification(
                name: .dispatchDidFail, object: sender, actions: ActionList(),
                userInfo: [StoreNotification.errorKey: error])
        }
    }
}

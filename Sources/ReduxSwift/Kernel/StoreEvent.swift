/// Something a store will post, kept in order until its delivery thread gets to it.
enum StoreEvent {
    /// Actions that committed, as runs of the batches they were reduced in.
    case changed([ActionRun])
    /// An action whose reducer threw, and the error; `site` says where it failed.
    case failed(any ActionProtocol, any Error, site: FailureSite = .action)
    /// A dispatch lock was released by its deinitializer: a programmer error to report.
    case lockAbandoned(DispatchLock.ReleaseError)
    /// A committed state does not round-trip through JSON: readers get an older copy.
    case snapshotFailed(SnapshotError)
}

extension StoreEvent {
    /// The notification that announces this event, posted by `sender`.
    func notification(from sender: any AnyObject & Sendable) -> StoreNotification {
        switch self {
        case .changed(let runs):
            return StoreNotification(
                name: .stateDidChange, object: sender, actions: StoreNotification.ActionList(runs: runs),
                userInfo: [:])
        case .failed(let action, let error, _):
            return StoreNotification(
                name: .dispatchDidFail, object: sender, actions: StoreNotification.ActionList([action]),
                userInfo: [StoreNotification.actionKey: action, StoreNotification.errorKey: error])
        case .lockAbandoned(let error as any Error), .snapshotFailed(let error as any Error):
            return StoreNotification(
                name: .dispatchDidFail, object: sender, actions: StoreNotification.ActionList(),
                userInfo: [StoreNotification.errorKey: error])
        }
    }
}

/// Where an action failed: what a store's report of a failure nothing observes names (see
/// ``StoreKernel/reportUnobserved(_:_:site:)``).
enum FailureSite {
    /// A reducer threw on the action, its asynchronous work threw, or the store refused it.
    case action
    /// A reducer threw on `action`, an action of the failed batch (at any depth), or the store
    /// refused it there.
    case inBatch(any ActionProtocol)
    /// A middleware threw on the action.
    case middleware
    /// A reducer threw on an action of a transaction, whose ``StoreTransaction/commit()`` threw
    /// the failure to its caller.
    case transaction

    /// The error a reducer threw, and where: `error` itself, or the reducer's error inside it
    /// when it is a ``FailedInBatch``.
    static func unwrapping(_ error: any Error) -> (any Error, FailureSite) {
        guard let failure = error as? FailedInBatch else { return (error, .action) }
        return (failure.error, .inBatch(failure.action))
    }
}

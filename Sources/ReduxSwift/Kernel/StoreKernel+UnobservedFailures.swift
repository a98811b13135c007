extension StoreKernel {
    /// Reports a failure that no observer heard as a runtime warning, once per kind of action and
    /// store: a failed action must not go unnoticed while an app is being built (in a release
    /// build nothing is written; see ``RuntimeWarning``).
    ///
    /// Called on the delivery thread, after the failure was posted to no observer: nothing in the
    /// store's notification center observed ``Foundation/NSNotification/Name/dispatchDidFail``
    /// from this store when the store posted it. The kind of action is the type of the action
    /// that failed (in a batch, the action of the batch that failed), or for an ``AsyncAction``,
    /// its identifier. A transaction's failure is not reported: `commit()` threw it to its caller,
    /// and so is an async action dispatched twice, which is reported where it is dispatched.
    func reportUnobserved(_ action: any ActionProtocol, _ error: any Error, site: FailureSite) {
        let named: any ActionProtocol
        switch site {
        case .transaction: return
        case .action, .middleware: named = action
        case .inBatch(let failed): named = failed
        }
        if let error = error as? AsyncActionError, error.kind == .alreadyStarted { return }
        guard reportedFailureKinds.withLock({ $0.insert(Self.kind(of: named)).inserted }) else { return }
        RuntimeWarning.report(Self.unobservedFailure(action, error, site: site))
    }

    /// The kind of `action` a failure is reported once for.
    private static func kind(of action: any ActionProtocol) -> String {
        if let work = action as? any AsyncActionStarting { return "AsyncAction(\(work.identifier))" }
        return String(reflecting: type(of: action))
    }

    /// The warning for a failure of `action` (where `site` says) that nothing observed.
    static func unobservedFailure(_ action: any ActionProtocol, _ error: any Error, site: FailureSite)
        -> String
    {
        let what: String
        switch site {
        case .action, .transaction:
            what = "\(name(of: action)) failed; the state is as it was before it"
        case .inBatch(let failed):
            let count = ActionBatch.of(action)?.flattened().actions.count ?? 1
            what =
                "\(name(of: failed)) failed in a batch of \(count) action\(count == 1 ? "" : "s"), "
                + "so the whole batch was rolled back"
        case .middleware:
            what = "a middleware threw on \(name(of: action)), which was dropped"
        }
        return "\(what). It threw \(String(reflecting: type(of: error))): \(error). Nothing observes this "
            + "store's failures: observe them with observeFailures(queue:using:) (only the first failure "
            + "of each action type is reported here)."
    }

    /// How a warning names `action`: its identifier, such as `TodoAction.add`; an async action as
    /// `AsyncAction(todos.load)`, and a batch by its size.
    private static func name(of action: any ActionProtocol) -> String {
        if let work = action as? any AsyncActionStarting { return "AsyncAction(\(work.identifier))" }
        if let batch = ActionBatch.of(action) {
            return "a batch of \(batch.flattened().actions.count) actions"
        }
        return action.identifier
    }
}

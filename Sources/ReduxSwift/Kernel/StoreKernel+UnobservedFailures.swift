extension StoreKernel {
    /// What tells whether an observer hears the store's failure of `action`, to carry in its
    /// notification; `nil` for a failure that is never reported this way: a transaction's, which
    /// `commit()` threw to its caller, and a second dispatch of one async action, which is
    /// reported where it is dispatched.
    func hearing(_ action: any ActionProtocol, _ error: any Error, site: FailureSite) -> FailureHearing? {
        if case .transaction = site { return nil }
        if let error = error as? AsyncActionError, error.kind == .alreadyStarted { return nil }
        return FailureHearing { self.reportUnobserved(action, error, site: site) }
    }

    /// Reports a failure that no observer heard as a runtime warning, once per kind of action (its
    /// identifier) and store: a failed action must not go unnoticed while an app is being built (in a release
    /// build nothing is written; see ``RuntimeWarning``).
    ///
    /// Called by the ``FailureHearing`` of the failure's notification once no delivery of it is
    /// left, if no observer's block was called with it. The kind of action is the type of the
    /// action that failed (in a batch, the action of the batch that failed), or for an
    /// ``AsyncAction``, its identifier.
    func reportUnobserved(_ action: any ActionProtocol, _ error: any Error, site: FailureSite) {
        let named: any ActionProtocol
        switch site {
        case .transaction: return
        case .action, .middleware: named = action
        case .inBatch(let failed): named = failed
        }
        let (kind, type) = Self.kind(of: named)
        let isNew = reportedFailureKinds.withLock { kinds in
            // Past 64 kinds, identifiers may hold data (an id per action): one report per type.
            kinds.insert(kinds.count < Self.reportedKindLimit ? kind : type).inserted
        }
        guard isNew else { return }
        RuntimeWarning.report(Self.unobservedFailure(action, error, site: site))
    }

    /// How many kinds of failed action a store reports one by one before it reports only one per
    /// type.
    static let reportedKindLimit = 64

    /// The kind of `action` a failure is reported once for, its identifier within its type, so
    /// that each case of an enum is reported (`Probe.bad` and `Probe.worse`); and its type.
    private static func kind(of action: any ActionProtocol) -> (kind: String, type: String) {
        if let work = action as? any AsyncActionStarting {
            return ("AsyncAction(\(work.identifier))", "AsyncAction")
        }
        let type = String(reflecting: Swift.type(of: action))
        return ("\(type) \(action.identifier)", type)
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
            + "of each action is reported here)."
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

/// Whether an observer heard a store's failure; when it goes, a failure none heard is reported.
///
/// The store's notification of the failure carries it, to every observer, on the delivery thread
/// or in the observer's queue. A failure is heard when an observer's block is called with it (for
/// a ``Store/notifications(named:bufferingNewest:)`` stream, when the stream takes it). Cancelling
/// an observer drops its deliveries that have not begun, including those waiting in its queue;
/// once every delivery has been made or dropped, the last copy of the notification is released,
/// and with it this object, whose `deinit` reports the failure if no block was called with it. So
/// whether a failure was heard is decided when that is known, never when the store posts it: an
/// observer cancelled between the post and its call neither hears it nor silences its report.
///
/// The report runs on the thread that releases the last copy: the delivery thread when nothing
/// was delivered, the observer's queue, or the thread whose cancel dropped the delivery. It takes
/// no lock of the store or of its notification center.
final class FailureHearing: Sendable {
    private let heard = LockedValue(false)
    private let reportUnheard: @Sendable () -> Void

    init(reportUnheard: @escaping @Sendable () -> Void) {
        self.reportUnheard = reportUnheard
    }

    /// An observer's block is being called with the failure.
    func markHeard() {
        heard.withLock { $0 = true }
    }

    deinit {
        if !heard.withLock({ $0 }) { reportUnheard() }
    }
}

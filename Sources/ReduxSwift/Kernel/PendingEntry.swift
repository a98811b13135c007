/// The reducers of one registration, with the state type erased to a ``StatePointer``.
///
/// `Store` is generic over the client's `State`, and the library is compiled without knowing it,
/// so generic code runs unspecialized: every access to an `Array<Reducer<State>>` would look up
/// generic metadata at run time. Erasing each registration once lets the per-action loop run as
/// concrete, specialized code whatever `State` is.
///
/// Not `@Sendable`: an erased reducer captures only a `Reducer<State>` (which is `Sendable`) and the
/// `State` metatype, and it crosses threads only inside the store's lock-protected queue.
typealias ErasedReducer = (StatePointer, any ActionProtocol) throws -> Void

/// Something queued for a store's reducing queue, in one total order.
enum PendingEntry {
    case action(any ActionProtocol)
    /// An ``AsyncAction``: it goes through the middleware as any action does, and fails if it
    /// reaches the reducers, since nothing would ever run it (see ``ActionTypes``).
    case asyncAction(any ActionProtocol)
    /// Several actions reduced as one unit, all or nothing.
    case batch(ActionBatch)
    /// An action (or batch) an ``ActionLog`` replays: it committed once already, so the reducers
    /// alone apply it, and what they dispatch is dropped, since the log holds what those
    /// dispatches committed.
    case replayed(any ActionProtocol)
    /// A committed transaction's part an ``ActionLog`` replays: applied like ``replayed(_:)``, and
    /// kept by a history as a transaction is, as no step of its own.
    case replayedTransaction(ActionBatch)
    /// A history move an ``ActionLog`` replays, with the state it landed on when it was recorded.
    case replayedMove(ReplayedMove)
    case register([ErasedReducer])
    /// Middleware added to the end of the chain, which a removal names by `key`.
    case registerMiddleware([ErasedMiddleware], key: MiddlewareKey)
    /// The middleware registered with this key leave the chain, for good.
    case removeMiddleware(MiddlewareKey)
    /// The middleware registered with this key leave the chain until ``showMiddleware(_:)``: for
    /// the actions a lock held that a registration or removal made meanwhile must not affect.
    case hideMiddleware(MiddlewareKey)
    /// The middleware hidden with this key come back, at their places.
    case showMiddleware(MiddlewareKey)
    /// A journal (a history) starts keeping what commits from here on (see ``JournalStart``).
    case startJournal(JournalStart)
    // The two rare cases below are `indirect` (boxed), so that no payload is larger than an
    // existential: a larger entry made every dispatch of a plain action slower.

    /// An action a middleware passed on later: it continues with the middleware after the one in
    /// this slot (see ``MiddlewareLink/slot``).
    indirect case resume(any ActionProtocol, afterSlot: Int)
    /// Work done outside the store failed (an asynchronous action threw): announce it in order.
    indirect case failure(any ActionProtocol, any Error)
    /// This store's part of a transaction across stores: applied, then held until every store of
    /// the transaction is ready, then committed or undone.
    case transaction(TransactionParticipant)
    /// An action log starts recording what commits from here on.
    case startRecording(RecordingSink)
    /// An action log stops recording here, and learns that it has everything before.
    case stopRecording(RecordingSink)
    /// Starts an observer of values: the owner of the state selects its first value here, then
    /// after every pass that changes the state.
    case observe(any LiveSelection)
    /// A tap starts hearing every change and failure from here on (see ``ReductionTap``).
    case installTap(ErasedReductionTap)
}

/// Consecutive committed actions of one batch, announced together without copying each action.
/// A run never contains a registration or a failed action: both end it.
struct ActionRun {
    let entries: [PendingEntry]
    let range: Range<Int>
}

extension PendingEntry {
    /// The action observers hear about: the action, or the batch as one action.
    var announcedAction: any ActionProtocol {
        switch self {
        case .action(let action), .asyncAction(let action), .replayed(let action): return action
        case .batch(let batch), .replayedTransaction(let batch): return batch
        case .resume(let action, _), .failure(let action, _): return action
        case .transaction(let participant): return participant.batch
        case .replayedMove(let replayed): return replayed.move
        case .register, .registerMiddleware, .removeMiddleware, .hideMiddleware, .showMiddleware,
            .startJournal, .startRecording, .stopRecording, .observe, .installTap:
            preconditionFailure("a registration is never announced")
        }
    }
}

extension PendingEntry {
    /// The queue entry for `action`, with the type it was dispatched as (an existential is opened
    /// to the type it holds), which tells an ``AsyncAction`` apart (see ``ActionTypes``).
    @inline(__always)
    static func dispatched<Dispatched: ActionProtocol>(
        _ action: Dispatched
    ) -> (entry: PendingEntry, type: ObjectIdentifier) {
        (entry(for: action), ObjectIdentifier(Dispatched.self))
    }

    /// The queue entry for `action`: a batch gets its own case, so that the per-action loop never
    /// has to ask whether an action is a batch.
    ///
    /// Generic so that the question is one comparison of type metadata; an existential argument is
    /// opened, so its dynamic type is compared.
    @inline(__always)
    static func entry<Dispatched: ActionProtocol>(for action: Dispatched) -> PendingEntry {
        if ObjectIdentifier(Dispatched.self) == ObjectIdentifier(ActionBatch.self),
            let batch = action as? ActionBatch
        {
            return .batch(batch)
        }
        return .action(action)
    }
}

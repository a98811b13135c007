/// The reducers of one registration, with the state type erased to a ``StatePointer``.
///
/// `Store` is generic over the client's `State`, and the library is compiled without knowing it,
/// so generic code runs unspecialized: every access to an `Array<Reducer<State>>` would look up
/// generic metadata at run time. Erasing each registration once lets the per-action loop run as
/// concrete, specialized code whatever `State` is.
///
/// Not `@Sendable`: an erased reducer captures only a `Reducer<State>` (which is `Sendable`) and the
/// `State` metatype, and it crosses threads only inside the store's mutex-guarded queue.
typealias ErasedReducer = (StatePointer, any ActionProtocol) throws -> Void

/// Something queued for a store's reducing queue, in one total order.
///
/// Only what the per-action loop must tell apart at full speed is a case of its own: a plain
/// action, an async action, and a batch. Everything else is a ``PipelineCommand`` that handles
/// itself, carried by ``command(_:)``, so that a new kind of entry adds a type, not a case here.
/// No payload is larger than an existential: a larger entry made every dispatch of a plain action
/// slower.
enum QueueEntry {
    /// A plain action: reduced in runs, straight through the reducers when nothing needs to see
    /// each action on its own.
    case action(any ActionProtocol)
    /// An ``AsyncAction``: it goes through the middleware as any action does, and fails if it
    /// reaches the reducers, since nothing would ever run it (see ``ActionTypes``). A case of its
    /// own so that a plain action is never asked whether it is one.
    case asyncAction(any ActionProtocol)
    /// Several actions reduced as one unit, all or nothing. A case of its own so that a plain
    /// action is never asked whether it is a batch.
    case batch(ActionBatch)
    /// Anything else: a registration, a replayed action, a transaction's part, a failure to
    /// announce, an observer to start… (see ``PipelineCommand``).
    case command(any PipelineCommand)
}

/// Consecutive committed actions of one pass, announced together without copying each action.
/// A run never contains a registration or a failed action: both end it.
struct ActionRun {
    let entries: [QueueEntry]
    let range: Range<Int>
}

extension QueueEntry {
    /// The action observers hear about: the action, or the batch as one action.
    var announcedAction: any ActionProtocol {
        switch self {
        case .action(let action), .asyncAction(let action): return action
        case .batch(let batch): return batch
        case .command(let command): return command.announcedAction
        }
    }

    /// This store's part of a transaction, as the batch it applied, if the entry is one (see
    /// ``PipelineCommand/transactionPart``).
    var transactionPart: ActionBatch? {
        guard case .command(let command) = self else { return nil }
        return command.transactionPart
    }
}

extension QueueEntry {
    /// The queue entry for `action`, with the type it was dispatched as (an existential is opened
    /// to the type it holds), which tells an ``AsyncAction`` apart (see ``ActionTypes``).
    @inline(__always)
    static func dispatched<Dispatched: ActionProtocol>(
        _ action: Dispatched
    ) -> (entry: QueueEntry, type: ObjectIdentifier) {
        (entry(for: action), ObjectIdentifier(Dispatched.self))
    }

    /// The queue entry for `action`: a batch gets its own case, so that the per-action loop never
    /// has to ask whether an action is a batch.
    ///
    /// Generic so that the question is one comparison of type metadata; an existential argument is
    /// opened, so its dynamic type is compared.
    @inline(__always)
    static func entry<Dispatched: ActionProtocol>(for action: Dispatched) -> QueueEntry {
        if ObjectIdentifier(Dispatched.self) == ObjectIdentifier(ActionBatch.self),
            let batch = action as? ActionBatch
        {
            return .batch(batch)
        }
        return .action(action)
    }
}

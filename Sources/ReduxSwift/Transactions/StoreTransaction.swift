import Dispatch
import Foundation

/// Changes several stores atomically: either every store commits its actions or none does.
///
/// ```swift
/// var transaction = StoreTransaction()
/// transaction.dispatch(CartAction.checkOut, to: cartStore)
/// transaction.dispatch(OrderAction.place(order), to: orderStore)
/// do {
///     try transaction.commit()
/// } catch {
///     print(error)  // "OrderStore rejected the transaction: out of stock"; neither store changed
/// }
/// ```
///
/// Each store reduces its actions in order, as one batch, when it reaches them in its queue; then
/// it waits, changing nothing else, until every store of the transaction has reduced its own.
/// If a reducer of any store threw, every store is restored exactly; otherwise every store commits.
/// Observers of each store hear one ``Foundation/NSNotification/Name/stateDidChange`` after the
/// commit, listing that store's actions as one ``ActionBatch``; the store whose reducer threw posts
/// ``Foundation/NSNotification/Name/dispatchDidFail``.
///
/// Transactions never deadlock: one that shares stores with another waits for it, and stores are
/// taken in one global order whatever order you dispatch to them in. Dispatch locks do not hold a
/// transaction, whoever holds them (a lock cannot tell its holder from another thread, and the
/// committing thread may hold one): its parts pass the actions a lock is holding, including the
/// committing thread's own earlier ones. The actions go to the reducers
/// directly, without middleware, so a ``StoreHistory`` records the change with the next step.
/// Batches among them are expanded at any depth, as ``ActionBatch`` describes. An ``AsyncAction``
/// cannot be part of a transaction, which applies its actions at once and cannot wait for work:
/// `commit()` refuses it with ``TransactionError/Kind/asyncAction(storeIndex:identifier:)``.
/// `commit()` blocks the calling thread until every store has decided; call it from a thread that
/// no store waits for (not from a reducer, a middleware, or a state's `encode(to:)`, where it
/// throws ``TransactionError/Kind/calledFromStoreCode``).
public struct StoreTransaction: Sendable {
    private var parts: [Part] = []

    /// Creates an empty transaction.
    public init() {}

    /// Adds an action for a store; a store's actions are reduced in the order they were added.
    public mutating func dispatch<State: StateProtocol>(_ action: any ActionProtocol, to store: Store<State>)
    {
        if let index = parts.firstIndex(where: { $0.store === store }) {
            parts[index].actions.append(action)
        } else {
            parts.append(Part(store: store, actions: [action]))
        }
    }

    /// Applies the actions to every store, or to none.
    /// - Throws: ``TransactionError`` of kind ``TransactionError/Kind/rejected(storeIndex:actions:error:)``
    ///   when a reducer threw (no store changed);
    ///   ``TransactionError/Kind/asyncAction(storeIndex:identifier:)`` when an action is an
    ///   ``AsyncAction`` (nothing was dispatched, and the async action is left as it was);
    ///   ``TransactionError/Kind/calledFromStoreCode`` when called where a store would wait for
    ///   the caller.
    public func commit() throws(TransactionError) {
        guard ReducerContext.current == nil else { throw TransactionError(.calledFromStoreCode) }
        guard !parts.isEmpty else { return }
        for (index, part) in parts.enumerated() {
            if let work = ActionBatch(part.actions).firstAsyncAction {
                throw TransactionError(.asyncAction(storeIndex: index, identifier: work.identifier))
            }
        }
        // One global order, so that transactions sharing stores take them alike and never wait for
        // each other in a cycle.
        let ordered = parts.sorted { ObjectIdentifier($0.store) < ObjectIdentifier($1.store) }
        for part in ordered { part.store.transactionGate.lock() }
        defer { for part in ordered.reversed() { part.store.transactionGate.unlock() } }

        let participants = parts.map { TransactionParticipant(batch: ActionBatch($0.actions)) }
        for (part, participant) in zip(parts, participants) {
            part.store.enqueueTransactionPart(participant)
            part.store.lendPriorityIfMainThread()
        }
        var rejection: TransactionError?
        for (index, participant) in participants.enumerated() {
            if let error = participant.waitUntilPrepared(), rejection == nil {
                rejection = TransactionError(
                    .rejected(storeIndex: index, actions: participant.batch, error: error))
            }
        }
        for participant in participants { participant.decide(commit: rejection == nil) }
        if let rejection { throw rejection }
    }

    private struct Part: Sendable {
        let store: any TransactionStore
        var actions: [any ActionProtocol]
    }
}

/// A store's side of a transaction, with no generic parameter.
protocol TransactionStore: AnyObject, Sendable {
    /// Held by the transaction that uses the store, so that two never interleave on it.
    var transactionGate: NSLock { get }
    func enqueueTransactionPart(_ participant: TransactionParticipant)
    /// See ``Store/lendPriorityIfMainThread()``: the committing thread waits for the store's queue.
    func lendPriorityIfMainThread()
}

extension Store: TransactionStore {
    /// Queued in order with earlier dispatches, but never held by a dispatch lock: the committing
    /// thread may be the one holding it, and would wait for itself.
    func enqueueTransactionPart(_ participant: TransactionParticipant) {
        if core.enqueuePassingLocks(.transaction(participant)) { scheduleDrain() }
    }
}

/// One store's part of a transaction: its actions, and the two hand-overs between the store's
/// queue and the committing thread.
///
/// `@unchecked Sendable`: `error` is written before `prepared` is signalled and read after it is
/// waited for; `shouldCommit` likewise with `decided`.
final class TransactionParticipant: @unchecked Sendable {
    let batch: ActionBatch
    private let prepared = DispatchSemaphore(value: 0)
    private let decided = DispatchSemaphore(value: 0)
    private var error: (any Error)?
    private var shouldCommit = false

    init(batch: ActionBatch) {
        self.batch = batch
    }

    /// The store's queue: the actions were applied (`nil`) or a reducer threw.
    func reportPrepared(_ error: (any Error)?) {
        self.error = error
        prepared.signal()
    }

    /// The committing thread: waits for the store, and returns what its reducers threw.
    func waitUntilPrepared() -> (any Error)? {
        prepared.wait()
        return error
    }

    /// The committing thread: tells the store to commit or undo.
    func decide(commit: Bool) {
        shouldCommit = commit
        decided.signal()
    }

    /// The store's queue: waits for the decision.
    func awaitDecision() -> Bool {
        decided.wait()
        return shouldCommit
    }
}

extension ReductionPipeline {
    /// Applies a transaction's actions for this store, reports, waits for the decision, and then
    /// keeps or undoes the change. The state is made the checkpoint first, so undoing it is exact.
    mutating func takePart(
        in participant: TransactionParticipant, state: UnsafeMutableRawPointer, context: ReducerContext,
        into result: inout ReducedBatch
    ) {
        checkpoints.take(state)
        clearLog()
        let entries = [PendingEntry.transaction(participant)]
        let mark = context.deferredDispatchCount
        switch applyBatch(at: 0, of: entries, state: state, context: context) {
        case .failed(let error, _):
            context.discardDispatches(from: mark)
            participant.reportPrepared(error)
            _ = participant.awaitDecision()
            result.events.append(.failed(participant.batch, error))
        case .committed:
            participant.reportPrepared(nil)
            if participant.awaitDecision() {
                result.changes += 1
                result.events.appendChange([ActionRun(entries: entries, range: 0..<1)])
                context.releaseDispatches()
            } else {
                checkpoints.restore(state)
                clearLog()
                context.discardDispatches(from: mark)
            }
        }
        if context.hasDeferredRegistrations {
            for newReducers in context.takeRegistrations() { register(newReducers) }
        }
    }
}

import Dispatch
import Foundation

/// Changes several stores atomically: either every store commits its actions or none does.
///
/// ```swift
/// var transaction = StoreTransaction()
/// transaction.add(CartAction.checkOut, to: cartStore)
/// transaction.add(OrderAction.place(order), to: orderStore)
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
/// directly, without middleware, so a ``StoreHistory`` makes no step of it, and every move keeps it.
/// Batches among them are expanded at any depth, as ``ActionBatch`` describes. An ``AsyncAction``
/// cannot be part of a transaction, which applies its actions at once and cannot wait for work:
/// `commit()` refuses it with ``TransactionError/Kind/asyncAction(storeIndex:identifier:)``.
/// `commit()` blocks the calling thread until every store has decided; call it from a thread that
/// no store waits for (not from a reducer, a middleware, or a state's `encode(to:)`, where it
/// throws ``TransactionError/Kind/calledFromStoreCode``).
public struct StoreTransaction: Sendable {
    private var parts: [Part] = []

    /// Creates an empty transaction.
    ///
    /// ```swift
    /// var transaction = StoreTransaction()
    /// transaction.add(CartAction.clear, to: cartStore)
    /// transaction.add(OrderAction.place(order), to: orderStore)
    /// try transaction.commit()
    /// ```
    public init() {}

    /// Adds an action for a store to the transaction; nothing is dispatched until ``commit()``.
    ///
    /// A store's actions are reduced in the order they were added.
    public mutating func add<State: StateProtocol>(_ action: any ActionProtocol, to store: Store<State>) {
        if let index = parts.firstIndex(where: { $0.kernel === store.kernel }) {
            parts[index].actions.append(action)
        } else {
            parts.append(Part(kernel: store.kernel, store: store, actions: [action]))
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
        guard StoreCodeScope.current == nil else { throw TransactionError(.calledFromStoreCode) }
        guard !parts.isEmpty else { return }
        for (index, part) in parts.enumerated() {
            if let work = ActionBatch(part.actions).firstAsyncAction {
                throw TransactionError(.asyncAction(storeIndex: index, identifier: work.identifier))
            }
        }
        // One global order, so that transactions sharing stores take them alike and never wait for
        // each other in a cycle.
        let ordered = parts.sorted { ObjectIdentifier($0.kernel) < ObjectIdentifier($1.kernel) }
        for part in ordered { part.kernel.transactionGate.lock() }
        defer { for part in ordered.reversed() { part.kernel.transactionGate.unlock() } }

        let participants = parts.map { TransactionParticipant(batch: ActionBatch($0.actions)) }
        for (part, participant) in zip(parts, participants) {
            // Queued in order with earlier dispatches, but never held by a dispatch lock: the
            // committing thread may be the one holding it, and would wait for itself.
            part.kernel.enqueue(.command(TakePartInTransaction(participant: participant)), .neverHeld)
            part.kernel.lendPriorityIfMainThread()
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
        let kernel: StoreKernel
        /// Kept alive until the commit, so that it announces its part.
        let store: any AnyObject & Sendable
        var actions: [any ActionProtocol]
    }
}

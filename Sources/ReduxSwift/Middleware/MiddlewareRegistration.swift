/// Middleware added with ``Store/register(middleware:)``, which ``remove()`` takes out of the
/// store's chain again.
///
/// ```swift
/// let logging = store.register(middleware: [.logger()])
/// store.dispatch(TodoAction.add("Milk"))  // logged
/// logging.remove()
/// store.dispatch(TodoAction.add("Eggs"))  // not logged
/// ```
///
/// A registration does not keep the store alive, and may be kept, copied and used from any thread.
/// The middleware a store was created with stay for the store's whole life.
public struct MiddlewareRegistration: Sendable {
    /// The store's kernel, while it exists: a registration kept after its store is gone keeps
    /// neither the store nor its state alive.
    private weak var kernel: StoreKernel?
    /// What the store's chain knows these middleware by.
    private let key: MiddlewareKey

    init(kernel: StoreKernel?, key: MiddlewareKey) {
        self.kernel = kernel
        self.key = key
    }

    /// Takes these middleware out of the store's chain, in order with dispatches: the actions
    /// dispatched before the call still go through them, and those dispatched after it do not,
    /// whatever order dispatch locks let them through in (an action sent through a lock afterwards
    /// skips them; one the lock held since before goes through them).
    ///
    /// The other middleware keep their order. An action one of these middleware holds back with
    /// ``Middleware/Context/nextLater()`` continues, when passed on, with the middleware after it
    /// that are still in the chain; work an ``AsyncAction`` already started goes on, and what it
    /// dispatches is reduced. Once a store has no middleware left, it reduces actions as a store
    /// created without any does, with no pass through a chain.
    ///
    /// Called from inside a reducer or a middleware of this store, the removal is made like a
    /// dispatch from there: right after the current action has been handled, ahead of the actions
    /// already queued, and not at all if it fails. From a reducer or a middleware of another store,
    /// it joins this store's queue when that store's action commits, in order with the dispatches
    /// made there, and is dropped if that action fails. Calling it again, or once the store is
    /// gone, does nothing.
    public func remove() {
        guard let kernel, let store = kernel.store else { return }
        withExtendedLifetime(store) { kernel.queueChainChange(RemoveMiddleware(key: key)) }
    }
}

/// The identity of the middleware one registration added to a store's chain. Compared by
/// identity, and held by the chain as long as they are in it, so no other registration can
/// have the same.
final class MiddlewareKey: Sendable {}

extension StoreKernel {
    /// Queues a change to the middleware chain like a dispatch made at the same place: from this
    /// store's reducers or middleware, once the current action has been handled (dropped if it
    /// fails, and while a rollback re-applies actions, whose first run already made it); from
    /// another store's, into this store's queue once that action commits (dropped if it fails);
    /// otherwise now, in order (see ``enqueueChainChange(_:)``).
    func queueChainChange(_ change: some MiddlewareChainChange) {
        let entry = QueueEntry.command(change)
        if StoreCodeScope.deferIfReducing(entry, to: .chainChange(self)) { return }
        enqueueChainChange(entry)
    }

    /// Queues a chain change made outside store code so that it affects exactly the actions queued
    /// after it, those sent through a dispatch lock included (see
    /// ``StoreMachine/enqueueChainChange(_:)``).
    func enqueueChainChange(_ entry: QueueEntry) {
        guard case .command(let command) = entry, let change = command as? any MiddlewareChainChange else {
            preconditionFailure("only a registration or a removal of middleware changes the chain")
        }
        enqueueChain(change.chainChange)
    }
}

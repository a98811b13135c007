/// Hears every change and failure a store announces, each with the state it left: what
/// `TestStore` (in `ReduxSwiftTesting`) checks, whatever made the change (the middleware chain,
/// a ``StoreTransaction``, an ``ActionLog`` replay, a history move, or async work that failed).
///
/// Called on the store's queue, as the owner of the state, right where the store records the
/// announcement, so in the order observers hear them: `error` is `nil` for an action (or batch,
/// transaction part or move) that committed, and the error for one that failed. A committed
/// action is heard once, with the state right after it, even among replayed actions that would
/// otherwise commit in runs. It must not dispatch, read or wait for the store.
package typealias ReductionTap<State> =
    @Sendable (_ action: any ActionProtocol, _ error: (any Error)?, _ state: State) -> Void

/// A ``ReductionTap`` with the state's type erased to its address, as the pipeline calls it.
typealias ErasedReductionTap = (any ActionProtocol, (any Error)?, StatePointer) -> Void

extension Store {
    /// Makes `tap` hear every change and failure from the actions dispatched after this call on,
    /// in order with them; it replaces any tap installed before.
    package func installTap(_ tap: @escaping ReductionTap<State>) {
        kernel.enqueue(
            .installTap({ action, error, pointer in
                tap(action, error, pointer.assuming(State.self).pointee)
            }))
    }

    /// Waits until the store has posted every notification it announced before the call, so that
    /// observers called on the delivery thread (`queue: nil`) have heard them; returns at once
    /// inside store code or on a thread delivering a store's notifications.
    package func waitForAnnouncements() {
        kernel.waitForAnnouncedEvents()
    }
}

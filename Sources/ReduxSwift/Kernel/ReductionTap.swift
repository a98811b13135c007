/// Hears every change and failure a store announces, each with the state it left: what
/// `TestStore` (in `ReduxSwiftTesting`) checks, whatever made the change (the middleware chain,
/// a ``StoreTransaction``, an ``ActionLog`` replay, a history move, or async work that failed).
///
/// Called on the store's queue, as the holder of the state, right where the store records the
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
    /// in order with them, and `storeFailures` every failure of the store itself from now on (a
    /// `DispatchLock` freed without being released, a state that cannot round-trip), in order with
    /// `tap`'s calls; both replace any installed before.
    package func installTap(
        _ tap: @escaping ReductionTap<State>, storeFailures: @escaping @Sendable (any Error) -> Void
    ) {
        kernel.storeFailureTap.withLock { $0 = storeFailures }
        kernel.enqueue(
            .command(
                InstallTap { action, error, pointer in
                    tap(action, error, pointer.assuming(State.self).pointee)
                }))
    }
}

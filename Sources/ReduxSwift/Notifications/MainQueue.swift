import Dispatch

/// The main queue, for observers whose block is isolated to the main actor.
///
/// Every observing method that takes a `queue` also takes ``main``. A block delivered on the main
/// queue runs on the main actor, so with `queue: .main` the block is `@MainActor`: it can update
/// views and main-actor properties directly, without `MainActor.assumeIsolated`.
///
/// ```swift
/// @MainActor
/// final class CounterViewModel {
///     var count = 0
///     private var tokens: [ObserverToken] = []
///
///     init(store: AppStore) {
///         tokens.append(store.observe(\.counter, queue: .main) { [weak self] in self?.count = $0 })
///     }
/// }
/// ```
///
/// `DispatchQueue.main` spelled out, like any other `DispatchQueue`, gives the block the plain
/// `@Sendable` type of the other overload.
public struct MainQueue: Sendable {
    /// The main queue: blocks run there, on the main actor.
    public static var main: MainQueue { MainQueue() }

    private init() {}

    /// `block` as a block for the main queue: every observing method with `queue: .main` registers
    /// this on `DispatchQueue.main`, so all it adds is the main actor's isolation, checked.
    ///
    /// (`Value` has no constraints, so that the block captures no conformance of it, which a
    /// `@Sendable` closure may not.)
    static func adapt<Value>(
        _ block: @escaping @MainActor @Sendable (Value) -> Void
    ) -> @Sendable (Value) -> Void {
        { value in
            let handover = Handover(value: value)
            MainActor.assumeIsolated { block(handover.value) }
        }
    }

    /// The same for blocks that also take their observer's owner.
    static func adapt<Owner, Value>(
        _ block: @escaping @MainActor @Sendable (Owner, Value) -> Void
    ) -> @Sendable (Owner, Value) -> Void {
        let adapted = adapt { (call: (owner: Owner, value: Value)) in block(call.owner, call.value) }
        return { owner, value in adapted((owner, value)) }
    }
}

/// Hands a value to a main-actor block that runs at once, in the same call.
///
/// `@unchecked Sendable`: a `Handover` is created in `MainQueue.adapt`'s block, which the store
/// runs on the main queue, and read only by `MainActor.assumeIsolated`, which runs its body
/// synchronously, in that same call, before returning: the value is never used anywhere else at
/// the same time. (Value observers keep their last value to compare with the next one, but with
/// a queue they select, compare and deliver on that queue, here the main queue, which is serial,
/// so those uses never overlap the block's either.)
private struct Handover<Value>: @unchecked Sendable {
    let value: Value
}

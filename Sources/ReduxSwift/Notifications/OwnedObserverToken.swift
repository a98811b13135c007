/// A registration that lives as long as its owner, returned by the observing methods that take an
/// `owner` (``Store/observeChanges(owner:queue:using:)-(_,DispatchQueue?,_)`` and
/// ``Store/observe(_:owner:queue:using:)-(_,_,DispatchQueue?,_)``).
///
/// The observer stops when its owner is freed; keeping this token is optional, and only needed to
/// stop earlier with ``cancel()``. It is a value with no lifetime of its own: copying it or dropping
/// it changes nothing, which is what sets it apart from ``ObserverToken``, whose release cancels.
///
/// ```swift
/// final class TodoListModel: Sendable {
///     private let observation: OwnedObserverToken
///
///     init(store: AppStore) {
///         observation = store.observeChanges(owner: self) { model, _ in model.reload() }
///     }
///
///     func pause() {
///         observation.cancel()  // stops before the model is freed
///     }
/// }
/// ```
public struct OwnedObserverToken: Sendable {
    private let center: StoreNotificationCenter
    private let entry: ObserverEntry

    init(center: StoreNotificationCenter, entry: ObserverEntry) {
        self.center = center
        self.entry = entry
    }

    /// Removes the observer now, with the guarantees of ``ObserverToken/cancel()``: once it returns,
    /// the block is not called again. Safe to call more than once, from any thread.
    public func cancel() {
        center.cancel(entry)
    }
}

/// A registration with a ``StoreNotificationCenter``; the observer stays registered while you keep it.
///
/// Call ``cancel()`` to stop observing, or simply release the token: its `deinit` cancels.
///
/// ```swift
/// final class BadgeService {
///     private var token: ObserverToken?
///
///     func start() {
///         token = AppStore.shared.notificationCenter.addObserver(
///             forName: .stateDidChange, object: AppStore.shared, queue: nil
///         ) { _ in
///             updateBadge(AppStore.shared.currentState().unreadCount)
///         }
///     }
/// }
/// ```
///
/// A token keeps neither its store nor its observer's sender alive.
public final class ObserverToken: Sendable {
    private let center: StoreNotificationCenter
    private let entry: ObserverEntry
    /// `false` for registrations that live with an owner instead of with the token.
    private let cancelsOnRelease: Bool

    init(center: StoreNotificationCenter, entry: ObserverEntry, cancelsOnRelease: Bool = true) {
        self.center = center
        self.entry = entry
        self.cancelsOnRelease = cancelsOnRelease
    }

    /// Removes the observer. Safe to call more than once, from any thread, including from inside the
    /// observer's own block.
    ///
    /// Once `cancel()` returns, the observer's block is not called again, not even for
    /// notifications that were already queued for it. A call that had already begun on another
    /// thread runs to its end; `cancel()` does not wait for it, because waiting would deadlock if
    /// that block were waiting for the cancelling thread (for example with `DispatchQueue.main.sync`).
    public func cancel() {
        if entry.deactivate() {
            center.remove(entry)
        }
    }

    deinit {
        if cancelsOnRelease { cancel() }
    }
}

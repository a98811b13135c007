import Dispatch
import Foundation

extension Store {
    /// Observes this store's ``Foundation/NSNotification/Name/stateDidChange`` notifications.
    ///
    /// ```swift
    /// let token = store.observeChanges(queue: serviceQueue) { notification in
    ///     sync(store.currentState())
    /// }
    /// ```
    ///
    /// With `queue: .main`, the main-actor overload ``observeChanges(queue:using:)-(MainQueue,_)``
    /// is chosen instead.
    ///
    /// - Parameters:
    ///   - queue: Where to run `block`; `nil` runs it on the store's delivery thread.
    ///   - block: Receives each notification.
    /// - Returns: A token that removes the observer when cancelled or released.
    @_disfavoredOverload  // so that `queue: .main`, which fits both, picks the main-actor overload
    public func observeChanges(
        queue: DispatchQueue? = nil,
        using block: @escaping @Sendable (StoreNotification) -> Void
    ) -> ObserverToken {
        notificationCenter.addObserver(forName: .stateDidChange, object: self, queue: queue, using: block)
    }

    /// Observes this store's ``Foundation/NSNotification/Name/dispatchDidFail`` notifications.
    ///
    /// ```swift
    /// let failures = store.observeFailures { notification in
    ///     report(notification.failedAction, notification.error)
    /// }
    /// ```
    ///
    /// A failure this block is called with is heard, and the store reports it no further. A failure
    /// no observer's block is called with (none was registered, or a cancel dropped its delivery,
    /// queued or not yet begun) is reported in debug builds as a runtime warning, once per action
    /// type per store (see <doc:TheDispatchPipeline>).
    ///
    /// - Parameters:
    ///   - queue: Where to run `block`; `nil` runs it on the store's delivery thread.
    ///   - block: Receives each notification, with ``StoreNotification/failedAction`` and
    ///     ``StoreNotification/error``.
    /// - Returns: A token that removes the observer when cancelled or released.
    @_disfavoredOverload  // so that `queue: .main`, which fits both, picks the main-actor overload
    public func observeFailures(
        queue: DispatchQueue? = nil,
        using block: @escaping @Sendable (StoreNotification) -> Void
    ) -> ObserverToken {
        notificationCenter.addObserver(forName: .dispatchDidFail, object: self, queue: queue, using: block)
    }

    /// Observes this store's ``Foundation/NSNotification/Name/stateDidChange`` notifications on the
    /// main actor.
    ///
    /// A block delivered on the main queue runs on the main actor, so this block is `@MainActor`:
    /// main-actor code can observe the store the obvious way.
    ///
    /// ```swift
    /// @MainActor
    /// final class CounterViewModel {
    ///     private(set) var text = ""
    ///     private var token: ObserverToken?
    ///
    ///     func start() {
    ///         token = AppStore.shared.observeChanges(queue: .main) { [weak self] _ in
    ///             self?.render()
    ///         }
    ///     }
    ///
    ///     func render() {
    ///         text = "\(AppStore.shared.currentState().counter)"
    ///     }
    /// }
    /// ```
    ///
    /// It behaves like the `DispatchQueue` overload given `DispatchQueue.main`: notifications that
    /// arrive while a call waits in the main queue merge into it, and once the token is cancelled
    /// the block is not called again.
    ///
    /// - Parameters:
    ///   - queue: ``MainQueue/main``.
    ///   - block: Receives each notification, on the main actor.
    /// - Returns: A token that removes the observer when cancelled or released.
    public func observeChanges(
        queue: MainQueue,
        using block: @escaping @MainActor @Sendable (StoreNotification) -> Void
    ) -> ObserverToken {
        observeChanges(queue: DispatchQueue.main, using: MainQueue.adapt(block))
    }

    /// Observes this store's ``Foundation/NSNotification/Name/dispatchDidFail`` notifications on the
    /// main actor, as ``observeChanges(queue:using:)-(MainQueue,_)`` does changes.
    ///
    /// - Parameters:
    ///   - queue: ``MainQueue/main``.
    ///   - block: Receives each notification, with ``StoreNotification/failedAction`` and
    ///     ``StoreNotification/error``, on the main actor.
    /// - Returns: A token that removes the observer when cancelled or released.
    public func observeFailures(
        queue: MainQueue,
        using block: @escaping @MainActor @Sendable (StoreNotification) -> Void
    ) -> ObserverToken {
        observeFailures(queue: DispatchQueue.main, using: MainQueue.adapt(block))
    }
}

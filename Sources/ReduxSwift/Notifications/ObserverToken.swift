/// A registration with a ``StoreNotificationCenter``; the observer stays registered while you keep it.
///
/// Call ``cancel()`` to stop observing, or simply release the token: its `deinit` cancels, except
/// for an observer tied to an owner (`observe(_:owner:queue:fileID:line:column:using:)`), which
/// lives as long as its holder unless cancelled or replaced. ``cancel()`` is the primary way to stop;
/// ``StoreNotificationCenter/removeObserver(_:)`` does the same, in `NotificationCenter`'s words.
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
    /// The center the observer was added to; `nil` for value observers, which the store keeps.
    let center: StoreNotificationCenter?
    private let observer: any CancellableObserver
    /// Whether releasing the token cancels; not for observers tied to an owner's life.
    private let cancelsOnRelease: Bool

    init(
        center: StoreNotificationCenter?, observer: any CancellableObserver, cancelsOnRelease: Bool = true
    ) {
        self.center = center
        self.observer = observer
        self.cancelsOnRelease = cancelsOnRelease
    }

    /// Removes the observer. Safe to call more than once, from any thread, including from inside the
    /// observer's own block.
    ///
    /// Once `cancel()` returns, the observer's block is not called again, not even for
    /// notifications that were already queued for it, and no call is under way on another thread:
    /// a call that had already begun there is waited for. (For value observers, the call is the
    /// call of your block; a selector running on the store's queue is not waited for, and its value
    /// is never delivered.) Called from inside the block, `cancel()` returns at once, and the call
    /// under way runs to its end.
    ///
    /// Because it may wait, do not call it while holding something the block waits for: a block
    /// that runs `DispatchQueue.main.sync` must not be cancelled from the main thread while it
    /// runs. Two blocks that cancel each other at once do not wait for each other, and inside a
    /// reducer or an `encode(to:)`, `cancel()` never waits (the call under way may be waiting for
    /// that store); there a call that had already begun may still be running when it returns.
    public func cancel() {
        observer.cancel(removingFrom: center)
    }

    /// Removes the observer without waiting for a call under way on another thread; for observers
    /// of the library whose late calls change nothing (an `AsyncStream` drops what is yielded after
    /// it ends).
    func cancelWithoutWaiting() {
        if observer.deactivate() { observer.remove(from: center) }
    }

    /// Whether the observer may still be called: it was not cancelled or replaced, and the store
    /// has not yet found its owner freed (tests check which registrations are live).
    var isActive: Bool { observer.gate.isOpen }

    /// Whether a thread has waited for a call under way, such as a ``cancel()`` from another thread
    /// (tests check that it waits).
    var wasWaitedFor: Bool { observer.gate.wasWaitedFor }

    /// Releasing cancels, and waits like ``cancel()`` only when the release is what removes the
    /// observer: a token cancelled before (perhaps deliberately without waiting, by an
    /// `AsyncStream`'s termination handler, which may run while Swift holds a lock that the
    /// delivering thread needs) is not waited for again by whichever thread frees it.
    deinit {
        guard cancelsOnRelease, observer.deactivate() else { return }
        observer.remove(from: center)
        observer.gate.waitForCallsOnOtherThreads()
    }
}

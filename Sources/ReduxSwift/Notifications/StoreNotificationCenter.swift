import Dispatch
import Foundation

#if canImport(Synchronization) && !canImport(Darwin)
import Synchronization
#endif

/// A registry of observers that stores post their notifications to, modelled on `NotificationCenter`.
///
/// Every ``Store`` posts to the center it was created with, ``default`` unless you pass another.
/// Observers filter by name and by sender, and are delivered either synchronously on the posting
/// thread (`queue: nil`) or asynchronously on a `DispatchQueue` of their choice.
///
/// ```swift
/// let token = StoreNotificationCenter.default.addObserver(
///     forName: .stateDidChange, object: AppStore.shared, queue: .main
/// ) { notification in
///     render(AppStore.shared.currentState())
/// }
/// ```
///
/// Keep the returned ``ObserverToken``: the observer is removed when you call
/// ``ObserverToken/cancel()`` or when the token is released.
///
/// To observe one store, ``Store/observeChanges(queue:using:)-(DispatchQueue?,_)`` and
/// ``Store/observeFailures(queue:using:)-(DispatchQueue?,_)`` are the primary way and do the same as
/// ``addObserver(forName:object:queue:using:)-(_,_,DispatchQueue?,_)`` with the store as `object`.
/// The center's methods keep `NotificationCenter`'s names for code written in that style, and are
/// the way to observe every store at once (`object: nil`) or notifications you post yourself.
///
/// All methods may be called from any thread, including from inside an observer's block.
/// Adding or removing an observer costs O(log n) amortized; a post visits only the observers whose
/// name and sender filters can match.
public final class StoreNotificationCenter: Sendable {
    /// The center that stores use unless they are given another.
    public static let `default` = StoreNotificationCenter()

    private let registry = LockedValue(ObserverRegistry())

    /// Observers that could hear a store's ``Foundation/NSNotification/Name/stateDidChange``
    /// (named so, or named `nil`), whatever their object: a store that finds none builds no
    /// notification for its change and does not go to its delivery thread for it.
    private let changeListeners = ObserverCount()

    /// Creates an empty center, for example to isolate a group of stores in tests.
    ///
    /// ```swift
    /// let center = StoreNotificationCenter()
    /// let store = Store(reducers: AppReducers.reducers, state: AppState(), notificationCenter: center)
    /// ```
    public init() {}

    /// Registers a block to run for matching notifications.
    ///
    /// - Parameters:
    ///   - name: The notification name to observe, or `nil` for every name.
    ///   - object: The sender to observe, or `nil` for every sender (every store). The center keeps
    ///     only a weak reference to it.
    ///   - queue: Where to run `block`: `nil` runs it synchronously on the posting thread (for a
    ///     store, its delivery thread); a queue runs it asynchronously there, in posting order for a
    ///     serial queue. At most one block per observer waits in the queue: a store's change
    ///     notifications that arrive while it waits merge into one, listing every action in order.
    ///   - block: The code to run; it receives the notification.
    /// - Returns: A token that removes the observer when cancelled or released.
    @_disfavoredOverload  // so that `queue: .main`, which fits both, picks the main-actor overload
    public func addObserver(
        forName name: Notification.Name?,
        object: (any AnyObject & Sendable)?,
        queue: DispatchQueue?,
        using block: @escaping @Sendable (StoreNotification) -> Void
    ) -> ObserverToken {
        let observer = register(forName: name, object: object, queue: queue, using: block)
        return ObserverToken(center: self, observer: observer)
    }

    /// Registers a main-actor block to run on the main queue for matching notifications.
    ///
    /// A block delivered on the main queue runs on the main actor, so this block is `@MainActor`.
    /// It behaves like ``addObserver(forName:object:queue:using:)-(_,_,DispatchQueue?,_)`` given
    /// `DispatchQueue.main`.
    ///
    /// ```swift
    /// let token = StoreNotificationCenter.default.addObserver(
    ///     forName: .dispatchDidFail, object: AppStore.shared, queue: .main
    /// ) { [weak self] notification in
    ///     self?.showAlert(for: notification.error)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: The notification name to observe, or `nil` for every name.
    ///   - object: The sender to observe, or `nil` for every sender. The center keeps only a weak
    ///     reference to it.
    ///   - queue: ``MainQueue/main``.
    ///   - block: The code to run, on the main actor; it receives the notification.
    /// - Returns: A token that removes the observer when cancelled or released.
    public func addObserver(
        forName name: Notification.Name?,
        object: (any AnyObject & Sendable)?,
        queue: MainQueue,
        using block: @escaping @MainActor @Sendable (StoreNotification) -> Void
    ) -> ObserverToken {
        addObserver(forName: name, object: object, queue: DispatchQueue.main, using: MainQueue.adapt(block))
    }

    /// Adds an observer and returns it, for callers that manage its removal themselves.
    ///
    /// - Parameter gate: `nil` to run each call of `block` through the observer, its own gate; or the gate
    ///   that `block` itself passes around the user's code (observers that wait for the store or
    ///   decode first, which must not make a cancelling thread wait for that).
    func register(
        forName name: Notification.Name?,
        object: (any AnyObject & Sendable)?,
        queue: DispatchQueue?,
        gate: CallGate? = nil,
        using block: @escaping @Sendable (StoreNotification) -> Void
    ) -> CenterObserver {
        // Counted before the observer can be reached, so that an action dispatched after this
        // returns finds it counted.
        if Self.canHearChanges(name) { changeListeners.add(1) }
        return registry.withLock {
            $0.add(name: name, object: object, queue: queue, gate: gate, block: block)
        }
    }

    /// Delivers `notification` to every matching observer, in the order they were added.
    ///
    /// Observers without a queue run before this method returns, on the calling thread; the others
    /// are scheduled on their queues. Observers added or removed while a post is under way do not
    /// change the set that post delivers to, except that a removed observer is never called again.
    public func post(_ notification: StoreNotification) {
        let objectID = notification.object.map { ObjectIdentifier($0) }
        let (lists, sender) = registry.withLock { registry in
            (
                registry.candidates(name: notification.name, objectID: objectID),
                notification.object.flatMap { registry.senderBox(of: $0) }
            )
        }
        switch lists.count {
        case 0:
            return
        case 1:
            for case let observer? in lists[0] { observer.deliver(notification, sender: sender) }
        default:
            Self.forEachInRegistrationOrder(lists) { observer in
                observer.deliver(notification, sender: sender)
            }
        }
    }

    /// Removes the observer that `token` stands for, if it was added to this center; the same as
    /// ``ObserverToken/cancel()`` then. A token of another center is left alone, as
    /// `NotificationCenter` leaves an observer it does not hold.
    public func removeObserver(_ token: ObserverToken) {
        guard token.center === self else { return }
        token.cancel()
    }

    /// How many observers are registered.
    var observerCount: Int {
        registry.withLock { $0.count }
    }

    func remove(_ observer: CenterObserver) {
        let removed = registry.withLock { $0.remove(observer) }
        if removed, Self.canHearChanges(observer.name) { changeListeners.add(-1) }
    }

    /// Whether an observer may hear a ``Foundation/NSNotification/Name/stateDidChange`` now.
    ///
    /// A store asks after reducing and before announcing: an observer added before an action was
    /// dispatched is counted by then. Without a lock on Linux, so it costs a change nothing.
    var mayHearChanges: Bool { changeListeners.value > 0 }

    private static func canHearChanges(_ name: Notification.Name?) -> Bool {
        name == nil || name == .stateDidChange
    }

    /// Merges lists that are each sorted by id, calling `body` once per live observer in id order.
    private static func forEachInRegistrationOrder(
        _ lists: [[CenterObserver?]], _ body: (CenterObserver) -> Void
    ) {
        var positions = [Int](repeating: 0, count: lists.count)
        while true {
            var next: (list: Int, observer: CenterObserver)?
            for list in lists.indices {
                var position = positions[list]
                while position < lists[list].count, lists[list][position] == nil { position += 1 }
                positions[list] = position
                guard position < lists[list].count, let observer = lists[list][position] else { continue }
                if next == nil || observer.id < next!.observer.id { next = (list, observer) }
            }
            guard let (list, observer) = next else { return }
            positions[list] += 1
            body(observer)
        }
    }
}

/// A count that one thread changes and others read.
///
/// `@unchecked Sendable`: the only stored property is an atomic (or a `LockedValue`).
final class ObserverCount: @unchecked Sendable {
    #if canImport(Synchronization) && !canImport(Darwin)
    /// An atomic where the platform floor allows it (Linux); on Apple platforms `Atomic` needs
    /// macOS 15 and its peers, so there it is a `LockedValue`, whose `os_unfair_lock` is about as
    /// cheap.
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .acquiring) }

    func add(_ delta: Int) { count.wrappingAdd(delta, ordering: .releasing) }
    #else
    private let count = LockedValue(0)

    var value: Int { count.withLock { $0 } }

    func add(_ delta: Int) { count.withLock { $0 += delta } }
    #endif
}

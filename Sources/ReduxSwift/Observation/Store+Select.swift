import Dispatch
import Foundation

extension Store {
    /// Observes a value derived from the state: its current value now, then each new value.
    ///
    /// The block hears the selected value once when you start observing, then after each change
    /// of the state that changes the value; changes elsewhere in the state are skipped. Pass a
    /// key path or a closure:
    ///
    /// ```swift
    /// let token = store.observe(\.todos) { todos in
    ///     render(todos)
    /// }
    /// let count = store.observe({ $0.todos.count }, queue: .main) { count in
    ///     badge.text = "\(count)"  // on the main actor
    /// }
    /// ```
    ///
    /// With `queue: .main`, the main-actor overload
    /// ``observe(_:queue:using:)-(_,MainQueue,_)`` is chosen, and the block is `@MainActor`.
    ///
    /// Each value is selected from a decoded copy of the state, like ``currentState()``, shared with
    /// nothing in the store. (Selector observers that run on the same thread share one decoded copy
    /// per change, so that a thousand of them decode once; only a selected class instance could
    /// tell.) With `queue: nil`, the first value is delivered before this method returns, on the
    /// calling thread, and later ones on the store's delivery thread; with a queue, all of them on
    /// the queue. Deliveries to one observer never overlap, and never go back to an older state: a
    /// value that comes while the block runs is delivered after it returns, by the same thread, and
    /// only the newest such value is. No lock is held while the block runs, so it may post, read,
    /// dispatch or cancel. Once ``ObserverToken/cancel()`` returns, the block is not called again.
    ///
    /// - Parameters:
    ///   - select: Picks the value out of the state.
    ///   - queue: Where to run `block`; `nil` as described above.
    ///   - block: Receives the value.
    /// - Returns: A token that removes the observer when cancelled or released.
    @_disfavoredOverload  // so that `queue: .main`, which fits both, picks the main-actor overload
    public func observe<Value: Equatable>(
        _ select: @escaping @Sendable (State) -> Value,
        queue: DispatchQueue? = nil,
        using block: @escaping @Sendable (Value) -> Void
    ) -> ObserverToken {
        ObserverToken(
            center: notificationCenter,
            entry: register(
                EquatableSelection(store: self, select: select, deliver: block), queue: queue, owner: nil))
    }

    /// Observes a value derived from the state on the main actor: its current value, then each new
    /// value.
    ///
    /// A block delivered on the main queue runs on the main actor, so this block is `@MainActor`
    /// and can set main-actor properties directly:
    ///
    /// ```swift
    /// @MainActor
    /// final class CounterViewModel {
    ///     var count = 0
    ///     private var token: ObserverToken?
    ///
    ///     func start() {
    ///         token = AppStore.shared.observe(\.counter, queue: .main) { [weak self] in
    ///             self?.count = $0
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// It behaves like the `DispatchQueue` overload given `DispatchQueue.main`: every value,
    /// the first one included, is delivered on the main queue, so the first arrives after this
    /// method returns.
    ///
    /// - Parameters:
    ///   - select: Picks the value out of the state.
    ///   - queue: ``MainQueue/main``.
    ///   - block: Receives the value, on the main actor.
    /// - Returns: A token that removes the observer when cancelled or released.
    public func observe<Value: Equatable>(
        _ select: @escaping @Sendable (State) -> Value,
        queue: MainQueue,
        using block: @escaping @MainActor @Sendable (Value) -> Void
    ) -> ObserverToken {
        observe(select, queue: DispatchQueue.main, using: MainQueue.adapt(block))
    }

    /// Observes a value derived from the state, with your own test for "unchanged".
    ///
    /// Use it for values that are not `Equatable`, or to compare only what matters:
    ///
    /// ```swift
    /// let token = store.observe(
    ///     \.document, removingDuplicates: { $0.revision == $1.revision }
    /// ) { document in
    ///     editor.show(document)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - select: Picks the value out of the state.
    ///   - isDuplicate: Returns `true` when the new value (second) counts as the previous one
    ///     (first), so it is not delivered.
    ///   - queue: Where to run `block`, as in ``observe(_:queue:using:)-(_,DispatchQueue?,_)``.
    ///   - block: Receives the value.
    /// - Returns: A token that removes the observer when cancelled or released.
    @_disfavoredOverload  // so that `queue: .main`, which fits both, picks the main-actor overload
    public func observe<Value>(
        _ select: @escaping @Sendable (State) -> Value,
        removingDuplicates isDuplicate: @escaping @Sendable (Value, Value) -> Bool,
        queue: DispatchQueue? = nil,
        using block: @escaping @Sendable (Value) -> Void
    ) -> ObserverToken {
        let selection = CustomSelection(store: self, select: select, isDuplicate: isDuplicate, deliver: block)
        return ObserverToken(center: notificationCenter, entry: register(selection, queue: queue, owner: nil))
    }

    /// Observes a value derived from the state, with your own test for "unchanged", on the main
    /// actor.
    ///
    /// Like ``observe(_:queue:using:)-(_,MainQueue,_)``, with `isDuplicate` deciding what counts
    /// as unchanged.
    ///
    /// - Parameters:
    ///   - select: Picks the value out of the state.
    ///   - isDuplicate: Returns `true` when the new value (second) counts as the previous one
    ///     (first), so it is not delivered.
    ///   - queue: ``MainQueue/main``.
    ///   - block: Receives the value, on the main actor.
    /// - Returns: A token that removes the observer when cancelled or released.
    public func observe<Value>(
        _ select: @escaping @Sendable (State) -> Value,
        removingDuplicates isDuplicate: @escaping @Sendable (Value, Value) -> Bool,
        queue: MainQueue,
        using block: @escaping @MainActor @Sendable (Value) -> Void
    ) -> ObserverToken {
        observe(
            select, removingDuplicates: isDuplicate, queue: DispatchQueue.main, using: MainQueue.adapt(block))
    }

    /// Observes this store's changes for as long as `owner` lives.
    ///
    /// The block receives the owner, so it needs no `[weak self]`. The store does not keep the
    /// owner alive; once the owner is freed, the block is not called again and the registration is
    /// removed at the next notification. You need not keep the returned token; keep it only to
    /// stop observing earlier.
    ///
    /// ```swift
    /// final class TodoListModel: Sendable {
    ///     init(store: AppStore) {
    ///         store.observeChanges(owner: self) { model, notification in
    ///             model.reload()
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - owner: The object the registration lives with.
    ///   - queue: Where to run `block`; `nil` runs it on the store's delivery thread.
    ///   - block: Receives the owner and each notification.
    /// - Returns: A token that stops observing earlier when cancelled; dropping it changes nothing.
    @discardableResult
    @_disfavoredOverload  // so that `queue: .main`, which fits both, picks the main-actor overload
    public func observeChanges<Owner: AnyObject & Sendable>(
        owner: Owner,
        queue: DispatchQueue? = nil,
        using block: @escaping @Sendable (Owner, StoreNotification) -> Void
    ) -> OwnedObserverToken {
        let link = OwnerLink(owner)
        let entry = notificationCenter.register(forName: .stateDidChange, object: self, queue: queue) {
            [link] notification in
            guard let owner = link.owner else { return link.detach() }
            block(owner, notification)
        }
        link.attach(entry, center: notificationCenter)
        return OwnedObserverToken(center: notificationCenter, entry: entry)
    }

    /// Observes this store's changes on the main actor for as long as `owner` lives.
    ///
    /// A main-actor class is `Sendable`, so a view model can be the owner, and the block, which
    /// runs on the main actor, can use it directly:
    ///
    /// ```swift
    /// @MainActor
    /// final class CounterViewModel {
    ///     private(set) var text = ""
    ///
    ///     init(store: AppStore) {
    ///         store.observeChanges(owner: self, queue: .main) { model, _ in
    ///             model.text = "\(store.currentState().counter)"
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - owner: The object the registration lives with.
    ///   - queue: ``MainQueue/main``.
    ///   - block: Receives the owner and each notification, on the main actor.
    /// - Returns: A token that stops observing earlier when cancelled; dropping it changes nothing.
    @discardableResult
    public func observeChanges<Owner: AnyObject & Sendable>(
        owner: Owner,
        queue: MainQueue,
        using block: @escaping @MainActor @Sendable (Owner, StoreNotification) -> Void
    ) -> OwnedObserverToken {
        observeChanges(owner: owner, queue: DispatchQueue.main, using: MainQueue.adapt(block))
    }

    /// Observes a value derived from the state for as long as `owner` lives.
    ///
    /// Like ``observe(_:queue:using:)-(_,DispatchQueue?,_)``, with the owner passed to the block
    /// and the registration tied to the owner's life, as in
    /// ``observeChanges(owner:queue:using:)-(_,DispatchQueue?,_)``:
    ///
    /// ```swift
    /// store.observe(\.todos, owner: self) { model, todos in
    ///     model.rows = todos
    /// }
    /// ```
    ///
    /// - Returns: A token that stops observing earlier when cancelled; dropping it changes nothing.
    @discardableResult
    @_disfavoredOverload  // so that `queue: .main`, which fits both, picks the main-actor overload
    public func observe<Value: Equatable, Owner: AnyObject & Sendable>(
        _ select: @escaping @Sendable (State) -> Value,
        owner: Owner,
        queue: DispatchQueue? = nil,
        using block: @escaping @Sendable (Owner, Value) -> Void
    ) -> OwnedObserverToken {
        let link = OwnerLink(owner)
        let selection = OwnedSelection(store: self, select: select, link: link, deliver: block)
        return OwnedObserverToken(
            center: notificationCenter, entry: register(selection, queue: queue, owner: link))
    }

    /// Observes a value derived from the state on the main actor for as long as `owner` lives.
    ///
    /// Like ``observe(_:queue:using:)-(_,MainQueue,_)``, with the owner passed to the block and
    /// the registration tied to the owner's life:
    ///
    /// ```swift
    /// store.observe(\.todos, owner: self, queue: .main) { model, todos in
    ///     model.rows = todos
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - select: Picks the value out of the state.
    ///   - owner: The object the registration lives with.
    ///   - queue: ``MainQueue/main``.
    ///   - block: Receives the owner and the value, on the main actor.
    /// - Returns: A token that stops observing earlier when cancelled; dropping it changes nothing.
    @discardableResult
    public func observe<Value: Equatable, Owner: AnyObject & Sendable>(
        _ select: @escaping @Sendable (State) -> Value,
        owner: Owner,
        queue: MainQueue,
        using block: @escaping @MainActor @Sendable (Owner, Value) -> Void
    ) -> OwnedObserverToken {
        observe(select, owner: owner, queue: DispatchQueue.main, using: MainQueue.adapt(block))
    }

    /// Registers `handler` for this store's changes, then gives it the current state.
    private func register(
        _ handler: any SelectionHandler, queue: DispatchQueue?, owner: (any OwnerBinding)?
    ) -> ObserverEntry {
        // Without a queue, this thread delivers the first value, and any value that a change
        // brings before it has: claimed before registering, so no other thread delivers first.
        if queue == nil { handler.becomeDeliverer() }
        let entry = notificationCenter.register(
            forName: .stateDidChange, object: self, queue: queue, gate: handler.gate
        ) { [handler] _ in
            handler.stateDidChange()
        }
        owner?.attach(entry, center: notificationCenter)
        if let queue {
            queue.async { [handler] in handler.stateDidChange() }
        } else {
            handler.deliverFirstValue()
        }
        return entry
    }
}

/// What a store's observation helpers run on each change, named without the state's type so that
/// `@Sendable` blocks capture no generic metatype.
protocol ChangeHandler: AnyObject, Sendable {
    /// Reacts to a change of the store's state.
    func stateDidChange()
}

/// A selector observer, as its registration sees it.
protocol SelectionHandler: ChangeHandler {
    /// The gate every call of the user's block passes.
    var gate: CallGate { get }
    /// Makes the calling thread the one that delivers, until ``deliverFirstValue()`` returns.
    func becomeDeliverer()
    /// Delivers the current value on the calling thread, with any value that arrives meanwhile;
    /// the caller must have called ``becomeDeliverer()``.
    func deliverFirstValue()
}

/// A selector observer: reads the newest snapshot, selects, skips repeats, delivers.
///
/// Subclasses say what a repeat is. (A closure calling `==` would capture `Value`'s metatype, which
/// a `@Sendable` closure may not.)
///
/// No lock is held while waiting for the store, selecting, comparing or delivering, so the block
/// may post, dispatch, read or cancel, and a post from a reducer never waits for a delivery.
/// Deliveries still never overlap or go backwards: the thread that finds no delivery under way
/// becomes the deliverer and delivers the newest value offered until none is left; a thread that
/// finds one under way leaves its value to that deliverer (newer values replace older ones) and
/// returns.
///
/// `@unchecked Sendable`, because the compiler cannot check a class that is subclassed, nor
/// `lastValue`, which stays outside the lock so that comparing with it (user code, in a subclass)
/// holds none: `mailbox` is a `LockedValue`; `lastValue` is read and written only by the
/// deliverer, which the mailbox's lock hands from thread to thread; `store` is a weak reference
/// assigned once, in `init`; the other properties are immutable. `Value` need not be `Sendable`:
/// a value selected on one thread may be delivered by another, the mailbox's lock ordering the
/// hand-over, and is used by one thread at a time.
class Selection<State: StateProtocol, Value>: SelectionHandler, @unchecked Sendable {
    private struct Mailbox {
        /// The newest version offered.
        var newestVersion: UInt64?
        /// The newest value offered and not yet taken by the deliverer.
        var pending: Value?
        /// Whether a thread is delivering; it takes `pending` until it is empty.
        var isDelivering = false
    }

    private weak var store: Store<State>?
    private let select: @Sendable (State) -> Value
    private let deliver: (@Sendable (Value) -> Void)?
    let gate = CallGate()
    private let mailbox = LockedValue(Mailbox())
    /// The last value delivered (or skipped as a repeat); only the deliverer touches it.
    private var lastValue: Value?

    init(
        store: Store<State>,
        select: @escaping @Sendable (State) -> Value,
        deliver: (@Sendable (Value) -> Void)?
    ) {
        self.store = store
        self.select = select
        self.deliver = deliver
    }

    /// Hands a new value to the observer.
    func deliverValue(_ value: Value) {
        deliver?(value)
    }

    /// Whether `next` counts as `previous`, so it is not delivered.
    func isDuplicate(_ previous: Value, _ next: Value) -> Bool {
        false
    }

    func stateDidChange() {
        guard let (version, value) = selectNewest() else { return }
        if offer(value, version: version, asDeliverer: false).mustDeliver { deliverOffered() }
    }

    func becomeDeliverer() {
        mailbox.withLock { $0.isDelivering = true }
    }

    func deliverFirstValue() {
        if let (version, value) = selectNewest() {
            _ = offer(value, version: version, asDeliverer: true)
        }
        deliverOffered()
    }

    /// The value selected from the newest snapshot, unless the observer is cancelled, the version
    /// was already offered, or the state cannot round-trip (`snapshot()` reports why).
    private func selectNewest() -> (UInt64, Value)? {
        guard gate.isOpen, let store else { return nil }
        let snapshot = store.kernel.latestSnapshot()
        let isNew = mailbox.withLock { mailbox in
            mailbox.newestVersion.map { snapshot.version > $0 } ?? true
        }
        // Selector observers of one store that run on the same thread share one decoded state per
        // version: a thousand selectors cost one decode.
        guard isNew, let state = store.observationCache.decodedState(of: snapshot, in: store) else {
            return nil
        }
        return (snapshot.version, select(state))
    }

    /// Offers a value; returns whether the caller must deliver it (no delivery was under way), and
    /// the older value it replaced, which the caller releases after the lock: its `deinit` may be
    /// user code.
    private func offer(_ value: Value, version: UInt64, asDeliverer: Bool) -> (
        mustDeliver: Bool, replaced: Value?
    ) {
        mailbox.withLock { mailbox in
            if let newest = mailbox.newestVersion, version <= newest { return (false, nil) }
            mailbox.newestVersion = version
            let replaced = mailbox.pending
            mailbox.pending = value
            if mailbox.isDelivering && !asDeliverer { return (false, replaced) }
            mailbox.isDelivering = true
            return (true, replaced)
        }
    }

    /// Delivers offered values until none is left, then stops being the deliverer.
    private func deliverOffered() {
        while let value = mailbox.withLock({ mailbox -> Value? in
            guard let value = mailbox.pending else {
                mailbox.isDelivering = false
                return nil
            }
            mailbox.pending = nil
            return value
        }) {
            if let lastValue, isDuplicate(lastValue, value) { continue }
            lastValue = value
            gate.run { deliverValue(value) }
        }
    }
}

/// Skips values equal to the previous one.
class EquatableSelection<State: StateProtocol, Value: Equatable>: Selection<State, Value>, @unchecked Sendable
{
    // `@unchecked Sendable`: adds only immutable properties; `Selection`'s note covers the rest.
    override func isDuplicate(_ previous: Value, _ next: Value) -> Bool {
        previous == next
    }
}

/// Skips values the caller's closure calls duplicates.
final class CustomSelection<State: StateProtocol, Value>: Selection<State, Value>, @unchecked Sendable {
    // `@unchecked Sendable`: adds only immutable properties; `Selection`'s note covers the rest.
    private let duplicate: @Sendable (Value, Value) -> Bool

    init(
        store: Store<State>,
        select: @escaping @Sendable (State) -> Value,
        isDuplicate: @escaping @Sendable (Value, Value) -> Bool,
        deliver: @escaping @Sendable (Value) -> Void
    ) {
        duplicate = isDuplicate
        super.init(store: store, select: select, deliver: deliver)
    }

    override func isDuplicate(_ previous: Value, _ next: Value) -> Bool {
        duplicate(previous, next)
    }
}

/// Skips equal values and delivers to a block that takes the owner, while the owner lives.
final class OwnedSelection<State: StateProtocol, Value: Equatable, Owner: AnyObject>:
    EquatableSelection<State, Value>, @unchecked Sendable
{
    // `@unchecked Sendable`: adds only immutable properties; `Selection`'s note covers the rest.
    private let link: OwnerLink<Owner>
    private let ownedDeliver: @Sendable (Owner, Value) -> Void

    init(
        store: Store<State>,
        select: @escaping @Sendable (State) -> Value,
        link: OwnerLink<Owner>,
        deliver: @escaping @Sendable (Owner, Value) -> Void
    ) {
        self.link = link
        ownedDeliver = deliver
        super.init(store: store, select: select, deliver: nil)
    }

    override func deliverValue(_ value: Value) {
        guard let owner = link.owner else { return link.detach() }
        ownedDeliver(owner, value)
    }
}

/// The part of an ``OwnerLink`` that does not depend on the owner's type.
protocol OwnerBinding: AnyObject, Sendable {
    func attach(_ entry: ObserverEntry, center: StoreNotificationCenter)
}

/// Ties a registration to an owner without keeping the owner alive.
///
/// `@unchecked Sendable`: `owner`, `entry` and `center` are weak references; `entry` and `center`
/// are written once by `attach`, before the registration can deliver anything that reads them
/// (the center's lock orders the write before every delivery).
final class OwnerLink<Owner: AnyObject>: OwnerBinding, @unchecked Sendable {
    private(set) weak var owner: Owner?
    private weak var entry: ObserverEntry?
    private weak var center: StoreNotificationCenter?

    init(_ owner: Owner) {
        self.owner = owner
    }

    func attach(_ entry: ObserverEntry, center: StoreNotificationCenter) {
        self.entry = entry
        self.center = center
    }

    /// Removes the registration once the owner is gone.
    func detach() {
        if let entry, entry.deactivate() { center?.remove(entry) }
    }
}

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

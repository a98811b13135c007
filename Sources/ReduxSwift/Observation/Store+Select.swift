import Dispatch
import Foundation

extension Store {
    /// Observes a value derived from the state: its current value, then each new value.
    ///
    /// Pass a key path or a closure that picks what you show; the block hears it once when you
    /// start, then after each change of the state that changes it:
    ///
    /// ```swift
    /// let token = store.observe(\.todos) { todos in
    ///     render(todos)
    /// }
    /// let badge = store.observe({ $0.todos.count }, queue: .main) { count in
    ///     label.text = "\(count)"  // on the main actor
    /// }
    /// ```
    ///
    /// **What it costs.** The store's own queue runs `select` on its live state after each pass
    /// of committed actions: no JSON and no copy of the state, so a change costs what `select`
    /// reads, at any state size. Only the selected value leaves the store, and it must be
    /// `Sendable`. A value type shares no mutable storage with the live state (a selected array
    /// shares its buffer until the store's next change to it copies that buffer, as any Swift
    /// value does); a class instance that the state holds is handed out as the store's own
    /// object, as `Sendable` allows, so select values rather than objects you would change. Keep
    /// `select` a plain function of the state: it runs on the store's queue, where a read of a
    /// store returns its last published snapshot without waiting.
    ///
    /// **What counts as unchanged.** When `Value` is `Equatable`, a value equal to the previous one
    /// is not delivered, so changes elsewhere in the state are skipped. A value that is not
    /// `Equatable` is delivered after every pass of committed actions, whether or not they changed
    /// it (the store does not compare states); select an `Equatable` part to skip the rest.
    ///
    /// **Where and when.** With `queue: nil`, the first value is delivered before this method
    /// returns, on the calling thread, and later ones on the store's delivery thread; with a queue,
    /// all of them on the queue. (Called from a reducer, a middleware or a selector, where it cannot
    /// wait for the store, the first value comes on the delivery thread too.) The first value
    /// reflects every action dispatched before this call, except those a dispatch lock holds, as
    /// for ``currentState()``. Deliveries to one observer never overlap
    /// and never go back to an older value: a value that comes while the block runs replaces any
    /// older one waiting, and is delivered after the block returns. No lock is held while the
    /// block runs, so it may dispatch, read or cancel. Once ``ObserverToken/cancel()`` returns,
    /// the block is not called again.
    ///
    /// With `queue: .main`, the main-actor overload ``observe(_:queue:using:)-(_,MainQueue,_)`` is
    /// chosen, and the block is `@MainActor`.
    ///
    /// - Parameters:
    ///   - select: Picks the value out of the state.
    ///   - queue: Where to run `block`; `nil` as described above.
    ///   - block: Receives the value.
    /// - Returns: A token that removes the observer when cancelled or released.
    @_disfavoredOverload  // so that `queue: .main`, which fits both, picks the main-actor overload
    public func observe<Value: Sendable>(
        _ select: @escaping @Sendable (State) -> Value,
        queue: DispatchQueue? = nil,
        using block: @escaping @Sendable (Value) -> Void
    ) -> ObserverToken {
        ObserverToken(
            center: nil, observer: startObserver(select, queue: queue, owner: nil, deliver: block),
            cancelsOnRelease: true)
    }

    /// Observes a value derived from the state on the main actor: its current value, then each new
    /// value.
    ///
    /// The store's queue selects each value off the main thread; the main actor receives only
    /// values that changed, ready to show, so it never waits for the store or reads the whole
    /// state:
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
    public func observe<Value: Sendable>(
        _ select: @escaping @Sendable (State) -> Value,
        queue: MainQueue,
        using block: @escaping @MainActor @Sendable (Value) -> Void
    ) -> ObserverToken {
        observe(select, queue: DispatchQueue.main, using: MainQueue.adapt(block))
    }

    /// Observes a value derived from the state for as long as `owner` lives; observing again from
    /// the same place with the same owner replaces the earlier registration.
    ///
    /// Like ``observe(_:queue:using:)-(_,DispatchQueue?,_)``, with the owner passed to the block,
    /// so it needs no `[weak self]`. The store does not keep the owner alive; once the owner is
    /// freed, the block is not called again and the store forgets the observer. You need not keep
    /// the returned token; keep it only to stop observing earlier:
    ///
    /// ```swift
    /// final class TodoListModel: Sendable {
    ///     init(store: AppStore) {
    ///         store.observe(\.todos, owner: self) { model, todos in
    ///             model.show(todos)
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// **What counts as unchanged.** As for every value observer: when `Value` is
    /// `Equatable`, a value equal to the previous one is not delivered. A value that is not
    /// `Equatable` is delivered after every pass of committed actions, whether or not they changed
    /// it (the store does not compare states), and never after a pass whose actions all failed;
    /// select an `Equatable` part to skip the rest.
    ///
    /// **Observing again.** A registration is identified by its owner (the object, not its
    /// address) and the place in the code that makes it: `fileID`, `line` and `column`, which
    /// default to the place of the call. Observing again with the same owner from the same place
    /// (a `viewWillAppear` that observes each time, as with ReSwift's `subscribe(self)`) replaces
    /// the earlier registration: the earlier observer is cancelled as ``ObserverToken/cancel()``
    /// cancels, so once this method returns its block is not called again (a call under way on
    /// another thread is waited for, with the exceptions of `cancel()`), and the new one delivers
    /// its first value as any new observer does. Cancelling the earlier token afterwards does
    /// nothing to the new registration. The value, the selector, the queue and the block may all
    /// differ: the place decides, so a loop that observes several values with one owner from one
    /// line keeps only the last. Two different places with one owner are two registrations, and
    /// observing without an owner always adds one.
    ///
    /// A helper that observes on behalf of its callers forwards its own caller's place, the way a
    /// test helper forwards `#fileID` and `#line`, so that each of its callers keeps a
    /// registration of its own:
    ///
    /// ```swift
    /// extension AppStore {
    ///     /// Shows the number of todos in `label` for as long as the label lives.
    ///     func showTodoCount(
    ///         in label: CountLabel,
    ///         fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column
    ///     ) {
    ///         observe(
    ///             \.todos.count, owner: label, queue: .main, fileID: fileID, line: line, column: column
    ///         ) { label, count in
    ///             label.text = "\(count) todos"
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - select: Picks the value out of the state.
    ///   - owner: The object the registration lives with.
    ///   - queue: Where to run `block`, as for ``observe(_:queue:using:)-(_,DispatchQueue?,_)``.
    ///   - fileID: With `line` and `column`, the place that identifies the registration; the
    ///     caller's file unless a helper forwards its own caller's.
    ///   - line: The line of that place; the caller's unless forwarded.
    ///   - column: The column of that place; the caller's unless forwarded.
    ///   - block: Receives the owner and the value.
    /// - Returns: A token that stops observing earlier when cancelled; releasing it changes nothing.
    @discardableResult
    @_disfavoredOverload  // so that `queue: .main`, which fits both, picks the main-actor overload
    public func observe<Value: Sendable, Owner: AnyObject & Sendable>(
        _ select: @escaping @Sendable (State) -> Value,
        owner: Owner,
        queue: DispatchQueue? = nil,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        column: UInt = #column,
        using block: @escaping @Sendable (Owner, Value) -> Void
    ) -> ObserverToken {
        let link = OwnerLink(owner)
        let observer = makeObserver(select, queue: queue, owner: link) { value in
            guard let owner = link.owner else { return link.detach() }
            block(owner, value)
        }
        // Registered before it starts: a replacement racing this call from another thread may
        // cancel it before its first value, which it then never selects.
        let replaced = ownerRegistry.register(
            observer, owner: owner, at: CodePlace(fileID: fileID, line: line, column: column))
        replaced?.cancel(removingFrom: nil)
        observer.start(firstValueHere: queue == nil)
        return ObserverToken(center: nil, observer: observer, cancelsOnRelease: false)
    }

    /// Observes a value derived from the state on the main actor for as long as `owner` lives;
    /// observing again from the same place with the same owner replaces the earlier registration.
    ///
    /// The view-model pattern: a main-actor class is `Sendable`, so it can be the owner, and the
    /// block, which runs on the main actor, sets its properties directly. The main actor receives
    /// only values that changed, selected off the main thread:
    ///
    /// ```swift
    /// @MainActor
    /// final class CounterViewModel {
    ///     private(set) var text = ""
    ///
    ///     init(store: AppStore) {
    ///         store.observe(\.counter, owner: self, queue: .main) { model, counter in
    ///             model.text = "\(counter)"
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// It behaves like the `DispatchQueue` overload
    /// ``observe(_:owner:queue:fileID:line:column:using:)-(_,_,DispatchQueue?,_,_,_,_)`` given
    /// `DispatchQueue.main`: every value, the first one included, is delivered on the main queue;
    /// an `Equatable` value only when it changed, one that is not `Equatable` after every pass of
    /// committed actions; and observing again with the same owner from the same place (a
    /// `viewWillAppear` that observes each time) replaces the earlier registration, whose block is
    /// not called again once this method returns.
    ///
    /// - Parameters:
    ///   - select: Picks the value out of the state.
    ///   - owner: The object the registration lives with.
    ///   - queue: ``MainQueue/main``.
    ///   - fileID: With `line` and `column`, the place that identifies the registration; the
    ///     caller's file unless a helper forwards its own caller's.
    ///   - line: The line of that place; the caller's unless forwarded.
    ///   - column: The column of that place; the caller's unless forwarded.
    ///   - block: Receives the owner and the value, on the main actor.
    /// - Returns: A token that stops observing earlier when cancelled; releasing it changes nothing.
    @discardableResult
    public func observe<Value: Sendable, Owner: AnyObject & Sendable>(
        _ select: @escaping @Sendable (State) -> Value,
        owner: Owner,
        queue: MainQueue,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        column: UInt = #column,
        using block: @escaping @MainActor @Sendable (Owner, Value) -> Void
    ) -> ObserverToken {
        observe(
            select, owner: owner, queue: DispatchQueue.main, fileID: fileID, line: line, column: column,
            using: MainQueue.adapt(block))
    }

    /// Starts a value observer delivered on `queue`, or on the delivery thread. With
    /// `firstValueHere` (the default without a queue), the first value is delivered on this
    /// thread before the call returns.
    func startObserver<Value: Sendable>(
        _ select: @escaping @Sendable (State) -> Value,
        queue: DispatchQueue?,
        owner: (any OwnerBinding)?,
        firstValueHere: Bool? = nil,
        deliver: @escaping @Sendable (Value) -> Void
    ) -> ValueObserver<State, Value> {
        let observer = makeObserver(select, queue: queue, owner: owner, deliver: deliver)
        observer.start(firstValueHere: firstValueHere ?? (queue == nil))
        return observer
    }

    /// A value observer delivered on `queue`, or on the delivery thread, not yet started.
    private func makeObserver<Value: Sendable>(
        _ select: @escaping @Sendable (State) -> Value,
        queue: DispatchQueue?,
        owner: (any OwnerBinding)?,
        deliver: @escaping @Sendable (Value) -> Void
    ) -> ValueObserver<State, Value> {
        ValueObserver(
            kernel: kernel, select: select, isDuplicate: Equality.of(Value.self),
            target: queue.map { .queue($0) } ?? .deliveryThread, owner: owner, deliver: deliver)
    }
}

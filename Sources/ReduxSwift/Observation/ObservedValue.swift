#if canImport(Observation)
import Dispatch
import Observation

/// A value derived from a store's state for SwiftUI and other clients of the Observation
/// framework, kept on the main actor and updated only when it changes.
///
/// ```swift
/// struct TodoList: View {
///     @State private var todos = ObservedValue(AppStore.shared) { $0.todos }
///     @State private var unfinished = ObservedValue(AppStore.shared) { $0.todos.count { !$0.isCompleted } }
///
///     var body: some View {
///         List(todos.value, id: \.id) { todo in Text(todo.text) }
///             .badge(unfinished.value)
///     }
/// }
/// ```
///
/// The store's queue selects each value from its live state, off the main thread, and only a
/// value that differs from the previous one reaches the main actor: views that read ``value``
/// re-render only when it changes, and the main thread never decodes or copies the state. It
/// keeps the store alive, and stops observing when it is freed.
///
/// Making one costs an allocation and nothing else: it registers no observer and never waits.
/// SwiftUI evaluates a `@State` property's initial value each time it makes the view and keeps
/// only the first instance; the others are freed unread. The first read of ``value`` registers
/// the observer and waits for the first value, as a read of the state waits for the actions
/// queued before it.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
@Observable
public final class ObservedValue<State: StateProtocol, Value: Equatable & Sendable> {
    /// The newest selected value.
    ///
    /// The first read registers with the store and waits for its queue to select the first
    /// value, which reflects every action dispatched before that read, except those a dispatch
    /// lock holds (as for ``Store/currentState()``); the store's queue selects it after the
    /// reducers of the actions already queued, and reads only what `select` reads. Later reads
    /// return at once, and the value follows the store on the main actor.
    public var value: Value {
        if let select { startObserving(select) }
        guard let current else { preconditionFailure("the first value was not delivered") }
        return current
    }

    /// The value read last; `nil` until the first read of ``value``.
    private var current: Value?

    @ObservationIgnored private let store: Store<State>
    /// The selector, until the first read of ``value`` hands it to the observer it registers.
    @ObservationIgnored private var select: (@Sendable (State) -> Value)?
    @ObservationIgnored private var token: ObserverToken?

    /// Makes a model of the value `select` picks out of `store`'s state, which follows the store
    /// from the first read of ``value``.
    ///
    /// ```swift
    /// @State private var count = ObservedValue(AppStore.shared) { $0.todos.count }
    /// ```
    ///
    /// Returns at once: nothing is registered with the store, and nothing is selected, until
    /// ``value`` is first read. The model keeps `store` alive from now on.
    public init(_ store: Store<State>, select: @escaping @Sendable (State) -> Value) {
        self.store = store
        self.select = select
    }

    /// Registers the observer and takes its first value, selected after every action queued
    /// before this call; later values come on the main queue.
    private func startObserving(_ select: @escaping @Sendable (State) -> Value) {
        self.select = nil
        let relay = MainRelay<Value>()
        let observer = store.startObserver(
            select, queue: .main, owner: nil, firstValueHere: true
        ) { relay.receive($0) }
        // The main thread never runs store code, so the first value was delivered here.
        guard let first = relay.first else { preconditionFailure("the first value was not delivered") }
        current = first
        token = ObserverToken(center: nil, observer: observer)
        relay.onValue = { [weak self] in self?.current = $0 }
    }
}

/// Hands an observer's values to an ``ObservedValue``: the first one while its first read of
/// ``ObservedValue/value`` registers the observer, the later ones once that read has returned.
///
/// `@unchecked Sendable`: both properties are used only on the main thread, where the first value
/// is delivered (by the registering thread, the main thread) and the later ones are (on the main
/// queue).
private final class MainRelay<Value: Sendable>: @unchecked Sendable {
    var first: Value?
    var onValue: (@MainActor (Value) -> Void)?

    nonisolated func receive(_ value: Value) {
        MainActor.assumeIsolated {
            if let onValue { onValue(value) } else { first = value }
        }
    }
}
#endif

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
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
@Observable
public final class ObservedValue<State: StateProtocol, Value: Equatable & Sendable> {
    /// The newest selected value.
    public private(set) var value: Value

    @ObservationIgnored private let store: Store<State>
    @ObservationIgnored private var token: ObserverToken?

    /// Starts following the value `select` picks out of `store`'s state.
    ///
    /// ```swift
    /// @State private var count = ObservedValue(AppStore.shared) { $0.todos.count }
    /// ```
    ///
    /// The first value reflects every action dispatched before this call: the initializer waits
    /// for the store's queue to select it (it reads only what `select` reads).
    public init(_ store: Store<State>, select: @escaping @Sendable (State) -> Value) {
        self.store = store
        let relay = MainRelay<Value>()
        let observer = store.startObserver(
            select, queue: .main, owner: nil, firstValueHere: true
        ) { relay.receive($0) }
        // The main thread never runs store code, so the first value was delivered here.
        guard let first = relay.first else { preconditionFailure("the first value was not delivered") }
        value = first
        token = ObserverToken(center: nil, entry: observer)
        relay.onValue = { [weak self] in self?.value = $0 }
    }
}

/// Hands an observer's values to an ``ObservedValue``: the first one during its initializer, the
/// later ones once it exists.
///
/// `@unchecked Sendable`: both properties are used only on the main thread, where the first value
/// is delivered (by the registering thread) and the later ones are (on the main queue).
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

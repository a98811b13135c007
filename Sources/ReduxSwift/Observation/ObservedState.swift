#if canImport(Observation)
import Dispatch
import Observation

/// A store's newest state for SwiftUI and other clients of the Observation framework, kept on the
/// main actor.
///
/// ```swift
/// struct TodoList: View {
///     @State private var model = ObservedState(AppStore.shared)
///
///     var body: some View {
///         List(model.state.visibleTodos, id: \.id) { todo in Text(todo.text) }
///     }
/// }
/// ```
///
/// The state is refreshed on the main queue after each change; views that read ``state``
/// re-render then. It keeps the store alive, and stops observing when it is freed.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
@Observable
public final class ObservedState<State: StateProtocol> {
    /// The newest state, a deep copy like ``Store/currentState()``.
    public private(set) var state: State

    @ObservationIgnored private let store: Store<State>
    @ObservationIgnored private var token: ObserverToken?

    /// Starts following `store`'s state.
    ///
    /// ```swift
    /// @State private var model = ObservedState(AppStore.shared)
    /// ```
    public init(_ store: Store<State>) {
        self.store = store
        state = store.currentState()
        token = store.observeChanges(queue: .main) { [weak handler = self as any ChangeHandler] _ in
            handler?.stateDidChange()
        }
    }

    private func refresh() {
        state = store.currentState()
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension ObservedState: ChangeHandler {
    /// Called on the main queue, where the observer was registered.
    nonisolated func stateDidChange() {
        MainActor.assumeIsolated { refresh() }
    }
}

/// A value derived from a store's state for SwiftUI and other clients of the Observation
/// framework, kept on the main actor and updated only when it changes.
///
/// ```swift
/// @State private var unfinished = ObservedValue(AppStore.shared) { $0.todos.filter { !$0.isCompleted }.count }
/// ```
///
/// Views that read ``value`` re-render only when the selected value changes, not on every change
/// of the state.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
@Observable
public final class ObservedValue<State: StateProtocol, Value: Equatable> {
    /// The newest selected value.
    public private(set) var value: Value

    @ObservationIgnored private let store: Store<State>
    @ObservationIgnored private let select: @Sendable (State) -> Value
    @ObservationIgnored private var token: ObserverToken?

    /// Starts following the value `select` picks out of `store`'s state.
    ///
    /// ```swift
    /// @State private var count = ObservedValue(AppStore.shared) { $0.todos.count }
    /// ```
    public init(_ store: Store<State>, select: @escaping @Sendable (State) -> Value) {
        self.store = store
        self.select = select
        value = select(store.currentState())
        token = store.observeChanges(queue: .main) { [weak handler = self as any ChangeHandler] _ in
            handler?.stateDidChange()
        }
    }

    private func refresh() {
        let next = select(store.currentState())
        if next != value { value = next }
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension ObservedValue: ChangeHandler {
    /// Called on the main queue, where the observer was registered.
    nonisolated func stateDidChange() {
        MainActor.assumeIsolated { refresh() }
    }
}
#endif

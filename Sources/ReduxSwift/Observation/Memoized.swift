import Foundation

/// A value derived from the state that is recomputed only when its inputs change.
///
/// Declare the inputs (key paths or closures that pick `Equatable` parts of the state) and how to
/// compute the value from them. Reading it with a state whose inputs equal the previous read's
/// returns the cached value without computing:
///
/// ```swift
/// extension AppState {
///     static let visibleTodos = Memoized(\AppState.todos, \AppState.filter) { todos, filter in
///         todos.filter(filter.includes)
///     }
/// }
///
/// let visible = AppState.visibleTodos(store.currentState())
/// ```
///
/// One instance caches one result, the latest, and may be read from any thread at once.
public final class Memoized<State, Input: Equatable, Value>: @unchecked Sendable {
    // `@unchecked Sendable`: `cache` and `computations` are read and written only while `lock` is
    // held. `input` and `compute` are immutable and call only the `@Sendable` closures given to
    // the initializers (they are not themselves `@Sendable` so that they can be built here).
    private let input: (State) -> Input
    private let compute: (Input) -> Value
    private let lock = NSLock()
    private var cache: (input: Input, value: Value)?
    private var computations = 0

    /// Creates a value derived from one input.
    ///
    /// - Parameters:
    ///   - input: Picks the `Equatable` input out of the state; a key path works.
    ///   - compute: Computes the value from the input; it should depend on nothing else.
    public convenience init(
        _ input: @escaping @Sendable (State) -> Input,
        compute: @escaping @Sendable (Input) -> Value
    ) {
        self.init(storing: input, compute)
    }

    private init(storing input: @escaping (State) -> Input, _ compute: @escaping (Input) -> Value) {
        self.input = input
        self.compute = compute
    }

    /// The value for `state`: cached when the inputs are unchanged since the last call.
    public func callAsFunction(_ state: State) -> Value {
        let current = input(state)
        lock.lock()
        if let cache, cache.input == current {
            lock.unlock()
            return cache.value
        }
        lock.unlock()
        let value = compute(current)
        lock.lock()
        cache = (current, value)
        computations += 1
        lock.unlock()
        return value
    }

    /// How many times the value has been computed, for tests and diagnostics.
    public var computeCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return computations
    }
}

/// Two inputs of a ``Memoized`` value, compared together.
public struct MemoizedInputs2<First: Equatable, Second: Equatable>: Equatable {
    /// The first input.
    public var first: First
    /// The second input.
    public var second: Second
}

/// Three inputs of a ``Memoized`` value, compared together.
public struct MemoizedInputs3<First: Equatable, Second: Equatable, Third: Equatable>: Equatable {
    /// The first input.
    public var first: First
    /// The second input.
    public var second: Second
    /// The third input.
    public var third: Third
}

extension Memoized {
    /// Creates a value derived from two inputs, recomputed when either changes.
    public convenience init<First, Second>(
        _ first: @escaping @Sendable (State) -> First,
        _ second: @escaping @Sendable (State) -> Second,
        compute: @escaping @Sendable (First, Second) -> Value
    ) where Input == MemoizedInputs2<First, Second> {
        self.init(
            storing: { MemoizedInputs2(first: first($0), second: second($0)) },
            { compute($0.first, $0.second) })
    }

    /// Creates a value derived from three inputs, recomputed when any of them changes.
    public convenience init<First, Second, Third>(
        _ first: @escaping @Sendable (State) -> First,
        _ second: @escaping @Sendable (State) -> Second,
        _ third: @escaping @Sendable (State) -> Third,
        compute: @escaping @Sendable (First, Second, Third) -> Value
    ) where Input == MemoizedInputs3<First, Second, Third> {
        self.init(
            storing: { MemoizedInputs3(first: first($0), second: second($0), third: third($0)) },
            { compute($0.first, $0.second, $0.third) })
    }
}

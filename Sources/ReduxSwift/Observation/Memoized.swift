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
/// One instance caches one result, the latest, and may be read from any thread at once; every
/// reader of an unchanged input gets that same result. No lock is held while the inputs are picked
/// and compared or the value is computed, so those closures (and the inputs' `==`) may read this
/// value again.
public final class Memoized<State, Value>: Sendable {
    /// The inputs, their cache and the computation, behind a type that hides the inputs' type.
    private let cache: MemoizedCache<State, Value>

    /// Creates a value derived from one input.
    ///
    /// ```swift
    /// let doneCount = Memoized(\AppState.todos) { todos in todos.filter(\.done).count }
    /// ```
    ///
    /// - Parameters:
    ///   - input: Picks the `Equatable` input out of the state; a key path works.
    ///   - compute: Computes the value from the input; it should depend on nothing else.
    public init<Input: Equatable>(
        _ input: @escaping @Sendable (State) -> Input,
        compute: @escaping @Sendable (Input) -> Value
    ) {
        cache = InputCache(input: input, compute: compute)
    }

    /// Creates a value derived from two inputs, recomputed when either changes.
    ///
    /// ```swift
    /// let visible = Memoized(\AppState.todos, \AppState.filter) { todos, filter in
    ///     filter == .all ? todos : todos.filter { !$0.done }
    /// }
    /// ```
    public init<First: Equatable, Second: Equatable>(
        _ first: @escaping @Sendable (State) -> First,
        _ second: @escaping @Sendable (State) -> Second,
        compute: @escaping @Sendable (First, Second) -> Value
    ) {
        cache = InputCache(
            input: { MemoizedInputs2(first: first($0), second: second($0)) },
            compute: { compute($0.first, $0.second) })
    }

    /// Creates a value derived from three inputs, recomputed when any of them changes.
    ///
    /// ```swift
    /// let summary = Memoized(\AppState.todos.count, \AppState.filter, \AppState.counter) { count, filter, counter in
    ///     "\(count) todos, \(filter), \(counter)"
    /// }
    /// ```
    public init<First: Equatable, Second: Equatable, Third: Equatable>(
        _ first: @escaping @Sendable (State) -> First,
        _ second: @escaping @Sendable (State) -> Second,
        _ third: @escaping @Sendable (State) -> Third,
        compute: @escaping @Sendable (First, Second, Third) -> Value
    ) {
        cache = InputCache(
            input: { MemoizedInputs3(first: first($0), second: second($0), third: third($0)) },
            compute: { compute($0.first, $0.second, $0.third) })
    }

    /// The value for `state`: cached when the inputs are unchanged since the last call.
    public func callAsFunction(_ state: State) -> Value {
        cache.value(for: state)
    }

    /// How many times the value has been computed.
    var computeCount: Int {
        cache.computeCount
    }
}

/// The cache of a ``Memoized`` value, with the type of its inputs erased, so that a memoized
/// value's type names only the state and the value.
///
/// `@unchecked Sendable`: it has no stored properties; not final, so the compiler cannot check
/// that, and ``InputCache`` answers for its own.
class MemoizedCache<State, Value>: @unchecked Sendable {
    /// The value for `state`, computed again only when the inputs changed.
    func value(for state: State) -> Value {
        preconditionFailure("\(Self.self) must override value(for:)")
    }

    /// How many times the value has been computed.
    var computeCount: Int {
        preconditionFailure("\(Self.self) must override computeCount")
    }
}

/// Caches the latest inputs and the value computed from them.
///
/// `@unchecked Sendable`: `latest` is a `LockedValue`; `input` and `compute` are immutable and
/// call only the `@Sendable` closures given to ``Memoized``'s initializers (they are not
/// themselves `@Sendable` so that the initializers can build them in generic code without
/// capturing a metatype). `Input` and `Value` need not be `Sendable`: the cached input and value
/// are copied out of the lock and given to readers on any thread, which is what ``Memoized``
/// promises (one result, shared by every reader of an unchanged input).
final class InputCache<State, Input: Equatable, Value>: MemoizedCache<State, Value>, @unchecked Sendable {
    private struct Latest {
        var cached: (input: Input, value: Value)?
        var computations = 0
    }

    private let input: (State) -> Input
    private let compute: (Input) -> Value
    private let latest = LockedValue(Latest())

    init(input: @escaping (State) -> Input, compute: @escaping (Input) -> Value) {
        self.input = input
        self.compute = compute
    }

    override func value(for state: State) -> Value {
        let current = input(state)
        // Compared outside the lock: `==` may be the user's own, and may read this value again.
        if let cached = latest.withLock({ $0.cached }), cached.input == current {
            return cached.value
        }
        let value = compute(current)
        // The replaced input and value are handed out and released after the lock, since their
        // `deinit` may be user code too.
        _ = latest.withLock { latest -> (input: Input, value: Value)? in
            defer {
                latest.cached = (current, value)
                latest.computations += 1
            }
            return latest.cached
        }
        return value
    }

    override var computeCount: Int {
        latest.withLock { $0.computations }
    }
}

/// Two inputs of a ``Memoized`` value, compared together.
struct MemoizedInputs2<First: Equatable, Second: Equatable>: Equatable {
    var first: First
    var second: Second
}

/// Three inputs of a ``Memoized`` value, compared together.
struct MemoizedInputs3<First: Equatable, Second: Equatable, Third: Equatable>: Equatable {
    var first: First
    var second: Second
    var third: Third
}

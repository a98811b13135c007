import Foundation
import ReduxSwift

/// One todo, as in the benchmark state the issue describes: an id, a ~25-byte title, a done flag
/// and one or two tags.
struct Todo: Codable, Equatable, Sendable {
    var id: Int
    var title: String
    var done: Bool
    var tags: [String]
}

/// The state every scenario uses.
struct BenchState: StateProtocol, Equatable, Sendable {
    var counter = 0
    var todos: [Todo] = []

    init(todos count: Int) {
        todos = (0..<count).map { index in
            Todo(
                id: index, title: String(format: "Todo number %05d - title", index % 100_000),
                done: index.isMultiple(of: 2), tags: index.isMultiple(of: 3) ? ["home", "urgent"] : ["work"])
        }
    }
}

/// Ten action types, one per reducer.
enum BenchAction: ActionProtocol, Codable {
    case increment
    case decrement
    case toggle(Int)
    case rename(Int, String)
    case tag(Int, String)
    case add(String)
    case removeLast
    case setCounter(Int)
    case clearCompleted
    case noop
}

/// Ten reducers, each handling one action type, as apps write them.
let benchReducers: [Reducer<BenchState>] = [
    { state, action in if case .increment? = action as? BenchAction { state.counter += 1 } },
    { state, action in if case .decrement? = action as? BenchAction { state.counter -= 1 } },
    { state, action in
        if case .toggle(let index)? = action as? BenchAction { state.todos[index].done.toggle() }
    },
    { state, action in
        if case .rename(let index, let title)? = action as? BenchAction { state.todos[index].title = title }
    },
    { state, action in
        if case .tag(let index, let tag)? = action as? BenchAction { state.todos[index].tags.append(tag) }
    },
    { state, action in
        if case .add(let title)? = action as? BenchAction {
            state.todos.append(Todo(id: state.todos.count, title: title, done: false, tags: []))
        }
    },
    { state, action in if case .removeLast? = action as? BenchAction { _ = state.todos.popLast() } },
    { state, action in if case .setCounter(let value)? = action as? BenchAction { state.counter = value } },
    { state, action in
        if case .clearCompleted? = action as? BenchAction { state.todos.removeAll(where: \.done) }
    },
    { _, action in if case .noop? = action as? BenchAction {} },
]

/// The same state with an `encode(to:)` that counts its calls, for the encode-once scenario.
struct CountingState: StateProtocol, Sendable {
    static let encodes = Counter()
    var inner: BenchState

    init(todos: Int) { inner = BenchState(todos: todos) }

    init(from decoder: any Decoder) throws {
        inner = try BenchState(from: decoder)
    }

    func encode(to encoder: any Encoder) throws {
        Self.encodes.increment()
        try inner.encode(to: encoder)
    }
}

/// A thread-safe counter.
final class Counter: @unchecked Sendable {
    // `@unchecked Sendable`: `count` is only touched while `lock` is held.
    private let lock = NSLock()
    private var count = 0

    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    func reset() {
        lock.lock()
        count = 0
        lock.unlock()
    }
}

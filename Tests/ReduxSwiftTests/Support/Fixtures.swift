import Foundation
import ReduxSwift

struct Todo: Codable, Equatable, Sendable {
    var id: Int
    var title: String
    var done = false
    var tags: [String] = []
}

struct TestState: StateProtocol, Equatable {
    var counter = 0
    var log: [String] = []
    var todos: [Todo] = []
}

enum TestAction: ActionProtocol, Equatable {
    case increment
    case add(Int)
    case append(String)
    case fail
    case addTodo(String)
    case toggle(Int)
}

struct TestFailure: Error, Equatable {
    var reason = "rejected"
}

/// Handles every `TestAction`; `.fail` mutates first, then throws, to prove rollback is exact.
let testReducer: Reducer<TestState> = { state, action in
    guard let action = action as? TestAction else { return }
    switch action {
    case .increment: state.counter += 1
    case .add(let amount): state.counter += amount
    case .append(let entry): state.log.append(entry)
    case .fail:
        state.counter += 1000
        state.log.append("partial")
        throw TestFailure()
    case .addTodo(let title): state.todos.append(Todo(id: state.todos.count, title: title))
    case .toggle(let id): state.todos[id].done.toggle()
    }
}

func makeStore(
    _ reducers: [Reducer<TestState>] = [testReducer],
    state: TestState = TestState(),
    center: StoreNotificationCenter = StoreNotificationCenter()
) -> Store<TestState> {
    Store(reducers: reducers, state: state, notificationCenter: center)
}

/// The identity of the calling thread, for asserting which thread ran something.
func currentThreadID() -> ObjectIdentifier {
    ObjectIdentifier(Thread.current)
}

/// Lets reducers reach the store they belong to, the way an app's reducers reach `AppStore.shared`.
///
/// `@unchecked Sendable`: `store` is set once, before the first dispatch, and only read afterwards;
/// the dispatch orders the write before every read on the store's queue.
final class StoreHandle: @unchecked Sendable {
    private var assigned: Store<TestState>?

    var store: Store<TestState> {
        get {
            guard let assigned else { preconditionFailure("StoreHandle read before a store was assigned") }
            return assigned
        }
        set { assigned = newValue }
    }
}

/// Records the entry of every `TestAction.append` that `store` announces, in order.
func recordAppends(announcedBy store: Store<TestState>) -> (Recorder<String>, ObserverToken) {
    let announced = Recorder<String>()
    let token = store.observeChanges { note in
        for case .append(let entry)? in note.actions.map({ $0 as? TestAction }) { announced.append(entry) }
    }
    return (announced, token)
}

/// A selected value that is not `Equatable`: an observer of it hears every change of the state.
struct CounterReading: Sendable {
    var counter: Int
}

/// An `Equatable` projection of the counter whose `==` compares only what matters to its
/// observers (here, the parity), which is how an observer picks its own rule for a repeat.
struct Parity: Equatable, Sendable {
    var counter: Int

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.counter % 2 == rhs.counter % 2
    }
}

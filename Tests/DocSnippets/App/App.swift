import Foundation
import ReduxSwift

// The app the README's and the articles' snippets are written against: a todo list with a
// filter and a counter, as in *Getting Started*, with the actions and services the snippets name.
// Snippets that declare their own `AppStore` or `API` do so inside a function, where their
// declaration shadows these. Internal: the snippet targets use `@testable import`, so that none
// of this needs the `public` a snippet does not show.

nonisolated struct Todo: Codable, Equatable, Sendable {
    var id: Int
    var title: String
    var done = false
}

nonisolated enum Filter: String, Codable, Sendable {
    case all
    case active
}

struct AppState: StateProtocol, Equatable {
    var counter = 0
    var todos: [Todo] = []
    var nextID = 1
    var filter = Filter.all
}

enum TodoAction: ActionProtocol, Equatable, Codable {
    case add(String)
    case toggle(id: Int)
    case loaded([Todo])
}

enum FilterAction: ActionProtocol {
    case show(Filter)
    /// Puts back a filter an undo restores.
    case restore(Filter)
}

enum EditAction: ActionProtocol {
    case undo
}

enum CounterAction: ActionProtocol {
    case increment
    case add(Int)
}

enum SessionAction: ActionProtocol {
    case start
    case finish
}

enum CartAction: ActionProtocol {
    case checkOut
}

struct Order: Sendable {}

enum OrderAction: ActionProtocol {
    case place(Order)
}

struct UnknownTodo: Error {
    let id: Int
}

enum TodoReducers: ReducerProtocol {
    static var reducers: [Reducer<AppState>] {
        [
            { state, action in
                switch action as? TodoAction {
                case .add(let title)?:
                    state.todos.append(Todo(id: state.nextID, title: title))
                    state.nextID += 1
                case .toggle(let id)?:
                    guard let index = state.todos.firstIndex(where: { $0.id == id }) else {
                        throw UnknownTodo(id: id)
                    }
                    state.todos[index].done.toggle()
                case .loaded(let todos)?:
                    state.todos = todos
                case nil:
                    break
                }
            }
        ]
    }
}

enum FilterReducers: ReducerProtocol {
    static var reducers: [Reducer<AppState>] {
        [
            { state, action in
                switch action as? FilterAction {
                case .show(let filter)?, .restore(let filter)?: state.filter = filter
                case nil: break
                }
            }
        ]
    }
}

enum CounterReducers: ReducerProtocol {
    static var reducers: [Reducer<AppState>] {
        [
            { state, action in
                switch action as? CounterAction {
                case .increment?: state.counter += 1
                case .add(let amount)?: state.counter += amount
                case nil: break
                }
            }
        ]
    }
}

enum AppReducers: ReducerProtocol {
    static var reducers: [Reducer<AppState>] {
        TodoReducers.reducers + FilterReducers.reducers + CounterReducers.reducers
    }
}

final class AppStore: Store<AppState>, @unchecked Sendable {
    static let shared = AppStore()
    /// Where the articles' app keeps its state: a directory of its own, so nothing else is touched.
    static let archive = StateArchive<AppState>(
        file: FileManager.default.temporaryDirectory
            .appendingPathComponent("DocSnippetApp-\(ProcessInfo.processInfo.processIdentifier)")
            .appendingPathComponent("AppState.json"))

    private init() {
        super.init(reducers: AppReducers.reducers, state: AppState())
    }
}

/// The app's server client, which async actions receive as their dependency.
struct API: Sendable {
    var fetchTodos: @Sendable () async throws -> [Todo]

    /// A client that answers at once with no todos.
    static let fake = API(fetchTodos: { [] })
}

let api = API.fake

/// Loads the todos from the server: a new action for each dispatch, since an `AsyncAction` runs
/// once.
func loadTodos() -> AsyncAction<AppState, API> {
    AsyncAction("todos.load") { context in
        context.dispatch(TodoAction.loaded(try await context.dependencies.fetchTodos()))
    }
}

enum Server {
    @Sendable static func fetchTodos() async throws -> [Todo] { [] }
}

/// Called from a middleware, on the store's queue: `nonisolated`, as an app target needs it.
nonisolated final class AuditLog: Sendable {
    static let shared = AuditLog()

    func record(_ action: any ActionProtocol, _ error: any Error) {}
}

/// The blocks an undo middleware keeps, newest last: pushed on the store's queue and popped there
/// or on any thread, so guarded by a lock; `nonisolated`, as an app target needs it.
nonisolated final class UndoStack: @unchecked Sendable {
    // `@unchecked Sendable`: `blocks` is only touched while `lock` is held.
    private let lock = NSLock()
    private var blocks: [@Sendable () -> Void] = []

    func push(_ block: @escaping @Sendable () -> Void) {
        lock.withLock { blocks.append(block) }
    }

    func pop() -> (@Sendable () -> Void)? {
        lock.withLock { blocks.popLast() }
    }
}

/// Stands for the app's drawing code.
func render(_ todos: [Todo]) {}

/// Stands for the app's drawing code.
func render(_ state: AppState) {}

/// Stands for the app's badge.
func badge(_ count: Int) {}

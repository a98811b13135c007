import Foundation
import ReduxSwift

// The app the README's and the articles' snippets are written against: a todo list with a
// filter and a counter, as in *Getting Started*, with the actions and services the snippets name.
// Snippets that declare their own `AppStore` or `API` do so inside a function, where their
// declaration shadows these.

public struct Todo: Codable, Equatable, Sendable {
    public var id: Int
    public var title: String
    public var done = false

    public init(id: Int, title: String, done: Bool = false) {
        self.id = id
        self.title = title
        self.done = done
    }
}

public enum Filter: String, Codable, Sendable {
    case all
    case active
}

public struct AppState: StateProtocol, Equatable {
    public var counter = 0
    public var todos: [Todo] = []
    public var nextID = 1
    public var filter = Filter.all

    public init() {}
}

public enum TodoAction: ActionProtocol, Equatable, Codable {
    case add(String)
    case toggle(id: Int)
    case loaded([Todo])
}

public enum FilterAction: ActionProtocol {
    case show(Filter)
}

public enum CounterAction: ActionProtocol {
    case increment
    case add(Int)
}

public enum SessionAction: ActionProtocol {
    case start
    case finish
}

public enum CartAction: ActionProtocol {
    case checkOut
}

public struct Order: Sendable {
    public init() {}
}

public enum OrderAction: ActionProtocol {
    case place(Order)
}

public struct UnknownTodo: Error {
    public let id: Int
}

public enum TodoReducers: ReducerProtocol {
    public static var reducers: [Reducer<AppState>] {
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

public enum FilterReducers: ReducerProtocol {
    public static var reducers: [Reducer<AppState>] {
        [{ state, action in if case .show(let filter)? = action as? FilterAction { state.filter = filter } }]
    }
}

public enum CounterReducers: ReducerProtocol {
    public static var reducers: [Reducer<AppState>] {
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

public enum AppReducers: ReducerProtocol {
    public static var reducers: [Reducer<AppState>] {
        TodoReducers.reducers + FilterReducers.reducers + CounterReducers.reducers
    }
}

public final class AppStore: Store<AppState>, @unchecked Sendable {
    public static let shared = AppStore()

    private init() {
        super.init(reducers: AppReducers.reducers, state: AppState())
    }
}

/// The app's server client, which async actions receive as their dependency.
public struct API: Sendable {
    public var fetchTodos: @Sendable () async throws -> [Todo]

    public init(fetchTodos: @escaping @Sendable () async throws -> [Todo]) {
        self.fetchTodos = fetchTodos
    }

    /// A client that answers at once with no todos.
    public static let fake = API(fetchTodos: { [] })
}

public let api = API.fake

/// Loads the todos from the server.
public let loadTodos = AsyncAction<AppState, API>("todos.load") { context in
    context.dispatch(TodoAction.loaded(try await context.dependencies.fetchTodos()))
}

public enum Server {
    @Sendable public static func fetchTodos() async throws -> [Todo] { [] }
}

public final class AuditLog: Sendable {
    public static let shared = AuditLog()

    public func record(_ action: any ActionProtocol, _ error: any Error) {}
}

/// Stands for the app's drawing code.
public func render(_ todos: [Todo]) {}

/// Stands for the app's drawing code.
public func render(_ state: AppState) {}

/// Stands for the app's badge.
public func badge(_ count: Int) {}

import ReduxSwift

/// Everything the app knows: the todos, the next ID to hand out, and the visibility filter.
struct AppState: StateProtocol, Equatable {
    var todos: [Todo] = []
    var nextID = 1
    var filter = VisibilityFilter.all

    /// The todos the filter lets through, in the order they were added: derived, never stored.
    var visibleTodos: [Todo] {
        todos.filter(filter.includes)
    }
}

import ReduxSwift

/// Everything the app knows: the todos, the next ID to hand out, and the visibility filter.
///
/// A property added in a later release loads from earlier data files with the default it is
/// declared with (`ArchiveDefaults`); `Tests/TodosTests/Fixtures` keeps those files.
struct AppState: StateProtocol, Equatable, ArchiveDefaults {
    var todos: [Todo] = []
    var nextID = 1
    var filter = VisibilityFilter.all

    /// The todos the filter lets through, in the order they were added: derived, never stored.
    var visibleTodos: [Todo] {
        todos.filter(filter.includes)
    }
}

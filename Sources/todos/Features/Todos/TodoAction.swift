import ReduxSwift

/// Everything that can happen to the list of todos.
enum TodoAction: ActionProtocol, Equatable {
    case add(String)
    case toggle(id: Int)
    case remove(id: Int)
    case clearCompleted
}

/// Why the todo reducers rejected an action; the store keeps the state as it was.
enum TodoError: Error, Equatable, CustomStringConvertible {
    case notFound(id: Int)
    case emptyText

    var description: String {
        switch self {
        case .notFound(let id): return "no todo has ID \(id)"
        case .emptyText: return "a todo needs some text"
        }
    }
}

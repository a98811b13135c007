import ReduxSwift

/// Everything that can happen to the list of todos.
enum TodoAction: ActionProtocol, Equatable, Codable {
    case add(String)
    case toggle(id: Int)
    case remove(id: Int)
    case clearCompleted
}

/// Why the todo reducers rejected an action; the store keeps the state as it was.
enum TodoError: Error, Equatable, CustomStringConvertible {
    case notFound(id: Int)
    case emptyText
    /// The text holds a character ``TodoText`` refuses, such as a newline or an escape.
    case controlCharacter(Unicode.Scalar)
    /// `nextID` is `Int.max`: every ID has been handed out.
    case noIDsLeft

    var description: String {
        switch self {
        case .notFound(let id): return "no todo has ID \(id)"
        case .emptyText: return "a todo needs some text"
        case .controlCharacter(let scalar):
            return "a todo's text is one line of printable text; it holds the control character "
                + TodoText.name(scalar)
        case .noIDsLeft: return "cannot add a todo: every ID up to \(Int.max) has been used"
        }
    }
}

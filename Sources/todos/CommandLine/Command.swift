/// One thing the user asked for.
enum Command: Equatable {
    case add(String)
    case toggle(id: Int)
    case remove(id: Int)
    case filter(VisibilityFilter)
    case list
    case clearCompleted
    case help

    static let usage = """
        usage: todos [--data-dir DIR] [--verbose] [COMMAND]

          add TEXT                      add a todo
          toggle ID                     mark a todo done, or not done
          remove ID                     delete a todo
          filter all|active|completed   choose which todos list shows
          list                          show the todos the filter lets through
          clear-completed               delete every completed todo

        With no command, todos reads commands from standard input, one per line, and prints the
        list after each change. The todos are kept in DIR, by default
        \(Options.defaultDataDirectory.path).
        """

    /// Parses a command and its arguments, as given on the command line.
    init(words: [String]) throws(CommandError) {
        guard let name = words.first else { throw .usage("no command given") }
        let arguments = Array(words.dropFirst())
        switch name {
        case "add":
            let text = arguments.joined(separator: " ").trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { throw .usage("add needs the todo's text, as in: add Buy milk") }
            self = .add(text)
        case "toggle":
            self = .toggle(id: try Self.id(for: name, arguments))
        case "remove":
            self = .remove(id: try Self.id(for: name, arguments))
        case "filter":
            guard arguments.count == 1, let filter = VisibilityFilter(rawValue: arguments[0]) else {
                throw .usage("filter needs one of: all, active, completed")
            }
            self = .filter(filter)
        case "list":
            try Self.expectNoArguments(name, arguments)
            self = .list
        case "clear-completed":
            try Self.expectNoArguments(name, arguments)
            self = .clearCompleted
        case "help", "--help", "-h":
            self = .help
        default:
            throw .usage(
                "unknown command '\(name)'; the commands are add, toggle, remove, filter, list, clear-completed"
            )
        }
    }

    /// Parses a line of the interactive mode: the command, then its arguments separated by spaces.
    init(line: String) throws(CommandError) {
        try self.init(words: line.split(separator: " ", omittingEmptySubsequences: true).map(String.init))
    }

    /// Whether the command changes the state (and so is saved, and followed by the list).
    var changesState: Bool {
        switch self {
        case .add, .toggle, .remove, .filter, .clearCompleted: return true
        case .list, .help: return false
        }
    }

    private static func id(for name: String, _ arguments: [String]) throws(CommandError) -> Int {
        guard arguments.count == 1 else { throw .usage("\(name) needs one todo ID, as in: \(name) 3") }
        guard let id = Int(arguments[0]) else {
            throw .usage("\(name) needs a numeric ID, not '\(arguments[0])'")
        }
        return id
    }

    private static func expectNoArguments(_ name: String, _ arguments: [String]) throws(CommandError) {
        if !arguments.isEmpty { throw .usage("\(name) takes no arguments") }
    }
}

/// Why a command failed; the state is left as it was.
enum CommandError: Error, Equatable, CustomStringConvertible {
    /// The command line is wrong (exit code 2).
    case usage(String)
    /// The command names a todo that does not exist (exit code 1).
    case notFound(id: Int)
    /// The state could not be saved (exit code 1).
    case saveFailed(String)

    var description: String {
        switch self {
        case .usage(let message): return message
        case .notFound(let id): return "no todo has ID \(id)"
        case .saveFailed(let message): return message
        }
    }

    var exitCode: Int32 {
        switch self {
        case .usage: return 2
        case .notFound, .saveFailed: return 1
        }
    }
}

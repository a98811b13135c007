import Foundation

/// One thing the user asked for.
enum Command: Equatable {
    case add(String)
    case toggle(id: Int)
    case remove(id: Int)
    case filter(VisibilityFilter)
    case list
    case clearCompleted
    /// Writes the inspector page of the app's recording to a file (by default `inspector.html` in
    /// the data directory).
    case inspect(path: String?)
    case help

    /// The words that ask for ``help``, as a command or as the options `--help` and `-h`.
    static let helpNames: Set = ["help", "--help", "-h"]

    /// The help text, naming `dataDirectory` when it is not the default.
    static func usage(dataDirectory: URL) -> String {
        let defaultDirectory = Options.defaultDataDirectory.path
        let inUse =
            dataDirectory.standardizedFileURL.path == Options.defaultDataDirectory.standardizedFileURL.path
            ? "" : "; this launch uses \(dataDirectory.path)"
        return """
            usage: todos [--data-dir DIR] [--wait SECONDS] [--verbose] [COMMAND]

              add TEXT                      add a todo
              toggle ID                     mark a todo done, or not done
              remove ID                     delete a todo
              filter all|active|completed   choose which todos list shows
              list                          show the todos the filter lets through
              clear-completed               delete every completed todo
              inspect [FILE]                write a page to open in a browser that shows every
                                            recorded action and the list after it (by default
                                            DIR/inspector.html)

            Options come before the command; the words after it are its arguments, as typed, so
            `todos add --verbose mode` adds the todo "--verbose mode". With no command, todos reads
            commands from standard input, one per line, and prints the list after each change; there
            the text of `add` is the rest of the line, spaces included.

            The todos are kept in DIR, by default \(defaultDirectory)\(inUse).
            One todos at a time uses DIR, from reading the todos to saving them (an interactive session
            holds it until it ends); another waits up to SECONDS for it, \(Int(Options.defaultWait)) by default.
            A todo's text is one line: control characters such as newlines, tabs and escapes are
            refused, and any found in DIR are shown as \\u{1B}. A data file saved by a newer todos is
            refused and left untouched; a damaged one is kept aside as todos.json.corrupt-<time>,
            and the list starts empty.
            Exit codes: 0 done, 2 a mistake in the command line (including a DIR that is not a
            directory), 1 anything else (an unknown ID, DIR in use, a data file this todos cannot
            read, a failed save); a command that fails changes nothing.
            """
    }

    /// Parses a command and its arguments, as given on the command line.
    init(words: [String]) throws(CommandError) {
        guard let name = words.first else { throw .usage("no command given") }
        let arguments = Array(words.dropFirst())
        switch name {
        case "add":
            do {
                self = .add(try TodoText.validated(arguments.joined(separator: " ")))
            } catch .emptyText {
                throw .usage("add needs the todo's text, as in: add Buy milk")
            } catch {
                throw .usage("\(error)")
            }
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
        case "inspect":
            guard arguments.count <= 1 else { throw .usage("inspect takes at most one file name") }
            self = .inspect(path: arguments.first)
        case _ where Self.helpNames.contains(name):
            self = .help
        default:
            throw .usage(
                "unknown command '\(TodoText.escaped(name))'; the commands are add, toggle, remove, filter, list, clear-completed, inspect"
            )
        }
    }

    /// Parses a line of the interactive mode: the command, then its arguments separated by spaces.
    ///
    /// The text of `add` is the rest of the line as typed, runs of spaces included; only the
    /// spaces around it are dropped.
    init(line: String) throws(CommandError) {
        let name = line.prefix { $0 != " " }
        let rest = line[name.endIndex...]
        if name == "add" {
            try self.init(words: [String(name), String(rest)])
        } else {
            try self.init(words: [String(name)] + rest.split(separator: " ").map(String.init))
        }
    }

    /// Whether the command changes the state (and so is saved, and followed by the list).
    var changesState: Bool {
        switch self {
        case .add, .toggle, .remove, .filter, .clearCompleted: return true
        case .list, .inspect, .help: return false
        }
    }

    private static func id(for name: String, _ arguments: [String]) throws(CommandError) -> Int {
        guard arguments.count == 1 else { throw .usage("\(name) needs one todo ID, as in: \(name) 3") }
        guard let id = Int(arguments[0]) else {
            throw .usage("\(name) needs a numeric ID, not '\(TodoText.escaped(arguments[0]))'")
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
    /// The reducers refuse the change, as for an unknown ID (exit code 1).
    case rejected(TodoError)
    /// The data directory cannot be locked, or another `todos` kept it too long (exit code 1).
    case dataDirectoryUnavailable(String)
    /// The data directory, or a folder on its path, is something other than a directory (exit
    /// code 1; `main` reports it as ``usage(_:)`` when `--data-dir` named it).
    case notADirectory(String)
    /// The data file cannot be used and is left as it is, as one from a newer `todos` (exit code 1).
    case dataFileUnusable(String)
    /// The state could not be saved (exit code 1).
    case saveFailed(String)

    var description: String {
        switch self {
        case .usage(let message): return message
        case .rejected(let error): return "\(error)"
        case .dataDirectoryUnavailable(let message): return message
        case .notADirectory(let message): return message
        case .dataFileUnusable(let message): return message
        case .saveFailed(let message): return message
        }
    }

    var exitCode: Int32 {
        switch self {
        case .usage: return 2
        case .rejected, .dataDirectoryUnavailable, .notADirectory, .dataFileUnusable, .saveFailed: return 1
        }
    }
}

import Foundation
import ReduxSwift

/// What this launch was asked to do, read once from the process's arguments.
enum Launch {
    static let options: Result<Options, CommandError> = Result { () throws(CommandError) in
        try Options(arguments: Array(CommandLine.arguments.dropFirst()))
    }

    /// The data directory `AppStore` keeps its archive in.
    static var dataDirectory: URL {
        (try? options.get())?.dataDirectory ?? Options.defaultDataDirectory
    }
}

/// The command line: global options, then a command and its arguments.
struct Options: Equatable {
    /// `$XDG_DATA_HOME/reduxswift-todos` (or `~/.local/share/…`); Application Support on Apple.
    static var defaultDataDirectory: URL {
        FileArchiveBackend.defaultDirectory(forApplication: "reduxswift-todos")
    }

    var dataDirectory = Options.defaultDataDirectory
    var isVerbose = false
    /// The command and its arguments; empty for the interactive mode.
    var words: [String] = []

    init(arguments: [String]) throws(CommandError) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--data-dir":
                guard let path = remaining.popFirst(), !path.isEmpty else {
                    throw .usage("--data-dir needs a directory")
                }
                dataDirectory = URL(fileURLWithPath: path, isDirectory: true)
            case "--verbose", "-v":
                isVerbose = true
            case "--":
                words.append(contentsOf: remaining)
                remaining = []
            default:
                words.append(argument)
            }
        }
    }
}

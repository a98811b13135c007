import Foundation
import ReduxSwift

/// The command line: global options, then a command and its arguments.
///
/// Options come before the command. The first word that is not an option is the command, and it
/// and every word after it are the command's, taken as typed: `todos add --verbose mode` adds the
/// todo "--verbose mode". A `--` before the command ends the options, so a command may begin
/// with `-` too.
struct Options: Equatable {
    /// `$XDG_DATA_HOME/reduxswift-todos` (or `~/.local/share/…`); Application Support on Apple.
    static var defaultDataDirectory: URL {
        FileArchiveBackend.defaultDirectory(forApplication: "reduxswift-todos")
    }

    /// How long a launch waits for another `todos` to finish with the data directory: 10 seconds.
    static let defaultWait = 10.0

    /// The directory given with `--data-dir`, if any.
    var givenDataDirectory: URL?
    /// Seconds to wait for the data directory's lock (`--wait`).
    var wait = Options.defaultWait
    var isVerbose = false
    /// The command and its arguments; empty for the interactive mode.
    var words: [String] = []

    /// The directory the todos are kept in.
    var dataDirectory: URL { givenDataDirectory ?? Self.defaultDataDirectory }

    init(arguments: [String]) throws(CommandError) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--data-dir":
                guard let path = remaining.popFirst(), !path.isEmpty else {
                    throw .usage("--data-dir needs a directory")
                }
                givenDataDirectory = URL(fileURLWithPath: path, isDirectory: true)
            case "--wait":
                guard let text = remaining.popFirst(), let seconds = Double(text), seconds.isFinite,
                    seconds >= 0
                else {
                    throw .usage("--wait needs a number of seconds, 0 or more")
                }
                wait = seconds
            case "--verbose", "-v":
                isVerbose = true
            case "--":
                words = Array(remaining)
                return
            case _ where argument.hasPrefix("-") && !Command.helpNames.contains(argument):
                throw .usage(
                    "unknown option '\(TodoText.escaped(argument))'; the options are --data-dir, --wait, --verbose"
                )
            default:
                words = [argument] + remaining
                return
            }
        }
    }
}

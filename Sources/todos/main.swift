import Foundation
import ReduxSwift

// `todos`: the ReduxSwift example app. `swift run todos --help` lists the commands.

let options: Options
do {
    options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    Terminal.writeError("\(error)\n\(Command.usage(dataDirectory: Options.defaultDataDirectory))")
    exit(error.exitCode)
}

// A one-shot command is checked before the store is touched, so bad input changes nothing.
var command: Command?
if !options.words.isEmpty {
    do {
        command = try Command(words: options.words)
    } catch {
        Terminal.writeError("\(error)")
        exit(error.exitCode)
    }
}

if command == .help {
    Terminal.write(Command.usage(dataDirectory: options.dataDirectory))
    exit(0)
}

// Held from before the store reads the archive until after the last save: another `todos` on this
// directory waits, so neither loses the other's changes.
let lock: DataDirectoryLock
do {
    lock = try DataDirectoryLock(directory: options.dataDirectory, timeout: options.wait) { holder in
        if isatty(STDERR_FILENO) != 0 {
            let who = holder.map { "todos (process \($0))" } ?? "todos"
            Terminal.writeError("waiting for another \(who) to finish with \(options.dataDirectory.path)")
        }
    }
} catch .notADirectory(let message) where options.givenDataDirectory != nil {
    // `--data-dir` named it, so the mistake is in the command line.
    Terminal.writeError(message)
    exit(CommandError.usage(message).exitCode)
} catch {
    Terminal.writeError("\(error)")
    exit(error.exitCode)
}

let archive = DataFile.archive(in: options.dataDirectory)
let store: AppStore
do {
    store = AppStore(state: try DataFile.restore(from: archive, warn: Terminal.writeError))
} catch {
    Terminal.writeError("\(error)")
    exit(error.exitCode)
}
let logger = options.isVerbose ? ChangeLogger(store: store) : nil
// What this launch commits, appended to the app's recording for `todos inspect`.
let history = ActionHistoryFile(directory: options.dataDirectory, store: store, state: store.currentState())
var console = Console(store: store, archive: archive, dataDirectory: options.dataDirectory, logger: logger)
var status: Int32 = 0

if let command {
    do {
        Terminal.write(try console.execute(command))
    } catch {
        Terminal.writeError("\(error)")
        status = error.exitCode
    }
} else {
    if isatty(STDIN_FILENO) != 0 {
        Terminal.write(
            "Type a command (add, toggle, remove, filter, list, clear-completed, inspect, help), or quit.")
    }
    while let line = readLine() {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { continue }
        if trimmed == "quit" || trimmed == "exit" { break }
        do {
            Terminal.write(try console.execute(try Command(line: trimmed)))
        } catch {
            Terminal.writeError("\(error)")
        }
    }
}

do {
    try console.stop()
} catch {
    status = 1
    // This save tries again what the last command could not save, and that command has said why.
    if !console.lastSaveFailed { Terminal.writeError("\(error)") }
}
do {
    try history.save()
} catch {
    Terminal.writeError("cannot append to the recording in \(options.dataDirectory.path): \(error)")
}
lock.release()
exit(status)

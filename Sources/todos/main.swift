import Foundation
import ReduxSwift

// `todos`: the ReduxSwift example app. `swift run todos --help` lists the commands.

func printError(_ message: String) {
    FileHandle.standardError.write(Data("todos: \(message)\n".utf8))
}

let options: Options
switch Launch.options {
case .success(let parsed):
    options = parsed
case .failure(let error):
    printError("\(error)\n\(Command.usage)")
    exit(error.exitCode)
}

// A one-shot command is checked before the store is touched, so bad input changes nothing.
var command: Command?
if !options.words.isEmpty {
    do {
        command = try Command(words: options.words)
    } catch {
        printError("\(error)")
        exit(error.exitCode)
    }
}

if command == .help {
    print(Command.usage)
    exit(0)
}

// Held from before the store reads the archive until after the last save: another `todos` on this
// directory waits, so neither loses the other's changes.
let lock: DataDirectoryLock
do {
    lock = try DataDirectoryLock(directory: options.dataDirectory, timeout: options.wait) { holder in
        if isatty(STDERR_FILENO) != 0 {
            let who = holder.map { "todos (process \($0))" } ?? "todos"
            printError("waiting for another \(who) to finish with \(options.dataDirectory.path)")
        }
    }
} catch {
    printError("\(error)")
    exit(error.exitCode)
}

let store = AppStore.shared
let persistence = PersistenceService(store: store, archive: AppStore.archive)
let logger = options.isVerbose ? ChangeLogger(store: store) : nil
var console = Console(store: store, persistence: persistence, logger: logger)
var status: Int32 = 0

if let command {
    do {
        print(try console.execute(command))
    } catch {
        printError("\(error)")
        status = error.exitCode
    }
} else {
    if isatty(STDIN_FILENO) != 0 {
        print("Type a command (add, toggle, remove, filter, list, clear-completed, help), or quit.")
    }
    while let line = readLine() {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { continue }
        if trimmed == "quit" || trimmed == "exit" { break }
        do {
            print(try console.execute(try Command(line: trimmed)))
        } catch {
            printError("\(error)")
        }
    }
}

console.finishLogging()
do {
    try persistence.stop()
} catch {
    printError("cannot save: \(error)")
    status = 1
}
lock.release()
exit(status)

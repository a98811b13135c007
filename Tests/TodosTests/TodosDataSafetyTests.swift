import Foundation
import Testing

@testable import todos

/// Several `todos` on one data directory: each waits for the directory's lock, so none loses the
/// others' changes.
@Suite struct TodosConcurrencyTests {
    @Test func twentyConcurrentAddsKeepAllTwentyTodos() async throws {
        let todos = TodosProcess()
        let outcomes = Outcomes()
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for index in 0..<20 {
            group.enter()
            Thread.detachNewThread {
                start.wait()
                outcomes.append(todos.runBlocking(["--wait", "120", "add", "item \(index)"]))
                group.leave()
            }
        }
        for _ in 0..<20 { start.signal() }
        // Awaited, not waited for: each child is killed after `TodosProcess.timeout`, so all end.
        await withCheckedContinuation { continuation in
            group.notify(queue: .global()) { continuation.resume() }
        }
        for outcome in outcomes.all {
            #expect(outcome.status == 0, "\(outcome.errors)")
        }
        let lines = await todos.run(["list"]).outputLines
        #expect(lines.count == 20)
        #expect(Set(lines.map { $0.split(separator: " ", maxSplits: 1)[0] }) == Set((1...20).map { "\($0)" }))
        #expect(
            Set(lines.map { String($0.split(separator: " ", maxSplits: 3)[3]) })
                == Set((0..<20).map { "item \($0)" }))
    }

    @Test func aCommandGivesUpWithExitCode1WhenTheDirectoryStaysInUse() async throws {
        let todos = TodosProcess()
        _ = await todos.run(["add", "keep me"])
        let before = todos.archiveBytes
        let lockPath = todos.dataDirectory.appendingPathComponent("todos.lock").path
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try #require(flock(descriptor, LOCK_EX) == 0)

        let outcome = await todos.run(["--wait", "0.2", "add", "lost"])
        #expect(outcome.status == 1)
        #expect(outcome.output.isEmpty)
        #expect(outcome.errorLines.count == 1)
        #expect(
            outcome.errors.contains("\(todos.dataDirectory.path) is in use by another todos"),
            "\(outcome.errors)")
        #expect(outcome.errors.contains("--wait"))
        #expect(todos.archiveBytes == before)

        flock(descriptor, LOCK_UN)
        #expect(
            await todos.run(["--wait", "0", "add", "now"]).outputLines == ["1 [ ] keep me", "2 [ ] now"])
    }

    @Test(arguments: [
        ["--wait"], ["--wait", "soon"], ["--wait", "-1"], ["--wait", "inf"], ["--wait", "nan"],
    ])
    func aBadWaitIsAUsageError(arguments: [String]) async {
        let outcome = await TodosProcess().run(arguments + ["list"])
        #expect(outcome.status == 2)
        #expect(
            outcome.errorLines.first?.contains("--wait needs a number of seconds") == true,
            "\(outcome.errors)")
    }
}

/// Collects the outcomes of processes run from several threads.
final class Outcomes: @unchecked Sendable {
    // `@unchecked Sendable`: `outcomes` is only touched while `lock` is held.
    private let lock = NSLock()
    private var outcomes: [TodosProcess.Outcome] = []

    func append(_ outcome: TodosProcess.Outcome) {
        lock.withLock { outcomes.append(outcome) }
    }

    var all: [TodosProcess.Outcome] { lock.withLock { outcomes } }
}

/// Titles are one line of printable text: what could fake a row or drive the terminal is refused
/// on input and escaped on output.
@Suite struct TodosTextTests {
    /// A valid archive, as a hand edit or an older version could leave it.
    private func writeArchive(_ todos: TodosProcess, todosJSON: String, nextID: String) throws {
        try FileManager.default.createDirectory(at: todos.dataDirectory, withIntermediateDirectories: true)
        let json = #"{"schemaVersion":1,"state":{"todos":\#(todosJSON),"filter":"all","nextID":\#(nextID)}}"#
        try Data(json.utf8).write(to: todos.archiveURL)
    }

    @Test func addingWhenEveryIDIsTakenIsRefusedWithExitCode1() async throws {
        let todos = TodosProcess()
        try writeArchive(
            todos, todosJSON: #"[{"id":1,"text":"a","isCompleted":false}]"#, nextID: "\(Int.max)")
        let before = todos.archiveBytes
        let outcome = await todos.run(["add", "b"])
        #expect(outcome.status == 1)
        #expect(outcome.output.isEmpty)
        #expect(outcome.errorLines == ["todos: cannot add a todo: every ID up to \(Int.max) has been used"])
        #expect(todos.archiveBytes == before)
        #expect(await todos.run(["toggle", "1"]).outputLines == ["1 [x] a"], "the list still works")
    }

    @Test func theReducerRefusesAnAddWhenEveryIDIsTaken() async {
        var state = AppState(todos: [], nextID: .max)
        #expect(throws: TodoError.noIDsLeft) { try TodoReducers.reduce(&state, TodoAction.add("b")) }
        #expect(state == AppState(todos: [], nextID: .max))
    }

    @Test(arguments: ["\n", " \n\t ", "\r\n"])
    func aBlankTextIsRefused(text: String) async {
        let todos = TodosProcess()
        let outcome = await todos.run(["add", text])
        #expect(outcome.status == 2)
        #expect(outcome.errorLines.first?.contains("add needs the todo's text") == true, "\(outcome.errors)")
        #expect(todos.archiveBytes == nil)
    }

    @Test(arguments: [
        ("Buy\nmilk", "U+000A"), ("a\tb", "U+0009"), ("\u{1B}[2J", "U+001B"), ("x\r2 [x] fake", "U+000D"),
        ("\u{9B}31m", "U+009B"), ("\u{7F}", "U+007F"), ("right\u{202E}left", "U+202E"),
        ("a\u{2028}b", "U+2028"), ("a\u{200E}b", "U+200E"), ("a\u{200F}b", "U+200F"),
        ("a\u{061C}b", "U+061C"),
    ])
    func aControlCharacterInTheTextIsRefused(text: String, scalar: String) async {
        let todos = TodosProcess()
        _ = await todos.run(["add", "keep me"])
        let before = todos.archiveBytes
        let outcome = await todos.run(["add", text])
        #expect(outcome.status == 2)
        #expect(outcome.output.isEmpty)
        #expect(outcome.errorLines.count == 1)
        #expect(outcome.errors.contains("control character \(scalar)"), "\(outcome.errors)")
        #expect(!outcome.errors.unicodeScalars.contains { TodoText.isRefused($0) && $0 != "\n" })
        #expect(todos.archiveBytes == before)
    }

    @Test func theInteractiveModeRefusesAControlCharacterToo() async {
        let todos = TodosProcess()
        let outcome = await todos.run([], input: "add red\u{1B}[31m\nadd fine\n")
        #expect(outcome.outputLines == ["1 [ ] fine"])
        #expect(outcome.errorLines.count == 1)
        #expect(outcome.errors.contains("control character U+001B"))
    }

    @Test func aTitleFromTheArchiveIsPrintedEscapedOnOneRow() async throws {
        let todos = TodosProcess()
        let title = #"a\n2 [x] fake\u001b[2J\r\u009b\u202e\\"#
        try writeArchive(todos, todosJSON: #"[{"id":1,"text":"\#(title)","isCompleted":false}]"#, nextID: "2")
        let outcome = await todos.run(["list"])
        #expect(outcome.status == 0)
        #expect(outcome.outputLines == [#"1 [ ] a\u{A}2 [x] fake\u{1B}[2J\u{D}\u{9B}\u{202E}\"#])
        #expect(!outcome.output.unicodeScalars.contains { TodoText.isRefused($0) && $0 != "\n" })
    }

    @Test func wordsQuotedInAnErrorAreEscaped() async {
        let outcome = await TodosProcess().run(["\u{1B}[2Jboom"])
        #expect(outcome.status == 2)
        #expect(outcome.errorLines.first?.hasPrefix(#"todos: unknown command '\u{1B}[2Jboom'"#) == true)
        #expect(!outcome.errors.unicodeScalars.contains { TodoText.isRefused($0) && $0 != "\n" })
    }

    @Test func theTextIsTrimmedAndKeptOtherwise() async throws {
        #expect(try Command(words: ["add", " \n Buy  milk ü 🥛\n"]) == .add("Buy  milk ü 🥛"))
        var state = AppState()
        #expect(throws: TodoError.controlCharacter("\u{1B}")) {
            try TodoReducers.reduce(&state, TodoAction.add("a\u{1B}b"))
        }
        try TodoReducers.reduce(&state, TodoAction.add("\n one \n"))
        #expect(state.todos == [Todo(id: 1, text: "one")])
    }
}

import Foundation
import Testing

@testable import todos

/// Commands read from a pipe or typed in a session, and the words after a command: taken as the
/// user wrote them, answered in the order they came.
@Suite struct TodosInputTests {
    @Test func pipedCommandsAreAnsweredInOrder() async {
        let todos = TodosProcess()
        let outcome = await todos.run(
            [], input: "add one\ntoggle 9\nlist\nbogus\nadd two\n", shell: #"exec "$@" 2>&1"#)
        #expect(outcome.status == 0)
        #expect(
            outcome.outputLines == [
                "1 [ ] one",
                "todos: no todo has ID 9",
                "1 [ ] one",
                "todos: unknown command 'bogus'; the commands are add, toggle, remove, filter, list, clear-completed, inspect",
                "1 [ ] one", "2 [ ] two",
            ])
    }

    @Test func verboseLogsEachChangeBeforeItsListing() async {
        let todos = TodosProcess()
        let outcome = await todos.run(
            ["--verbose"], input: "add one\nadd two\n", shell: #"exec "$@" 2>&1"#)
        #expect(
            outcome.outputLines == [
                "todos: changed by TodoAction.add: 1 todo, filter all",
                "1 [ ] one",
                "todos: changed by TodoAction.add: 2 todos, filter all",
                "1 [ ] one", "2 [ ] two",
            ])
    }

    @Test func aCommandThatChangesNothingIsNotLogged() async {
        // Nor dispatched: whether the store notifies an action that changes nothing is its own
        // choice, and a log that waited for that notification could wait in vain.
        let todos = TodosProcess()
        let outcome = await todos.run(
            ["--verbose"], input: "filter all\nclear-completed\nadd one\nfilter all\n",
            shell: #"exec "$@" 2>&1"#)
        #expect(
            outcome.outputLines == [
                "No todos.", "No todos.",
                "todos: changed by TodoAction.add: 1 todo, filter all",
                "1 [ ] one", "1 [ ] one",
            ])
    }

    @Test func helpInASessionNamesTheDataDirectoryInUse() async {
        let todos = TodosProcess()
        let outcome = await todos.run([], input: "help\n")
        #expect(outcome.status == 0)
        #expect(outcome.output.contains("this launch uses \(todos.dataDirectory.path)"), "\(outcome.output)")
        #expect(
            await todos.run(["help"]).output.contains("this launch uses \(todos.dataDirectory.path)"),
            "the one-shot help too")
    }

    @Test func helpWithTheDefaultDataDirectoryNamesItOnce() {
        let usage = Command.usage(dataDirectory: Options.defaultDataDirectory)
        #expect(usage.contains(Options.defaultDataDirectory.path))
        #expect(!usage.contains("this launch uses"))
    }

    @Test func aTitleTypedInASessionKeepsItsSpaces() async throws {
        let todos = TodosProcess()
        let outcome = await todos.run([], input: "add   Buy  milk,   2 l  \n")
        #expect(outcome.errors.isEmpty)
        #expect(outcome.outputLines == ["1 [ ] Buy  milk,   2 l"])
        #expect(try Command(line: "add a  b") == .add("a  b"))
        #expect(try Command(line: "toggle   3") == .toggle(id: 3))
    }

    @Test(arguments: [
        (["add", "--verbose", "mode"], "--verbose mode"),
        (["add", "--", "x"], "-- x"),
        (["add", "-v"], "-v"),
        (["add", "--data-dir", "elsewhere"], "--data-dir elsewhere"),
        (["add", "--wait", "5"], "--wait 5"),
        (["--", "add", "--x"], "--x"),
    ])
    func everythingAfterTheCommandIsItsArguments(arguments: [String], title: String) async {
        let todos = TodosProcess()
        let outcome = await todos.run(arguments)
        #expect(outcome.status == 0)
        #expect(outcome.errors.isEmpty)
        #expect(outcome.outputLines == ["1 [ ] \(title)"])
    }

    @Test func optionsComeBeforeTheCommand() throws {
        let options = try Options(arguments: ["--verbose", "--wait", "3", "add", "-v", "--wait", "4"])
        #expect(options.isVerbose)
        #expect(options.wait == 3)
        #expect(options.words == ["add", "-v", "--wait", "4"])
    }

    @Test func anUnknownOptionIsAUsageError() async {
        let outcome = await TodosProcess().run(["--verbos", "list"])
        #expect(outcome.status == 2)
        #expect(
            outcome.errorLines.first
                == "todos: unknown option '--verbos'; the options are --data-dir, --wait, --verbose",
            "\(outcome.errors)")
    }
}

import Foundation
import ReduxSwift
import Testing

@testable import todos

@Suite struct TodosCommandTests {
    @Test func eachCommandIsAddedToTheListAndKeptBetweenRuns() async {
        let todos = TodosProcess()
        #expect(await todos.run(["add", "Buy", "milk"]).outputLines == ["1 [ ] Buy milk"])
        #expect(
            await todos.run(["add", "Walk the dog"]).outputLines == ["1 [ ] Buy milk", "2 [ ] Walk the dog"])
        #expect(await todos.run(["toggle", "1"]).outputLines == ["1 [x] Buy milk", "2 [ ] Walk the dog"])
        #expect(await todos.run(["list"]).outputLines == ["1 [x] Buy milk", "2 [ ] Walk the dog"])
        #expect(await todos.run(["remove", "2"]).outputLines == ["1 [x] Buy milk"])
        #expect(
            await todos.run(["add", "Call Ada"]).outputLines == ["1 [x] Buy milk", "3 [ ] Call Ada"],
            "IDs are never reused")
    }

    @Test func theFilterChoosesWhichTodosAreListed() async {
        let todos = TodosProcess()
        _ = await todos.run(["add", "one"])
        _ = await todos.run(["add", "two"])
        _ = await todos.run(["toggle", "2"])
        #expect(await todos.run(["filter", "active"]).outputLines == ["1 [ ] one"])
        #expect(await todos.run(["list"]).outputLines == ["1 [ ] one"], "the filter is kept between runs")
        #expect(await todos.run(["filter", "completed"]).outputLines == ["2 [x] two"])
        _ = await todos.run(["toggle", "2"])
        #expect(await todos.run(["list"]).outputLines == ["No completed todos."])
        #expect(await todos.run(["filter", "all"]).outputLines == ["1 [ ] one", "2 [ ] two"])
    }

    @Test func clearCompletedRemovesOnlyCompletedTodos() async {
        let todos = TodosProcess()
        for text in ["a", "b", "c"] { _ = await todos.run(["add", text]) }
        _ = await todos.run(["toggle", "1"])
        _ = await todos.run(["toggle", "3"])
        #expect(await todos.run(["clear-completed"]).outputLines == ["2 [ ] b"])
    }

    @Test func anEmptyListSaysSo() async {
        let outcome = await TodosProcess().run(["list"])
        #expect(outcome.status == 0)
        #expect(outcome.outputLines == ["No todos."])
    }

    @Test(arguments: [
        (["frobnicate"], "unknown command 'frobnicate'"),
        (["toggle"], "toggle needs one todo ID"),
        (["remove", "two"], "remove needs a numeric ID, not 'two'"),
        (["toggle", "1", "2"], "toggle needs one todo ID"),
        (["add"], "add needs the todo's text"),
        (["filter", "urgent"], "filter needs one of: all, active, completed"),
        (["list", "everything"], "list takes no arguments"),
        (["--data-dir"], "--data-dir needs a directory"),
    ])
    func aUsageErrorIsOneLineExitCode2AndChangesNothing(arguments: [String], message: String) async {
        let todos = TodosProcess()
        _ = await todos.run(["add", "keep me"])
        let before = todos.archiveBytes
        let outcome = await todos.run(arguments)
        #expect(outcome.status == 2)
        #expect(outcome.output.isEmpty)
        #expect(outcome.errorLines.first?.hasPrefix("todos: ") == true)
        #expect(outcome.errorLines.first?.contains(message) == true, "\(outcome.errors)")
        #expect(todos.archiveBytes == before)
    }

    @Test(arguments: [["toggle", "7"], ["remove", "7"]])
    func anUnknownIDIsExitCode1AndChangesNothing(arguments: [String]) async {
        let todos = TodosProcess()
        _ = await todos.run(["add", "keep me"])
        let before = todos.archiveBytes
        let outcome = await todos.run(arguments)
        #expect(outcome.status == 1)
        #expect(outcome.errorLines == ["todos: no todo has ID 7"])
        #expect(todos.archiveBytes == before)
        #expect(await todos.run(["list"]).outputLines == ["1 [ ] keep me"])
    }

    @Test func theInteractiveModePrintsTheListAfterEachChangeAndSurvivesMistakes() async {
        let todos = TodosProcess()
        let outcome = await todos.run(
            [], input: "add Buy milk\nadd Walk the dog\n\nlist\ntoggle 9\nbogus\ntoggle 2\nquit\nadd never\n")
        #expect(outcome.status == 0)
        #expect(
            outcome.outputLines == [
                "1 [ ] Buy milk",
                "1 [ ] Buy milk", "2 [ ] Walk the dog",
                "1 [ ] Buy milk", "2 [ ] Walk the dog",
                "1 [ ] Buy milk", "2 [x] Walk the dog",
            ])
        #expect(
            outcome.errorLines == [
                "todos: no todo has ID 9",
                "todos: unknown command 'bogus'; the commands are add, toggle, remove, filter, list, clear-completed, inspect",
            ])
        #expect(
            await todos.run(["list"]).outputLines == ["1 [ ] Buy milk", "2 [x] Walk the dog"],
            "saved for the next run")
    }

    @Test func theInteractiveModeEndsAtTheEndOfInput() async {
        let outcome = await TodosProcess().run([], input: "add one")
        #expect(outcome.status == 0)
        #expect(outcome.outputLines == ["1 [ ] one"])
    }

    @Test func verboseLogsEveryChangeToStandardError() async {
        let todos = TodosProcess()
        let outcome = await todos.run(["--verbose", "add", "Buy milk"])
        #expect(outcome.outputLines == ["1 [ ] Buy milk"])
        #expect(outcome.errorLines == ["todos: changed by TodoAction.add: 1 todo, filter all"])
        #expect(await todos.run(["list"]).errors.isEmpty, "quiet without --verbose")
    }

    #if canImport(Darwin)
    @Test func theDataLivesInApplicationSupportByDefault() async {
        // Checked without running `todos`, which would write into the user's real Library: Apple
        // platforms have no environment variable that moves Application Support.
        #expect(Options.defaultDataDirectory.path.hasSuffix("/Library/Application Support/reduxswift-todos"))
    }
    #else
    @Test func theDataLivesInXDGDataHomeByDefault() async {
        let todos = TodosProcess()
        let outcome = await todos.run(
            ["add", "here"], environment: ["XDG_DATA_HOME": todos.dataDirectory.path], useDataDir: false)
        #expect(outcome.status == 0)
        let file = todos.dataDirectory.appendingPathComponent("reduxswift-todos/todos.json")
        #expect(FileManager.default.fileExists(atPath: file.path))
    }
    #endif
}

@Suite struct TodosReducerTests {
    @Test func addingGivesEachTodoTheNextID() async throws {
        var state = AppState()
        try TodoReducers.reduce(&state, TodoAction.add("  one  "))
        try TodoReducers.reduce(&state, TodoAction.add("two"))
        #expect(state.todos.map(\.id) == [1, 2])
        #expect(state.todos.first?.text == "one")
    }

    @Test func anUnknownIDIsRejectedAndTheStoreKeepsItsState() async {
        let store = AppStoreForTests.make()
        store.dispatch(TodoAction.add("one"))
        store.dispatch(TodoAction.toggle(id: 5))
        #expect(store.currentState().todos == [Todo(id: 1, text: "one")])
    }

    @Test func visibleTodosFollowTheFilter() async {
        var state = AppState(todos: [Todo(id: 1, text: "a", isCompleted: true), Todo(id: 2, text: "b")])
        state.filter = .active
        #expect(state.visibleTodos.map(\.id) == [2])
        state.filter = .completed
        #expect(state.visibleTodos.map(\.id) == [1])
    }

    @Test func commandsParseLikeTheUsageSays() async throws {
        #expect(try Command(words: ["add", "Buy", "milk"]) == .add("Buy milk"))
        #expect(try Command(line: "toggle 3") == .toggle(id: 3))
        #expect(try Command(line: "filter completed") == .filter(.completed))
        #expect(throws: CommandError.usage("remove needs a numeric ID, not '-'")) {
            try Command(line: "remove -")
        }
    }
}

/// A store with the app's reducers but no archive, for reducer tests.
enum AppStoreForTests {
    static func make() -> AppStore {
        AppStore(state: AppState())
    }
}

// The code blocks of ReduxSwiftTesting's catalog (*Testing a Feature*), as the article shows them,
// run as tests against the app in DocSnippetApp.

import DocSnippetChecking
import Foundation
import ReduxSwift
import ReduxSwiftTesting
import Testing

// In the main-actor targets the app's code is in the same module, as in an app.
#if !MAIN_ACTOR_SNIPPETS
@testable import DocSnippetApp
#endif

@Suite struct TestingArticleTests {
    @Test func addingTwoTodos() {
        let store = TestStore(reducers: TodoReducers.reducers, state: AppState())
        store.send(TodoAction.add("Milk")) {
            $0.todos = [Todo(id: 1, title: "Milk")]
            $0.nextID = 2
        }
        store.send(TodoAction.add("Eggs")) {
            $0.todos.append(Todo(id: 2, title: "Eggs"))
            $0.nextID = 3
        }
        store.finish()
    }

    @Test func togglingAnUnknownTodoFails() {
        let store = TestStore(reducers: TodoReducers.reducers, state: AppState())
        let error = store.sendExpectingFailure(TodoAction.toggle(id: 42))
        #expect((error as? UnknownTodo)?.id == 42)
    }

    @Test func loadingReplacesTheTodos() async {
        let store = TestStore(
            reducers: TodoReducers.reducers, state: AppState(),
            middleware: [.asyncActions(dependencies: API.fake)])
        let load = loadTodos()
        store.send(load)
        await store.receive(TodoAction.loaded([]), timeout: 60) { $0.todos = [] }
        await load.finished()
        store.finish()
    }

    @Test func loadingDispatchesTheLoadedTodos() async {
        let store = TestStore(
            reducers: TodoReducers.reducers, state: AppState(),
            middleware: [.asyncActions(dependencies: API.fake)])
        store.send(loadTodos())
        await store.receive("the loaded todos", where: { $0 is TodoAction }, assert: { $0.todos = [] })
        store.finish()
    }

    @Test func onlyTheTitlesMatter() {
        let store = TestStore(reducers: TodoReducers.reducers, state: AppState(), exhaustivity: .off)
        store.send(TodoAction.add("Milk")) { $0.todos[0].title = "Milk" }
        store.finish()
    }

    @Test(arguments: [
        "Sources/ReduxSwiftTesting/ReduxSwiftTesting.docc/TestingAFeature.md",
        "Sources/ReduxSwiftTesting/ReduxSwiftTesting.docc/ReduxSwiftTesting.md",
    ])
    func everyBlockOfTheCatalogIsCompiledHere(article: String) throws {
        let missing = try DocBlocks.missingBlocks(
            in: article, compiledIn: ["Tests/DocSnippets/README/TestingArticle.swift"])
        #expect(missing.isEmpty, "not compiled:\n\(missing.map(\.description).joined(separator: "\n\n"))")
        #expect(try DocBlocks.unknownProducts(in: article).isEmpty)
    }
}

// The code of the *Getting Started* article, block by block as the article shows it
// (`GettingStartedArticleTests` checks that each block is here), plus tests that run it.

import DocSnippetChecking
import Foundation
import ReduxSwift
import ReduxSwiftTesting
import Testing

nonisolated struct Todo: Codable, Equatable {
    var id: Int
    var title: String
    var done = false
}

struct AppState: StateProtocol, Equatable {
    var todos: [Todo] = []
    var nextID = 1
}

enum TodoAction: ActionProtocol {
    case add(String)
    case toggle(id: Int)
}

struct UnknownTodo: Error { let id: Int }

enum TodoReducers: ReducerProtocol {
    static var reducers: [Reducer<AppState>] {
        [
            { state, action in
                guard case .add(let title)? = action as? TodoAction else { return }
                state.todos.append(Todo(id: state.nextID, title: title))
                state.nextID += 1
            },
            { state, action in
                guard case .toggle(let id)? = action as? TodoAction else { return }
                guard let index = state.todos.firstIndex(where: { $0.id == id }) else {
                    throw UnknownTodo(id: id)
                }
                state.todos[index].done.toggle()
            },
        ]
    }
}

final class AppStore: Store<AppState>, @unchecked Sendable {
    static let shared = AppStore()

    private init() {
        super.init(reducers: TodoReducers.reducers, state: AppState())
    }
}

final class TodoCountService {
    private var token: ObserverToken?

    func start() {
        token = AppStore.shared.observeChanges(queue: .main) { notification in
            let open = AppStore.shared.currentState().todos.filter { !$0.done }.count
            print("\(open) open todos after \(notification.actions.count) actions")
        }
    }

    func stop() {
        token = nil  // releasing the token removes the observer
    }
}

struct SettingsState: StateProtocol, Equatable {
    var darkMode = false
}

enum SettingsAction: ActionProtocol {
    case setDarkMode(Bool)
}

enum SettingsReducers: ReducerProtocol {
    static var reducers: [Reducer<SettingsState>] {
        [{ state, action in if case SettingsAction.setDarkMode(let on) = action { state.darkMode = on } }]
    }
}

/// `AppState` once the feature is added, as the article describes it.
struct AppStateWithSettings: StateProtocol, Equatable {
    var todos: [Todo] = []
    var nextID = 1
    var settings = SettingsState()
}

@Suite struct GettingStartedArticleTests {
    @Test func everyBlockOfTheArticleIsCompiledHere() throws {
        let missing = try DocBlocks.missingBlocks(
            in: "Sources/ReduxSwift/ReduxSwift.docc/GettingStarted.md",
            compiledIn: ["Tests/DocSnippets/GettingStarted/GettingStarted.swift"])
        #expect(missing.isEmpty, "not compiled:\n\(missing.map(\.description).joined(separator: "\n\n"))")
    }

    @Test func theArticlesPackageFragmentNamesTheLibrary() throws {
        let text = try String(
            contentsOf: DocBlocks.root.appendingPathComponent(
                "Sources/ReduxSwift/ReduxSwift.docc/GettingStarted.md"),
            encoding: .utf8)
        #expect(text.contains(".target(name: \"App\", dependencies: [\"ReduxSwift\"])"))
    }

    @Test func dispatchingAndReadingWorkAsTheArticleSays() {
        AppStore.shared.dispatch(TodoAction.add("Buy milk"))
        let todos = AppStore.shared.currentState().todos  // includes "Buy milk"
        #expect(todos.map(\.title) == ["Buy milk"])
        AppStore.shared.dispatch(TodoAction.toggle(id: 99))  // rejected: the state is unchanged
        #expect(AppStore.shared.currentState().todos == todos)
    }

    @Test func theArticlesStateWorksWithTestStore() {
        let store = TestStore(reducers: TodoReducers.reducers, state: AppState())
        store.send(TodoAction.add("Milk")) {
            $0.todos = [Todo(id: 1, title: "Milk")]
            $0.nextID = 2
        }
        store.send(TodoAction.toggle(id: 1)) { $0.todos[0].done = true }
        store.finish()
    }

    @Test func aFeaturesReducersRegisteredAtItsMemberChangeOnlyThatMember() {
        let app = Store(
            reducers: SettingsReducers.reducers(at: \AppStateWithSettings.settings),
            state: AppStateWithSettings())
        app.dispatch(SettingsAction.setDarkMode(true))
        #expect(app.currentState() == AppStateWithSettings(settings: SettingsState(darkMode: true)))

        let feature = TestStore(reducers: SettingsReducers.reducers, state: SettingsState())
        feature.send(SettingsAction.setDarkMode(true)) { $0.darkMode = true }
    }
}

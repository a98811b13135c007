import Dispatch
import Foundation
import ReduxSwift
import Testing

// The code of the "Getting Started" article, compiled and run here so that the article cannot
// drift from the API. Names carry a `GettingStarted` prefix only to keep them apart from the
// README's `AppStore` in this target, and the service observes on a global queue instead of
// `.main`, which nothing drains in a test process.

struct GettingStartedTodo: Codable, Equatable {
    var id: Int
    var title: String
    var done = false
}

struct GettingStartedState: StateProtocol {
    var todos: [GettingStartedTodo] = []
    var nextID = 1
}

enum TodoAction: ActionProtocol {
    case add(String)
    case toggle(id: Int)
}

struct UnknownTodo: Error { let id: Int }

enum GettingStartedReducers: ReducerProtocol {
    static var reducers: [Reducer<GettingStartedState>] {
        [
            { state, action in
                guard case .add(let title)? = action as? TodoAction else { return }
                state.todos.append(GettingStartedTodo(id: state.nextID, title: title))
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

final class GettingStartedStore: Store<GettingStartedState>, @unchecked Sendable {
    static let shared = GettingStartedStore()

    private init() {
        super.init(reducers: GettingStartedReducers.reducers, state: GettingStartedState())
    }
}

final class TodoCountService: @unchecked Sendable {
    // `@unchecked Sendable`: `token` is set in `start()` and cleared in `stop()`, both called from
    // the test's thread, never concurrently.
    private var token: ObserverToken?
    let counts = SeenCounters()

    func start() {
        let counts = self.counts
        token = GettingStartedStore.shared.observeChanges(queue: .global()) { notification in
            let open = GettingStartedStore.shared.currentState().todos.filter { !$0.done }.count
            _ = notification.actions.count
            counts.record(open)
        }
    }

    func stop() {
        token = nil  // releasing the token removes the observer
    }
}

@Suite struct GettingStartedTests {
    @Test func theArticlesCodeRunsAsDescribed() {
        let service = TodoCountService()
        service.start()
        GettingStartedStore.shared.dispatch(TodoAction.add("Buy milk"))
        let todos = GettingStartedStore.shared.currentState().todos
        #expect(todos.map(\.title) == ["Buy milk"])
        #expect(service.counts.waitFor(1))
        GettingStartedStore.shared.dispatch(TodoAction.toggle(id: 99))  // rejected: state unchanged
        #expect(GettingStartedStore.shared.currentState().todos == todos)
        service.stop()
    }
}

// The README's code blocks, as the README shows them (`ReadmeSnippetTests` checks that each block
// is here or, for the first example, in Tests/MainActorAppTests). They use the app in
// DocSnippetApp; blocks with statements are the bodies of functions whose parameters are the
// values the README takes as given (`store`, `cartStore`…), and some of them run in the tests.

import DocSnippetChecking
import Foundation
import ReduxSwift
import ReduxSwiftTesting
import Testing

// In the main-actor targets the app's code is in the same module, as in an app.
#if !MAIN_ACTOR_SNIPPETS
@testable import DocSnippetApp
#endif

// MARK: The first example

/// The first example, in a plain module (Tests/MainActorAppTests compiles it in a main-actor one).
func firstExample() {

    struct AppState: StateProtocol {
        var counter = 0
    }

    enum CounterAction: ActionProtocol {
        case increment
        case add(Int)
    }

    enum CounterReducers: ReducerProtocol {
        static var reducers: [Reducer<AppState>] {
            [
                { state, action in
                    switch action as? CounterAction {
                    case .increment?: state.counter += 1
                    case .add(let amount)?: state.counter += amount
                    case nil: break
                    }
                }
            ]
        }
    }

    final class AppStore: Store<AppState>, @unchecked Sendable {
        static let shared = AppStore()

        private init() {
            super.init(reducers: CounterReducers.reducers, state: AppState())
        }
    }

    final class CounterService {
        private var token: ObserverToken?

        func start() {
            // The store's queue selects the counter; the main actor gets it, when it changes.
            token = AppStore.shared.observe(\.counter, queue: .main) { counter in
                print("counter:", counter)
            }
        }
    }

    AppStore.shared.dispatch(CounterAction.increment)  // returns at once, from any thread
    print(AppStore.shared.currentState().counter)  // 1: reads see every earlier dispatch
}

// MARK: The shared store

func sharedStoreExample() -> Store<AppState> {
    final class AppStore: Store<AppState>, @unchecked Sendable {
        static let shared = AppStore()

        private init() {
            super.init(reducers: CounterReducers.reducers, state: AppState())
            register(TodoReducers.reducers)
            register(FilterReducers.reducers)
        }
    }
    return AppStore.shared
}

// MARK: Notifications

func notificationExample() -> [ObserverToken] {
    let token = AppStore.shared.notificationCenter.addObserver(
        forName: .stateDidChange, object: AppStore.shared, queue: nil
    ) { notification in
        for action in notification.actions { print("reduced", action.identifier) }
    }

    let failures = AppStore.shared.observeFailures { notification in
        print("rejected", notification.failedAction!.identifier, notification.error!)
    }
    return [token, failures]
}

// MARK: The dispatch pipeline

func middlewareExample() -> Store<AppState> {
    let rejectEmptyTitles = Middleware<AppState>("reject empty titles") { action, context in
        if case TodoAction.add(let title) = action, title.isEmpty { return }  // dropped
        context.next(action)
    }

    let store = Store(
        reducers: TodoReducers.reducers, state: AppState(),
        middleware: [.logger(), .asyncActions(dependencies: api), rejectEmptyTitles])
    // [AppState] add("Milk") committed in 0.012 ms
    return store
}

func asyncActionExample(store: Store<AppState>) async {
    let load = AsyncAction<AppState, API>("todos.load") { context in
        let todos = try await context.dependencies.fetchTodos()
        context.dispatch(TodoAction.loaded(todos))
    }
    store.dispatch(load)
    load.cancel()  // nothing it dispatches after this returns reaches the store
    await load.finished()  // returned, threw or was cancelled
}

func lockExample(store: Store<AppState>) throws {
    let lock = store.lock("sign-in", performing: SessionAction.start)  // reduced now
    store.dispatch(TodoAction.add("Milk"))  // waits for the lock
    lock.dispatch(SessionAction.finish)  // passes it
    try lock.release()  // "Milk" is reduced
}

func transactionExample(cartStore: Store<AppState>, orderStore: Store<AppState>, order: Order) throws {
    var transaction = StoreTransaction()
    transaction.add(CartAction.checkOut, to: cartStore)
    transaction.add(OrderAction.place(order), to: orderStore)
    try transaction.commit()  // a TransactionError of kind .rejected: then neither store changed
}

func historyExample(store: Store<AppState>) {
    let history = store.recordHistory(limit: HistoryLimit(steps: 200, actions: 5_000))
    store.dispatch(TodoAction.add("Milk"))
    history.undo()
    history.redo()
    history.jump(to: 0)  // the state when recording started
    print(history.status.canUndo)  // after every move dispatched before
}

func batchExample(store: Store<AppState>) {
    store.dispatch(batch: [TodoAction.add("Milk"), TodoAction.add("Eggs"), FilterAction.show(.active)])
}

func actionLogExample() throws -> Store<AppState> {
    let log = ActionLog()
    log.register(TodoAction.self)  // any ActionProtocol & Codable type

    let recording = log.record(AppStore.shared)
    // …
    let data = recording.stop()  // JSON Lines: {"action":{…},"time":"2026-11-22T10:15:30.123Z","type":"…"}

    let fresh = Store(reducers: AppReducers.reducers, state: AppState())
    try log.replay(data, into: fresh)
    return fresh
}

// MARK: Testing with TestStore

@Test func loadingTodos() async {
    let store = TestStore(
        reducers: TodoReducers.reducers, state: AppState(),
        middleware: [.asyncActions(dependencies: API.fake)])
    store.send(TodoAction.add("Milk")) {
        $0.todos = [Todo(id: 1, title: "Milk")]
        $0.nextID = 2
    }
    store.send(loadTodos())
    await store.receive(TodoAction.loaded([])) { $0.todos = [] }
    store.finish()
}
// state after add("Milk") differs from the expected state:
//     todos.0.title: expected "Milk", actual "milk"

// MARK: Observing state

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
func observingExamples(store: AppStore) async {
    // A selected value: its current value first, then only when it changes (ReSwift's select +
    // skipRepeats). With `queue: .main`, the block is @MainActor.
    let token = store.observe(\.todos, queue: .main) { todos in render(todos) }

    // The view-model pattern: tied to an owner, so no [weak self], and gone when the owner is freed.
    @MainActor final class CounterViewModel {
        private(set) var text = ""

        init(store: AppStore) {
            store.observe(\.counter, owner: self, queue: .main) { model, counter in
                model.text = "\(counter)"
            }
        }
    }

    // A value derived from several inputs, computed only when they change (Reflow's visibleTodos).
    struct VisibleInput: Equatable, Sendable {
        var todos: [Todo]
        var filter: Filter
    }
    let select: @Sendable (AppState) -> VisibleInput = { VisibleInput(todos: $0.todos, filter: $0.filter) }
    let visible = store.observe(select, queue: .main) { input in
        render(input.filter == .all ? input.todos : input.todos.filter { !$0.done })
    }

    // Swift concurrency: latest wins, so a slow consumer never makes the store buffer.
    for await count in store.values(of: \.todos.count) { badge(count) }

    // SwiftUI (Observation, also on Linux): a main-actor model that views read.
    let unfinished = ObservedValue(store) { $0.todos.filter { !$0.done }.count }
    _ = (token, visible, unfinished, CounterViewModel(store: store))
}

// MARK: Persistence

/// Where the persistence example tells the user that a save failed.
@MainActor func showSaveProblem(_ message: String) {
    _ = message
}

/// Where the persistence example tells the user of a problem with the data at launch.
@MainActor func showDataProblem(_ message: String) {
    _ = message
}

func persistenceExample() throws {
    final class AppStore: Store<AppState>, @unchecked Sendable {
        static let archive = StateArchive<AppState>(
            file: FileArchiveBackend.defaultDirectory(forApplication: "MyApp")
                .appendingPathComponent("AppState.json"))
        static let shared = AppStore()

        private init() {
            super.init(
                reducers: CounterReducers.reducers,
                state: Self.archive.restore(default: AppState()) { problem in
                    // The data cannot be read (changes are kept beside it), or changes wait to be merged.
                    Task { @MainActor in showDataProblem(problem.description) }
                })
        }
    }

    // At launch; keep it for as long as the app runs. A refused save keeps the last state saved
    // and is tried again: tell the user, whose latest changes are not on disk yet.
    let persistence = PersistenceService(store: AppStore.shared, archive: AppStore.archive) { error in
        Task { @MainActor in showSaveProblem(error.description) }
    }

    // Before the app quits or is suspended: returns when the state is on disk.
    try persistence.flush()
}

@Suite struct ReadmeSnippetTests {
    @Test func everyBlockOfTheReadmeIsCompiled() throws {
        let missing = try DocBlocks.missingBlocks(
            in: "README.md",
            compiledIn: [
                "Tests/DocSnippets/README/Readme.swift"
            ])
        #expect(missing.isEmpty, "not compiled:\n\(missing.map(\.description).joined(separator: "\n\n"))")
    }

    @Test func theInstallFragmentNamesProductsThePackageHas() throws {
        #expect(try DocBlocks.unknownProducts(in: "README.md").isEmpty)
    }

    @Test func thePipelineExamplesRunAsTheReadmeSays() throws {
        let store = middlewareExample()
        try lockExample(store: store)
        batchExample(store: store)
        #expect(store.currentState().todos.map(\.title) == ["Milk", "Milk", "Eggs"])
        historyExample(store: store)
        try transactionExample(cartStore: store, orderStore: sharedStoreExample(), order: Order())
    }

    @Test func anActionLogReplaysIntoTheSameState() throws {
        let fresh = try actionLogExample()
        #expect(fresh.currentState().todos == AppStore.shared.currentState().todos)
    }
}

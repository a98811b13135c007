// The code blocks of the DocC articles other than *Getting Started*, as the articles show them
// (`ArticleSnippetTests` checks that each block is here). They use the app in DocSnippetApp;
// blocks with statements are the bodies of functions whose parameters are the values the
// articles take as given (`store`, `cartStore`…), and some of them run in the tests below.

import DocSnippetChecking
import Foundation
import ReduxSwift
import Testing

// In the main-actor targets the app's code is in the same module, as in an app.
#if !MAIN_ACTOR_SNIPPETS
@testable import DocSnippetApp
#endif

#if canImport(SwiftUI)
import SwiftUI
#endif

// MARK: ReduxSwift.md

func overviewExample() {
    struct AppState: StateProtocol {
        var counter = 0
    }

    enum CounterAction: ActionProtocol {
        case increment
    }

    let store = Store<AppState>(
        reducers: [{ state, action in if case CounterAction.increment = action { state.counter += 1 } }],
        state: AppState()
    )

    store.dispatch(CounterAction.increment)
    print(store.currentState().counter)  // 1
}

// MARK: ObservingState.md

func selectorExample(store: AppStore) -> ObserverToken {
    let token = store.observe(\.todos, queue: .main) { todos in
        render(todos)
    }
    return token
}

func derivedValueExample(store: AppStore) -> ObserverToken {
    struct VisibleInput: Equatable, Sendable {
        var todos: [Todo]
        var filter: Filter
    }

    let select: @Sendable (AppState) -> VisibleInput = { VisibleInput(todos: $0.todos, filter: $0.filter) }
    let token = store.observe(select, queue: .main) { input in
        render(input.filter == .all ? input.todos : input.todos.filter { !$0.done })
    }
    return token
}

@MainActor
final class CounterViewModel {
    private(set) var text = ""

    init(store: AppStore) {
        store.observe(\.counter, owner: self, queue: .main) { model, counter in
            model.text = "\(counter)"
        }
    }
}

final class BadgeModel: Sendable {
    init(store: AppStore) {
        store.observe(\.todos.count, owner: self, queue: .main) { model, count in
            model.show(count)
        }
    }

    func show(_ count: Int) {
        print("\(count) todos")
    }
}

@MainActor
final class TodoListScreen {
    private(set) var rows: [Todo] = []

    func viewWillAppear(store: AppStore) {
        // Each appearance replaces the registration this line made the time before.
        store.observe(\.todos, owner: self, queue: .main) { screen, todos in
            screen.rows = todos
        }
    }
}

/// Stands for a label of the app's interface that shows a count.
@MainActor
final class CountLabel {
    var text = ""
}

extension AppStore {
    /// Shows the number of todos in `label` for as long as the label lives.
    func showTodoCount(
        in label: CountLabel,
        fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column
    ) {
        observe(
            \.todos.count, owner: label, queue: .main, fileID: fileID, line: line, column: column
        ) { label, count in
            label.text = "\(count) todos"
        }
    }
}

/// Stands for a label of the app's interface.
final class Label {
    var text = ""
}

func valuesExample(store: AppStore, badge: Label) async {
    for await count in store.values(of: \.todos.count) {
        badge.text = "\(count)"
    }
}

#if canImport(SwiftUI)
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
struct TodoList: View {
    @State private var todos = ObservedValue(AppStore.shared) { $0.todos }

    var body: some View {
        List(todos.value, id: \.id) { todo in Text(todo.title) }
    }
}
#endif

// MARK: TheDispatchPipeline.md

func middlewareExample() -> Store<AppState> {
    let audit = Middleware<AppState>("audit") { action, context in
        if case .failed(let error) = context.next(action) {
            AuditLog.shared.record(action, error)
        }
    }

    let store = Store(
        reducers: TodoReducers.reducers, state: AppState(), middleware: [.logger(), audit])
    return store
}

func undoMiddlewareExample() -> Middleware<AppState> {
    let undoStack = UndoStack()
    let undo = Middleware<AppState>("undo") { action, context in
        switch action {
        case FilterAction.show:
            let shown = context.currentState().filter
            let dispatch = context.dispatchLater()
            undoStack.push { dispatch(FilterAction.restore(shown)) }
        case EditAction.undo:
            undoStack.pop()?()
        default:
            break
        }
        context.next(action)
    }
    return undo
}

func middlewareRemovalExample(store: Store<AppState>) {
    let logging = store.register(middleware: [.logger()])
    store.dispatch(TodoAction.add("Milk"))  // logged
    logging.remove()
    store.dispatch(TodoAction.add("Eggs"))  // not logged
}

func asyncActionExample() -> Store<AppState> {
    struct API: Sendable {
        var fetchTodos: @Sendable () async throws -> [Todo]
    }

    let store = Store(
        reducers: TodoReducers.reducers, state: AppState(),
        middleware: [.asyncActions(dependencies: API(fetchTodos: Server.fetchTodos))])

    let load = AsyncAction<AppState, API>("todos.load") { context in
        let todos = try await context.dependencies.fetchTodos()
        context.dispatch(TodoAction.loaded(todos))
    }
    store.dispatch(load)
    return store
}

func lockExample(store: Store<AppState>) throws {
    let lock = store.lock("sign-in", performing: SessionAction.start)
    store.dispatch(TodoAction.add("Milk"))  // waits
    lock.dispatch(SessionAction.finish)  // reduced while paused
    try lock.release()  // "Milk" is reduced
}

func transactionExample(cartStore: Store<AppState>, orderStore: Store<AppState>, order: Order) throws {
    var transaction = StoreTransaction()
    transaction.add(CartAction.checkOut, to: cartStore)
    transaction.add(OrderAction.place(order), to: orderStore)
    try transaction.commit()
}

func historyExample(store: Store<AppState>) {
    let history = store.recordHistory(limit: HistoryLimit(steps: 200, actions: 5_000))
    store.dispatch(TodoAction.add("Milk"))
    history.undo()
    history.redo()
    history.jump(to: 0)
}

func batchExample(store: Store<AppState>) {
    store.dispatch(batch: [TodoAction.add("Milk"), TodoAction.add("Eggs")])
}

// MARK: SavingAndRestoringState.md

/// Where the article's stores tell the user of a problem with the data at launch.
@MainActor func showDataProblem(_ message: String) {
    _ = message
}

func archiveExample() -> Any {
    final class AppStore: Store<AppState>, @unchecked Sendable {
        static let archive = StateArchive<AppState>(
            file: FileArchiveBackend.defaultDirectory(forApplication: "MyApp")
                .appendingPathComponent("AppState.json"))
        static let shared = AppStore()

        private init() {
            super.init(
                reducers: AppReducers.reducers,
                state: Self.archive.restore(default: AppState()) { problem in
                    // The data could not be read, or changes wait to be merged: say so.
                    Task { @MainActor in showDataProblem(problem.description) }
                })
        }
    }

    let persistence = PersistenceService(store: AppStore.shared, archive: AppStore.archive)
    return persistence
}

/// The article's store that merges the unmerged state, on an archive of its own.
final class MergingAppStore: Store<AppState>, @unchecked Sendable {
    static let archive = StateArchive<AppState>(
        file: URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("ReduxSwiftDocSnippets-\(UUID().uuidString)/AppState.json"))
    static let shared = MergingAppStore()

    private init() {
        var state = Self.archive.restore(default: AppState()) { problem in
            Task { @MainActor in showDataProblem(problem.description) }
        }
        do {
            if let unmerged = try Self.archive.loadUnmerged() {
                state.todos += unmerged.todos  // your rule: keep what the user did in both
                try Self.archive.save(state)  // the merged state is in the archive first,
                try Self.archive.removeUnmerged()  // then the unmerged one can go
            }
        } catch {
            // The unmerged state stays beside the archive, and is merged at the next launch.
            Task { @MainActor in showDataProblem("\(error)") }
        }
        super.init(reducers: AppReducers.reducers, state: state)
    }
}

struct Settings: Codable, Equatable, ArchiveDefaults {
    var fontSize = 14
    var giftWrap = false  // added in version 1.1
}

struct CartLine: Codable, Equatable, ArchiveDefaults {
    var productID: String
    var quantity: Int
    var giftWrap = false  // added in version 1.1
}

extension CartLine {
    // Not every property has a default, so the type gives its own `init()`.
    init() { self.init(productID: "", quantity: 0) }
}

@Suite struct SavingArticleFixtureTests {
    @Test func archivesOfVersion1StillLoad() throws {
        try AppStore.archive.loadFixture(
            at: URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().appendingPathComponent("Fixtures/AppState-1.0.json"))
    }

    @Test func theArticlesTypesTakeTheirDeclaredDefaults() throws {
        struct Shop: StateProtocol, Equatable {
            var settings: Settings
            var lines: [CartLine]
        }
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/Shop-1.0.json")
        let shop = try StateArchive<Shop>(file: url)
            .loadFixture(at: url)
        #expect(shop.settings == Settings(fontSize: 18, giftWrap: false))
        #expect(shop.lines == [CartLine(productID: "p1", quantity: 2, giftWrap: false)])
    }
}

nonisolated struct Expense: Codable, Equatable {
    var title: String
    var amount: Double
    var tags: [String] = []  // added in version 2
    var memo: String  // "note" in version 1
}

struct ExpenseState: StateProtocol, Equatable {
    var expenses: [Expense] = []
    var defaultCurrency = "EUR"  // added in version 2
}

enum ExpenseArchive {
    static let archive = StateArchive<ExpenseState>(
        file: FileArchiveBackend.defaultDirectory(forApplication: "Expenses")
            .appendingPathComponent("ExpenseState.json"),
        schemaVersion: 2,  // raised from 1: the shape of the state changed
        migrations: [
            ArchiveMigration(from: 1, adding: "tags", json: "[]", in: "expenses[]"),
            ArchiveMigration(from: 1, renaming: "note", to: "memo", in: "expenses[]"),
            ArchiveMigration(from: 1, adding: "defaultCurrency", value: "EUR"),
        ])
}

@Suite struct SavingArticleMigrationTests {
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/ExpenseState-1.0.json")

    @Test func theFirstLaunchOfVersion2NamesTheArticlesThreeChangesAndMigrations() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ArticleSnippets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("ExpenseState.json")
        try FileManager.default.copyItem(at: fixture, to: url)
        var reported: PersistenceError?
        _ = StateArchive<ExpenseState>(file: url).restore(default: ExpenseState()) { error, _ in
            reported = error
        }
        let error = try #require(reported)
        #expect(
            error.description.contains(
                "it needs a migration for each of these 3 changes:\n1. At state.expenses[0].tags: "))
        #expect(
            error.suggestedMigrations == """
                [
                    ArchiveMigration(from: 1, adding: "tags", json: <#"[]", or the value Expense declares#>, in: "expenses[]"),
                    ArchiveMigration(from: 1, renaming: <#"note", or delete this line#>, to: "memo", in: "expenses[]"),
                    ArchiveMigration(from: 1, adding: "defaultCurrency", value: "EUR"),
                ]
                """)
        #expect(
            error.description.hasSuffix(
                "Raise schemaVersion to 2 and add these migrations:\nmigrations: \(error.suggestedMigrations ?? "")"
            ))
    }

    @Test func theArticlesArchiveLoadsEveryOldValueWhereItBelongs() throws {
        let state = try ExpenseArchive.archive.loadFixture(at: fixture)
        #expect(
            state
                == ExpenseState(
                    expenses: [
                        Expense(title: "Lunch", amount: 12.5, memo: "with Ada"),
                        Expense(title: "Train", amount: 31, memo: "to Lyon"),
                    ], defaultCurrency: "EUR"))
    }
}

func memberMigrationsExample() -> [ArchiveMigration] {
    let migrations = [
        ArchiveMigration(from: 1, renaming: "title", to: "name", in: "cart.lines[]"),
        ArchiveMigration(from: 2, removing: "legacyFlag"),
        ArchiveMigration(from: 3, adding: "currency", value: "EUR"),
        ArchiveMigration(from: 3, adding: "limits", json: #"{"daily":50}"#),
        ArchiveMigration(from: 4, converting: "quantity", in: "cart.lines[]") {
            Int($0 as? String ?? "") ?? 1
        },
    ]
    return migrations
}

func migrationExample() -> ArchiveMigration {
    let migration = ArchiveMigration(from: 1) { state in
        let count = state["count"] as? Int ?? 0  // 3 reads as 3; 3.5 fails
        let price = state["price"] as? Double ?? 0  // 2.5, and 2 (a Double 2.0 is saved as 2)
        let done = state["done"] as? Bool ?? false
        if var settings = state["settings"] as? [String: Any] {
            settings["dark"] = !(settings["light"] as? Bool ?? true)
            settings["light"] = nil
            state["settings"] = settings
        }
        state["total"] = Double(count) * price
        state["status"] = done ? "done" : "open"
    }
    return migration
}

func userDefaultsExample() -> StateArchive<AppState> {
    let archive = StateArchive<AppState>(
        backend: UserDefaultsArchiveBackend(name: "AppState", namespace: "com.example.myapp"))
    return archive
}

// MARK: Store's documentation comments

func storeDocumentationExamples(store: Store<AppState>) {
    final class AppStore: Store<AppState>, @unchecked Sendable {
        static let shared = AppStore()

        private init() {
            super.init(reducers: CounterReducers.reducers, state: AppState())
            register(TodoReducers.reducers)
        }
    }

    AppStore.shared.dispatch(CounterAction.increment)
    print(AppStore.shared.currentState().counter)  // 1

    store.dispatch(CounterAction.increment)
    store.dispatch(Action("todos.add", payload: "Buy milk"))

    store.dispatch(batch: [TodoAction.add("Milk"), TodoAction.add("Eggs")])

    store.register(TodoReducers.reducers)
    store.register(FilterReducers.reducers)

    let logging = store.register(middleware: [.logger()])
    logging.remove()

    do {
        let store = Store(reducers: AppReducers.reducers, state: AppState(), middleware: [.logger()])
        _ = store
    }
}

// MARK: ThreadingModel.md and Store+Idle.swift

func idleExamples(store: Store<AppState>) async throws {
    store.dispatch(TodoAction.add("Milk"))
    try await store.waitUntilIdle(timeout: 5)
    let todos = store.currentState().todos  // with what the middleware and the async work added
    _ = todos
}

func idleDocumentationExample(store: Store<AppState>) async {
    store.dispatch(TodoAction.add("Milk"))  // a middleware dispatches a follow-up
    await store.waitUntilIdle()
    let state = store.currentState()  // holds the follow-up's change too
    _ = state
}

@Suite struct IdleExamples {
    @Test func addingATodoShowsIt() async throws {
        let store = Store(reducers: TodoReducers.reducers, state: AppState())
        store.dispatch(TodoAction.add("Milk"))
        try await store.waitUntilIdle(timeout: 5)
        #expect(store.currentState().todos.map(\.title) == ["Milk"])
    }
}

// MARK: ComingFromReSwift.md

@MainActor
final class TodoListController {
    private(set) var titles: [String] = []

    func viewWillAppear(store: Store<AppState>) {
        store.observe(\.todos, owner: self, queue: .main) { controller, todos in
            controller.titles = todos.map(\.title)
        }
    }
}

func comingFromReSwiftMiddleware(store: Store<AppState>) {
    let reloadOnFilter = Middleware<AppState>("reload on filter") { action, context in
        context.next(action)
        guard action is FilterAction else { return }
        let dispatch = context.dispatchLater()
        Task { dispatch(TodoAction.loaded(try await Server.fetchTodos())) }
    }

    let registration = store.register(middleware: [reloadOnFilter])
    registration.remove()  // actions dispatched from here on no longer pass through it
}

func comingFromReSwiftThunk() -> Store<AppState> {
    let store = Store(
        reducers: AppReducers.reducers, state: AppState(), middleware: [.asyncActions(dependencies: api)])
    store.dispatch(loadTodos())
    return store
}

@Suite struct ComingFromReSwiftExamples {
    @Test func loadingReplacesTheTodos() async {
        let store = Store(
            reducers: AppReducers.reducers, state: AppState(), middleware: [.asyncActions(dependencies: api)])
        store.dispatch(loadTodos())
        await store.waitUntilIdle()
        #expect(store.currentState().todos.isEmpty)
    }
}

// MARK: InspectingARecording.md and ActionLog+Inspector.swift

func inspectorPageExample(log: ActionLog, recording: ActionLog.Recording) throws {
    let data = recording.stop()
    try log.writeInspectorPage(
        of: data, reducers: AppReducers.reducers, startingFrom: AppState(),
        to: URL(fileURLWithPath: "inspector.html"))
}

@Suite struct ArticleSnippetTests {
    @Test(arguments: [
        "ReduxSwift.docc/ReduxSwift.md", "ReduxSwift.docc/ObservingState.md",
        "ReduxSwift.docc/TheDispatchPipeline.md", "ReduxSwift.docc/SavingAndRestoringState.md",
        "ReduxSwift.docc/FeaturesAndTemplates.md", "ReduxSwift.docc/ThreadingModel.md",
        "ReduxSwift.docc/ComingFromReSwift.md", "ReduxSwift.docc/InspectingARecording.md",
        "ActionLog/ActionLog+Inspector.swift",
        "Store.swift",
        "Idle/Store+Idle.swift",
    ])
    func everyBlockOfTheArticleIsCompiledHere(article: String) throws {
        let missing = try DocBlocks.missingBlocks(
            in: "Sources/ReduxSwift/" + article,
            compiledIn: ["Tests/DocSnippets/Articles/Articles.swift"])
        #expect(missing.isEmpty, "not compiled:\n\(missing.map(\.description).joined(separator: "\n\n"))")
    }

    @Test func thePipelineExamplesRunAsTheArticleSays() throws {
        let store = middlewareExample()
        try lockExample(store: store)
        batchExample(store: store)
        middlewareRemovalExample(store: store)
        #expect(store.currentState().todos.map(\.title) == ["Milk", "Milk", "Eggs", "Milk", "Eggs"])
        historyExample(store: store)
        try transactionExample(cartStore: store, orderStore: asyncActionExample(), order: Order())
    }
}

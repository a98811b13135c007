import Foundation
import ReduxSwift

// App code as users write it in a main-actor module: no `nonisolated`, no `@MainActor`, no
// `MainActor.assumeIsolated`. Every declaration here is main-actor-isolated by default.

/// A second feature's reducer array, registered at startup next to the counter's.
enum ResetReducers: ReducerProtocol {
    static var reducers: [Reducer<AppState>] {
        [
            { state, action in
                guard action.identifier == "counter.reset" else { return }
                state.counter = 0
            }
        ]
    }
}

/// A reducer array that rejects negative amounts, so that a failing action can be observed.
enum GuardReducers: ReducerProtocol {
    static var reducers: [Reducer<AppState>] {
        [
            { state, action in
                if case .add(let amount)? = action as? CounterAction, amount < 0 {
                    throw NegativeAmount(amount: amount)
                }
            }
        ]
    }
}

struct NegativeAmount: Error {
    let amount: Int
}

/// A feature tested with a `TestStore`, which needs an `Equatable` state. (Declared with the type,
/// the conformance is not main-actor-isolated; a separate `extension TodoListState: Equatable {}`
/// would be, in this module, and a `TestStore` cannot use it: that one needs `nonisolated Equatable`.)
struct TodoListState: StateProtocol, Equatable {
    var titles: [String] = []
}

enum TodoAction: ActionProtocol {
    case add(String)
    case clear
}

enum TodoReducers: ReducerProtocol {
    static var reducers: [Reducer<TodoListState>] {
        [
            { state, action in
                switch action as? TodoAction {
                case .add(let title)?: state.titles.append(title)
                case .clear?: state.titles.removeAll()
                case nil: break
                }
            }
        ]
    }
}

/// A store of the README's state with every feature's reducers, collected at startup; each test
/// makes its own, so that tests running at once do not share a counter.
func makeAppStore() -> Store<AppState> {
    let store = Store(reducers: GuardReducers.reducers, state: AppState())
    store.register(CounterReducers.reducers)
    store.register(ResetReducers.reducers)
    return store
}

/// A view model: renders on every change and keeps a selected value, both on the main actor.
final class CounterViewModel {
    private(set) var text = ""
    private(set) var count = 0
    private(set) var renders = 0
    private(set) var failures: [String] = []
    private let store: Store<AppState>
    private var tokens: [ObserverToken] = []

    init(store: Store<AppState>) {
        self.store = store
    }

    func start() {
        tokens.append(store.observeChanges(queue: .main) { [weak self] _ in self?.render() })
        tokens.append(store.observe(\.counter, queue: .main) { [weak self] in self?.count = $0 })
        tokens.append(
            store.observeFailures(queue: .main) { [weak self] notification in
                self?.failures.append("\(notification.error.map { "\($0)" } ?? "")")
            })
    }

    func stop() {
        for token in tokens { token.cancel() }
        tokens.removeAll()
    }

    func render() {
        text = "\(store.currentState().counter)"
        renders += 1
    }
}

/// A model bound to its own life: no token to keep, no `[weak self]`.
final class BadgeModel {
    private(set) var count = 0
    private(set) var changes = 0

    init(store: Store<AppState>) {
        store.observe(\.counter, owner: self, queue: .main) { model, count in
            model.count = count
        }
        // `AppState` is not `Equatable`: every change of the state delivers it.
        store.observe(
            { $0 }, owner: self, queue: .main,
            using: { model, _ in
                model.changes += 1
            })
    }
}

/// A model that selects an `Equatable` projection: it hears only when the counter's parity changes.
final class ParityModel {
    private(set) var parities: [String] = []
    private var token: ObserverToken?

    func start(observing store: Store<AppState>) {
        token = store.observe(
            { $0.counter % 2 == 0 ? "even" : "odd" }, queue: .main,
            using: { [weak self] in
                self?.parities.append($0)
            })
    }
}

/// A service that hears about every change through the notification center, on the main actor.
final class ChangeLogService {
    private(set) var entries: [String] = []
    private var token: ObserverToken?

    func start(observing store: Store<AppState>) {
        token = store.notificationCenter.addObserver(forName: .stateDidChange, object: store, queue: .main) {
            [weak self] notification in
            self?.entries.append(contentsOf: notification.actions.map(\.identifier))
        }
    }

    func stop() {
        token?.cancel()
        token = nil
    }
}

/// A model that follows the counter in a main-actor loop over `values(of:)`.
final class CounterStreamModel {
    private(set) var counts: [Int] = []
    private var task: Task<Void, Never>?

    func start(observing store: Store<AppState>) {
        let counts = store.values(of: \.counter)
        task = Task { [weak self] in
            for await count in counts { self?.counts.append(count) }
        }
    }

    func stop() {
        task?.cancel()
        task = nil
    }
}

/// A service that does its work off the main actor, on a queue of its own: the `DispatchQueue`
/// overloads still take plain `@Sendable` blocks in a main-actor module.
final class BackgroundCounterLog {
    let seen = SeenValues()
    private let queue = DispatchQueue(label: "BackgroundCounterLog")
    private var token: ObserverToken?

    func start(observing store: Store<AppState>) {
        let seen = self.seen
        token = store.observeChanges(queue: queue) { _ in
            dispatchPrecondition(condition: .notOnQueue(.main))
            seen.append(store.currentState().counter)
        }
    }
}

/// Values recorded from any thread, for tests to wait on.
nonisolated final class SeenValues: @unchecked Sendable {
    // `@unchecked Sendable`: `values` is only touched while `lock` is held.
    private let lock = NSLock()
    private var values: [Int] = []

    func append(_ value: Int) {
        lock.withLock { values.append(value) }
    }

    var all: [Int] {
        lock.withLock { values }
    }
}

/// The README's persisted store, with the archive passed in so that each test has its own file.
final class PersistedAppStore: Store<AppState>, @unchecked Sendable {
    init(archive: StateArchive<AppState>) {
        super.init(reducers: CounterReducers.reducers, state: archive.restore(default: AppState()))
    }
}

/// Preferences that gained `theme` in an app update: archives of the earlier version lack it.
struct Preferences: Codable, Equatable, ArchiveDefaults {
    var fontSize = 14
    var theme = "light"
}

/// A cart line whose stored properties do not all have defaults gives `ArchiveDefaults` its
/// `init()` in an extension, which keeps the memberwise initializer.
struct CartLine: Codable, Equatable, ArchiveDefaults {
    var sku: String
    var quantity: Int
    var giftWrap = false
}

extension CartLine {
    init() { self.init(sku: "", quantity: 0) }
}

struct ShopState: StateProtocol, Equatable {
    var preferences = Preferences()
    var lines: [CartLine] = []
}

/// The server client a feature's async action receives, faked in tests.
struct TitlesAPI: Sendable {
    var fetch: @Sendable () async throws -> [String]

    static let fake = TitlesAPI(fetch: { ["Bread"] })
}

enum TitlesAction: ActionProtocol, Equatable {
    case loaded([String])
    case reject
}

/// A reducer array for the titles list that loads, and rejects `.reject`.
enum TitlesReducers: ReducerProtocol {
    static var reducers: [Reducer<TodoListState>] {
        TodoReducers.reducers + [
            { state, action in
                switch action as? TitlesAction {
                case .loaded(let titles)?: state.titles = titles
                case .reject?: throw NegativeAmount(amount: -1)
                case nil: break
                }
            }
        ]
    }
}

/// Loads the titles from the server: a new action each time, since an `AsyncAction` runs once.
func loadTitles() -> AsyncAction<TodoListState, TitlesAPI> {
    AsyncAction("titles.load") { context in
        let titles = try await context.dependencies.fetch()
        context.dispatch(TitlesAction.loaded(titles))
    }
}

/// An app state that holds the to-do feature's state as a member, as features join the app's one
/// store through `reducers(at:)`.
struct ShellState: StateProtocol, Equatable {
    var todos = TodoListState()
    var launches = 0
}

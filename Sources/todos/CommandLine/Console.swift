import Foundation
import ReduxSwift

/// Runs commands against the store the way the app's services see it: dispatch, then save.
struct Console {
    /// Saves only when a command asks: each command that changes the list saves it and reports a
    /// failure itself, and a timer's save would try a failed save again between commands and
    /// report it a second time.
    static let savePolicy = SavePolicy(idleDelay: .infinity, maximumDelay: .infinity)

    let store: AppStore
    let persistence: PersistenceService<AppState>
    let logger: ChangeLogger?
    /// Log lines the logger owes: one per dispatched action.
    private var expectedLogLines = 0
    /// Whether the last save failed; the command that tried it has reported why.
    private(set) var lastSaveFailed = false

    init(store: AppStore, archive: StateArchive<AppState>, logger: ChangeLogger?) {
        self.store = store
        persistence = PersistenceService(
            store: store, archive: archive, policy: Self.savePolicy,
            onError: { error in printError(DataFile.message(error)) })
        self.logger = logger
    }

    /// Runs one command and returns what to print.
    mutating func execute(_ command: Command) throws(CommandError) -> String {
        switch command {
        case .help:
            return Command.usage
        case .list:
            return Self.render(store.currentState())
        case .add(let text):
            try dispatchIfAccepted(TodoAction.add(text))
        case .toggle(let id):
            try dispatchIfAccepted(TodoAction.toggle(id: id))
        case .remove(let id):
            try dispatchIfAccepted(TodoAction.remove(id: id))
        case .filter(let filter):
            dispatch(VisibilityFilterAction.show(filter))
        case .clearCompleted:
            try dispatchIfAccepted(TodoAction.clearCompleted)
        }
        do {
            try persistence.flush()
            lastSaveFailed = false
        } catch {
            lastSaveFailed = true
            throw .saveFailed(DataFile.message(error))
        }
        return Self.render(store.currentState())
    }

    /// Waits for `--verbose`'s log of everything dispatched so far.
    func finishLogging() {
        logger?.waitUntilLogged(expectedLogLines)
    }

    /// Saves what is not saved yet, and stops saving.
    ///
    /// - Throws: ``CommandError/saveFailed(_:)`` when that save fails.
    func stop() throws(CommandError) {
        do {
            try persistence.stop()
        } catch {
            throw .saveFailed(DataFile.message(error))
        }
    }

    private mutating func dispatch(_ action: any ActionProtocol) {
        store.dispatch(action)
        expectedLogLines += 1
    }

    /// Dispatches a todo action once the reducer has accepted it on a copy of the state, so that a
    /// refusal (an unknown ID, no ID left) is reported here, with its exit code. Nothing else
    /// changes the state in between: this process holds the data directory's lock.
    private mutating func dispatchIfAccepted(_ action: TodoAction) throws(CommandError) {
        var preview = store.currentState()
        do {
            try TodoReducers.reduce(&preview, action)
        } catch {
            throw .rejected(error)
        }
        dispatch(action)
    }

    /// The visible todos, one per line: `3 [x] Buy milk`; a control character in a title is printed
    /// escaped (`\u{1B}`), so a title cannot fake a row or drive the terminal.
    static func render(_ state: AppState) -> String {
        let visible = state.visibleTodos
        guard !visible.isEmpty else {
            return state.filter == .all ? "No todos." : "No \(state.filter.rawValue) todos."
        }
        return visible.map { "\($0.id) [\($0.isCompleted ? "x" : " ")] \(TodoText.escaped($0.text))" }.joined(
            separator: "\n")
    }
}

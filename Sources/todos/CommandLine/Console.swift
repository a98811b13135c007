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
    /// The directory the todos are kept in, for `help`.
    let dataDirectory: URL
    /// Log lines the logger owes: one per dispatched action.
    private var expectedLogLines = 0
    /// Whether the last save failed; the command that tried it has reported why.
    private(set) var lastSaveFailed = false
    /// Hears the store refuse the actions the console dispatches knowing they are refused (see
    /// `dispatchIfAccepted(_:)`): the console reports each itself, with its exit code, and the
    /// store's own report of a failure nobody observes would repeat it on standard error.
    private let refusals: ObserverToken

    init(store: AppStore, archive: StateArchive<AppState>, dataDirectory: URL, logger: ChangeLogger?) {
        self.store = store
        persistence = PersistenceService(
            store: store, archive: archive, policy: Self.savePolicy,
            onError: { error in Terminal.writeError(DataFile.message(error)) })
        self.logger = logger
        self.dataDirectory = dataDirectory
        refusals = store.observeFailures { _ in }
    }

    /// Runs one command and returns what to print.
    ///
    /// With `--verbose`, the log of the change is written before this returns, so that it comes
    /// before the listing.
    mutating func execute(_ command: Command) throws(CommandError) -> String {
        switch command {
        case .help:
            return Command.usage(dataDirectory: dataDirectory)
        case .list:
            return Self.render(store.currentState())
        case .inspect(let path):
            let page =
                path.map { URL(fileURLWithPath: $0) }
                ?? dataDirectory.appendingPathComponent("inspector.html")
            let steps = try ActionHistoryFile.writePage(from: dataDirectory, to: page)
            return
                "wrote \(page.path): \(steps) recorded action\(steps == 1 ? "" : "s"); open it in a browser"
        case .add(let text):
            try dispatchIfAccepted(TodoAction.add(text))
        case .toggle(let id):
            try dispatchIfAccepted(TodoAction.toggle(id: id))
        case .remove(let id):
            try dispatchIfAccepted(TodoAction.remove(id: id))
        case .filter(let filter):
            if store.currentState().filter != filter { dispatch(VisibilityFilterAction.show(filter)) }
        case .clearCompleted:
            try dispatchIfAccepted(TodoAction.clearCompleted)
        }
        logger?.waitUntilLogged(expectedLogLines)
        do {
            try persistence.flush()
            lastSaveFailed = false
        } catch {
            lastSaveFailed = true
            throw .saveFailed(DataFile.message(error))
        }
        return Self.render(store.currentState())
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

    /// Dispatches an action that changes the state. One that would change nothing is not
    /// dispatched: it has nothing to save or log, and whether the store notifies it is the
    /// store's choice, so the log could not know whether to wait for a line about it.
    private mutating func dispatch(_ action: any ActionProtocol) {
        store.dispatch(action)
        expectedLogLines += 1
    }

    /// Dispatches a todo action that changes the state, after the reducer has run it on a copy, so
    /// that a refusal (an unknown ID, no ID left) is reported here, with its exit code. A refused
    /// action is dispatched too: the store refuses it as the copy did, changing nothing, and the
    /// app's recording holds it as a failed action with its error, which `todos inspect` shows.
    /// Nothing else changes the state in between: this process holds the data directory's lock.
    private mutating func dispatchIfAccepted(_ action: TodoAction) throws(CommandError) {
        let current = store.currentState()
        var preview = current
        do {
            try TodoReducers.reduce(&preview, action)
        } catch {
            dispatch(action)
            // With `--verbose`, the log's line about the refusal comes before the error's.
            logger?.waitUntilLogged(expectedLogLines)
            throw .rejected(error)
        }
        if preview != current { dispatch(action) }
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

import Foundation
import ReduxSwift

/// Writes every change and every rejected action to standard error (`--verbose`).
final class ChangeLogger: @unchecked Sendable {
    // `@unchecked Sendable`: `logged` is only touched while `condition` is locked; the tokens are
    // written once in `init`.
    private let condition = NSCondition()
    private var logged = 0
    private var tokens: [ObserverToken] = []

    init(store: AppStore) {
        tokens = [
            store.observeChanges { [weak self] notification in
                let state = store.currentState()
                for action in notification.actions {
                    let count = state.todos.count == 1 ? "1 todo" : "\(state.todos.count) todos"
                    self?.write("changed by \(action.identifier): \(count), filter \(state.filter.rawValue)")
                }
            },
            store.observeFailures { [weak self] notification in
                let action = notification.failedAction?.identifier ?? "an action"
                self?.write("rejected \(action): \(notification.error.map { "\($0)" } ?? "unknown error")")
            },
        ]
    }

    private func write(_ line: String) {
        Terminal.writeError(line)
        condition.lock()
        logged += 1
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until `count` lines have been written, so that a command's log is complete before the
    /// program exits; gives up after `timeout` seconds.
    func waitUntilLogged(_ count: Int, timeout: TimeInterval = 5) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while logged < count, condition.wait(until: deadline) {}
    }
}

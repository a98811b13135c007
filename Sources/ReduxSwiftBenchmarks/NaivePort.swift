import Foundation
import ReduxSwift

/// ReduxObjC's algorithm taken literally, as the baseline the store must beat.
///
/// - one `DispatchQueue.async` per action onto a serial queue that runs the reducer array;
/// - one `NotificationCenter` notification per action (posted from a second serial queue, as
///   ReduxObjC's observers would otherwise deadlock reading from inside the reducing queue);
/// - `currentState()` as `queue.sync` + `JSONEncoder` + `JSONDecoder` on every call.
final class NaiveStore<State: StateProtocol & Sendable>: @unchecked Sendable {
    // `@unchecked Sendable`: `state` is only touched on `queue`.
    static var didChange: Notification.Name { Notification.Name("NaiveStore.didChange") }

    let center = NotificationCenter()
    private let queue = DispatchQueue(label: "NaiveStore.reduce")
    private let notifyQueue = DispatchQueue(label: "NaiveStore.notify")
    private let reducers: [Reducer<State>]
    private var state: State

    init(reducers: [Reducer<State>], state: State) {
        self.reducers = reducers
        self.state = state
    }

    func dispatch(_ action: any ActionProtocol) {
        queue.async {
            for reducer in self.reducers { try? reducer(&self.state, action) }
            self.notifyQueue.async { self.center.post(name: Self.didChange, object: self) }
        }
    }

    func currentState() -> State {
        queue.sync {
            try! JSONDecoder().decode(State.self, from: JSONEncoder().encode(state))
        }
    }

    func observe(_ block: @escaping @Sendable () -> Void) -> any NSObjectProtocol {
        center.addObserver(forName: Self.didChange, object: self, queue: nil) { _ in block() }
    }
}

import Foundation
import ReduxSwift

// The README's recommended form, compiled here without `@testable` so that any change which breaks
// it for apps fails the build.

struct AppState: StateProtocol {
    var counter = 0
    var todos: [String] = []
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

enum TodoReducers: ReducerProtocol {
    static var reducers: [Reducer<AppState>] {
        [
            { state, action in
                guard action.identifier == "todos.add", let title = action.payload as? String else { return }
                state.todos.append(title)
            }
        ]
    }
}

// Swift asks subclasses of an `@unchecked Sendable` class to restate it; this subclass adds no
// stored properties, so `Store`'s own guarantee covers it.
final class AppStore: Store<AppState>, @unchecked Sendable {
    static let shared = AppStore()

    private init() {
        super.init(reducers: CounterReducers.reducers, state: AppState())
        register(TodoReducers.reducers)
    }
}

/// A service that observes the store, the way ReduxSwift is meant to be used.
final class CounterLogger: Sendable {
    private let token: ObserverToken
    let seen = SeenCounters()

    init(store: AppStore) {
        let seen = self.seen
        token = store.notificationCenter.addObserver(forName: .stateDidChange, object: store, queue: nil) {
            _ in
            seen.record(store.currentState().counter)
        }
    }

    func stop() { token.cancel() }
}

/// The counters a service saw, waited on with a timeout.
final class SeenCounters: @unchecked Sendable {
    // `@unchecked Sendable`: `storage` is only touched while `changed` is locked.
    private let changed = NSCondition()
    private var storage: [Int] = []

    func record(_ value: Int) {
        changed.lock()
        storage.append(value)
        changed.broadcast()
        changed.unlock()
    }

    func waitFor(_ value: Int, timeout: TimeInterval = 20) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        changed.lock()
        defer { changed.unlock() }
        while !storage.contains(value) {
            if !changed.wait(until: deadline) { return storage.contains(value) }
        }
        return true
    }
}

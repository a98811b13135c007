// The README's first example, pasted unchanged (its two closing statements run in
// `ReadmeExampleTests`), compiled as a new Xcode 26 app target compiles its code: main-actor by
// default, with approachable concurrency (see Package.swift). `ReadmeExampleTests` checks that
// this file still holds the README's text.

import ReduxSwift

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

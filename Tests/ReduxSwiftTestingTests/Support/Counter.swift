import ReduxSwift
import ReduxSwiftTesting

struct CounterState: StateProtocol, Equatable {
    var count = 0
    var log: [String] = []
}

enum CounterAction: ActionProtocol, Equatable, Codable {
    case increment
    case add(Int)
    case note(String)
    case reject
    case incrementTwiceLater
}

struct Rejected: Error, Equatable {}

let counterReducers: [Reducer<CounterState>] = [
    { state, action in
        switch action as? CounterAction {
        case .increment?: state.count += 1
        case .add(let amount)?: state.count += amount
        case .note(let text)?: state.log.append(text)
        case .reject?:
            state.count = -1
            throw Rejected()
        case .incrementTwiceLater?, nil: break
        }
    }
]

/// Dispatches two increments when it sees `.incrementTwiceLater`, the way a feature's effects do.
let echoMiddleware = Middleware<CounterState>("echo") { action, context in
    context.next(action)
    if case .incrementTwiceLater? = action as? CounterAction {
        context.dispatch(CounterAction.increment)
        context.dispatch(CounterAction.increment)
    }
}

func makeTestStore(exhaustivity: TestStore<CounterState>.Exhaustivity = .on) -> TestStore<CounterState> {
    TestStore(
        reducers: counterReducers, state: CounterState(),
        middleware: [echoMiddleware, .asyncActions()], exhaustivity: exhaustivity)
}

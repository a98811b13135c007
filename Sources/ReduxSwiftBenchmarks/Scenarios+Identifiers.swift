import Foundation
import ReduxSwift

// MARK: - 18: reducers matching identifiers against reducers matching enum cases

/// The ten reducers of `benchReducers`, written in ReduxObjC's style: each compares the action's
/// default `identifier` and casts only the action it handles, to read its associated values.
let identifierReducers: [Reducer<BenchState>] = [
    { state, action in if action.identifier == "BenchAction.increment" { state.counter += 1 } },
    { state, action in if action.identifier == "BenchAction.decrement" { state.counter -= 1 } },
    { state, action in
        if action.identifier == "BenchAction.toggle", case .toggle(let index)? = action as? BenchAction {
            state.todos[index].done.toggle()
        }
    },
    { state, action in
        if action.identifier == "BenchAction.rename",
            case .rename(let index, let title)? = action as? BenchAction
        {
            state.todos[index].title = title
        }
    },
    { state, action in
        if action.identifier == "BenchAction.tag", case .tag(let index, let tag)? = action as? BenchAction {
            state.todos[index].tags.append(tag)
        }
    },
    { state, action in
        if action.identifier == "BenchAction.add", case .add(let title)? = action as? BenchAction {
            state.todos.append(Todo(id: state.todos.count, title: title, done: false, tags: []))
        }
    },
    { state, action in if action.identifier == "BenchAction.removeLast" { _ = state.todos.popLast() } },
    { state, action in
        if action.identifier == "BenchAction.setCounter",
            case .setCounter(let value)? = action as? BenchAction
        {
            state.counter = value
        }
    },
    { state, action in
        if action.identifier == "BenchAction.clearCompleted" { state.todos.removeAll(where: \.done) }
    },
    { _, action in if action.identifier == "BenchAction.noop" {} },
]

/// The actions dispatched, in turn: cases with and without associated values, and one that no
/// reducer changes anything for, so that every reducer compares against identifiers it does not
/// handle as well as its own.
func identifierAction(_ step: Int) -> BenchAction {
    switch step % 4 {
    case 0: return .increment
    case 1: return .toggle(step % 100)
    case 2: return .decrement
    default: return .noop
    }
}

/// The state after `count` of those actions.
func identifierExpectedState(count: Int) -> BenchState {
    var state = BenchState(todos: 100)
    for step in 0..<count {
        switch identifierAction(step) {
        case .increment: state.counter += 1
        case .decrement: state.counter -= 1
        case .toggle(let index): state.todos[index].done.toggle()
        default: break
        }
    }
    return state
}

/// Nanoseconds per action dispatched through a store with `reducers`, until the last is reduced.
func dispatchedThrough(_ reducers: [Reducer<BenchState>], count: Int, expected: BenchState) throws -> Double {
    let store = makeStore(reducers, BenchState(todos: 100))
    var state: BenchState?
    let elapsed = seconds {
        for step in 0..<count { store.dispatch(identifierAction(step)) }
        state = store.currentState()
    }
    try check(state == expected, "the store reduced \(count) actions wrongly")
    return elapsed * 1e9 / Double(count)
}

/// Nanoseconds per action with `reducers` applied in a plain loop, no store.
func reducedAlone(_ reducers: [Reducer<BenchState>], count: Int, expected: BenchState) throws -> Double {
    var state = BenchState(todos: 100)
    let elapsed = try seconds {
        for step in 0..<count {
            let action: any ActionProtocol = identifierAction(step)
            for reducer in reducers { try reducer(&state, action) }
        }
    }
    try check(state == expected, "the plain loop reduced \(count) actions wrongly")
    return elapsed * 1e9 / Double(count)
}

/// Measures two variants `repetitions` times after a warm-up, each time in the order A B B A,
/// and keeps the mean of each variant's two runs, so that neither always runs first. With a fixed
/// order, whichever store was created first in a round ran 10 to 20% slower on a busy machine.
func measureABBA(repetitions: Int, _ a: () throws -> Double, _ b: () throws -> Double) throws -> [Summary] {
    var samples: [[Double]] = [[], []]
    for repetition in 0...repetitions {
        let firstA = try a()
        let firstB = try b()
        let secondB = try b()
        let secondA = try a()
        if repetition > 0 {
            samples[0].append((firstA + secondA) / 2)
            samples[1].append((firstB + secondB) / 2)
        }
    }
    return samples.map(Summary.init)
}

let identifierScenario = Scenario(number: "18", name: "reducers matching identifiers against enum cases") {
    workload in
    let count = workload.increments
    let expected = identifierExpectedState(count: count)
    let summaries =
        try measureABBA(
            repetitions: workload.repetitions,
            { try dispatchedThrough(identifierReducers, count: count, expected: expected) },
            { try dispatchedThrough(benchReducers, count: count, expected: expected) })
        + measureABBA(
            repetitions: workload.repetitions,
            { try reducedAlone(identifierReducers, count: count, expected: expected) },
            { try reducedAlone(benchReducers, count: count, expected: expected) })
    let throughStore = summaries[0].median / summaries[1].median
    let alone = summaries[2].median / summaries[3].median
    return [
        Result(
            scenario: "18a \(count) actions to 10 reducers comparing `identifier` (dispatch to drained)",
            unit: "ns/action", reduxswift: summaries[0], baseline: summaries[1],
            baselineName: "reducers matching the enum",
            ratio: throughStore, target: "≤ 1.2× reducers matching the enum", meets: throughStore <= 1.2),
        Result(
            scenario: "18b \(count) actions to 10 reducers comparing `identifier`, reducers alone",
            unit: "ns/action", reduxswift: summaries[2], baseline: summaries[3],
            baselineName: "reducers matching the enum",
            ratio: alone, target: "≤ 1.2× reducers matching the enum", meets: alone <= 1.2),
    ]
}

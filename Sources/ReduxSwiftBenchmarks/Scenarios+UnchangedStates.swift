import Foundation
import ReduxSwift

// MARK: - 19: what telling an unchanged state apart would cost per action

/// Nanoseconds per toggle dispatched through a store, until the last is reduced: what a store
/// costs per action today, notifications included.
func toggleDispatch(todos: Int, count: Int) throws -> Double {
    let store = makeStore(benchReducers, BenchState(todos: todos))
    var state: BenchState?
    let elapsed = seconds {
        for step in 0..<count { store.dispatch(BenchAction.toggle(step % todos)) }
        state = store.currentState()
    }
    try check(state?.todos.count == todos, "the store lost todos")
    return elapsed * 1e9 / Double(count)
}

/// Nanoseconds per toggle of what a store would add to tell an action that changed nothing from
/// one that did: keep the state from before the action (which makes the reducer's mutation copy
/// the storage it shares with it) and compare the two after it.
func toggleWithUnchangedCheck(todos: Int, count: Int) throws -> Double {
    var state = BenchState(todos: todos)
    var unchanged = 0
    let checked = try seconds {
        for step in 0..<count {
            let before = state
            let action: any ActionProtocol = BenchAction.toggle(step % todos)
            for reducer in benchReducers { try reducer(&state, action) }
            if before == state { unchanged += 1 }
        }
    }
    var plain = BenchState(todos: todos)
    let alone = try seconds {
        for step in 0..<count {
            let action: any ActionProtocol = BenchAction.toggle(step % todos)
            for reducer in benchReducers { try reducer(&plain, action) }
        }
    }
    try check(unchanged == 0 && plain == state, "every toggle changes the state")
    return (checked - alone) * 1e9 / Double(count)
}

let unchangedStateScenario = Scenario(number: "19", name: "telling an unchanged state apart, per action") {
    workload in
    let count = workload.increments / 10
    var results: [Result] = []
    for (letter, todos) in [("a", 100), ("b", 10_000)] {
        let summaries = try measureABBA(
            repetitions: workload.repetitions,
            { try toggleWithUnchangedCheck(todos: todos, count: count) },
            { try toggleDispatch(todos: todos, count: count) })
        let ratio = summaries[0].median / summaries[1].median
        results.append(
            Result(
                scenario:
                    "19\(letter) \(count) toggles at \(todos) todos: keeping and comparing the state before each",
                unit: "ns/action", reduxswift: summaries[0], baseline: summaries[1],
                baselineName: "a whole dispatch", ratio: ratio,
                target: "≤ 0.1× a dispatch to skip unchanged notifications", meets: ratio <= 0.1))
    }
    return results
}

import Foundation
import ReduxSwift

// MARK: - 21: an observed change costs what the observer reads

/// One action, then wait until one selector observer has its new value, `steps` times: the rhythm
/// of a user acting one step at a time. Returns microseconds per action.
private func lockstep(todos: Int, steps: Int) throws -> Double {
    let store = makeStore(benchReducers, BenchState(todos: todos))
    let seen = LatestValue()
    let token = store.observe({ $0.counter }, using: { seen.set($0) })
    try seen.wait(for: 0, "the selector's first value")
    let elapsed = try seconds {
        for step in 1...steps {
            store.dispatch(BenchAction.setCounter(step))
            try seen.wait(for: step, "the selector's value \(step)")
        }
    }
    token.cancel()
    return elapsed * 1e6 / Double(steps)
}

/// The floor under any lockstep of a store that reduces and delivers off the caller's thread:
/// the same rhythm with nothing but two hand-offs, one to a serial queue (the reducing queue)
/// and one from it to another (the delivery thread). Returns microseconds per step.
private func bareHandOffs(steps: Int) throws -> Double {
    let reducing = DispatchQueue(label: "bench.reducing")
    let delivering = DispatchQueue(label: "bench.delivering")
    let seen = LatestValue()
    let elapsed = try seconds {
        for step in 1...steps {
            reducing.async { delivering.async { seen.set(step) } }
            try seen.wait(for: step, "hand-off \(step)")
        }
    }
    return elapsed * 1e6 / Double(steps)
}

/// A count selector: one action that changes the count, then wait for its callback. Returns
/// microseconds per action.
private func countSelector(todos: Int, steps: Int) throws -> Double {
    let store = makeStore(benchReducers, BenchState(todos: todos))
    let seen = LatestValue()
    let token = store.observe({ $0.todos.count }, using: { seen.set($0) })
    try seen.wait(for: todos, "the count's first value")
    // The store's rollback base shares the initial state's storage, so the store's first change
    // copies the todos once: a one-time cost of every store, paid here before the timing starts.
    store.dispatch(BenchAction.add("warm-up"))
    try seen.wait(for: todos + 1, "the count after the warm-up")
    store.dispatch(BenchAction.removeLast)
    try seen.wait(for: todos, "the count after the warm-up")
    let elapsed = try seconds {
        for step in 0..<steps {
            // Alternate, so that every action changes the count.
            let grows = step.isMultiple(of: 2)
            store.dispatch(grows ? BenchAction.add("new") : BenchAction.removeLast)
            try seen.wait(for: grows ? todos + 1 : todos, "the count after action \(step)")
        }
    }
    token.cancel()
    return elapsed * 1e6 / Double(steps)
}

/// A burst of toggles, then a read that waits for all of them; with or without history recording.
/// Returns microseconds per action.
private func burst(todos: Int, actions: Int, recordingHistory: Bool) throws -> Double {
    let store = makeStore(benchReducers, BenchState(todos: todos))
    let history =
        recordingHistory ? store.recordHistory(limit: HistoryLimit(steps: actions + 1, actions: .max)) : nil
    let elapsed = seconds {
        for step in 0..<actions { store.dispatch(BenchAction.toggle(step * 7 % todos)) }
        _ = store.currentState()
        _ = history?.status
    }
    if let history {
        try check(history.status.steps == actions + 1, "the history kept \(history.status.steps) steps")
    }
    return elapsed * 1e6 / Double(actions)
}

let payForWhatYouReadScenario = Scenario(
    number: "21", name: "an observed change costs what the observer reads, at every state size"
) { workload in
    let steps = workload.quick ? 20 : 200
    var results: [Result] = []

    let lockstepSummaries = try measureInterleaved(
        repetitions: workload.repetitions,
        [
            { try lockstep(todos: 100, steps: steps) },
            { try lockstep(todos: 10_000, steps: steps) },
            { try lockstep(todos: 1_000, steps: steps) },
            { try bareHandOffs(steps: steps) },
        ])
    let growth = lockstepSummaries[1].median / lockstepSummaries[0].median
    results.append(
        Result(
            scenario: "21a lockstep: dispatch, then wait for one selector's new value, at 10,000 todos",
            unit: "µs/action", reduxswift: lockstepSummaries[1], baseline: lockstepSummaries[0],
            baselineName: "the same at 100 todos", ratio: growth, target: "≤ 1.5× at 100 todos",
            meets: growth <= 1.5))
    let versusHandOffs = lockstepSummaries[2].median / lockstepSummaries[3].median
    results.append(
        Result(
            scenario: "21f lockstep at 1,000 todos against two bare thread hand-offs per step",
            unit: "µs/action", reduxswift: lockstepSummaries[2], baseline: lockstepSummaries[3],
            baselineName: "queue → queue → waiting thread", ratio: versusHandOffs, target: "≤ 1×",
            meets: versusHandOffs <= 1))

    // Fewer steps at 100,000 todos, where each one costs a whole-state read today.
    let largeSteps = workload.quick ? 5 : 50
    let countSummaries = try measureInterleaved(
        repetitions: workload.repetitions,
        [
            { try countSelector(todos: 100_000, steps: largeSteps) },
            { try countSelector(todos: 100, steps: largeSteps) },
        ])
    let countGrowth = countSummaries[0].median / countSummaries[1].median
    results.append(
        Result(
            scenario: "21c a count selector at 100,000 todos, dispatch to callback",
            unit: "µs/action", reduxswift: countSummaries[0], baseline: countSummaries[1],
            baselineName: "the same at 100 todos", ratio: countGrowth, target: "≤ 2× at 100 todos",
            meets: countGrowth <= 2))

    for (letter, todos, actions) in [("d", 100, workload.quick ? 100 : 1_000), ("e", 100_000, largeSteps)] {
        let summaries = try measureInterleaved(
            repetitions: workload.repetitions,
            [
                { try burst(todos: todos, actions: actions, recordingHistory: true) },
                { try burst(todos: todos, actions: actions, recordingHistory: false) },
            ])
        let ratio = summaries[0].median / summaries[1].median
        results.append(
            Result(
                scenario: "21\(letter) a burst of \(actions) toggles recorded for undo, at \(todos) todos",
                unit: "µs/action", reduxswift: summaries[0], baseline: summaries[1],
                baselineName: "the same burst without history", ratio: ratio, target: "≤ 2×",
                meets: ratio <= 2))
    }
    return results
}

/// The newest integer an observer delivered, and a wait until it is a given one.
private final class LatestValue: @unchecked Sendable {
    // `@unchecked Sendable`: `value` is read and written only while holding `condition`.
    private let condition = NSCondition()
    private var value: Int?

    func set(_ newValue: Int) {
        condition.withLock {
            value = newValue
            condition.broadcast()
        }
    }

    func wait(for expected: Int, timeout: Double = 600, _ what: String) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        try condition.withLock {
            while value != expected {
                guard condition.wait(until: deadline) else {
                    throw WrongResult(description: "timed out waiting for \(what)")
                }
            }
        }
    }
}

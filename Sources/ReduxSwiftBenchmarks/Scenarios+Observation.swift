import Foundation
import ReduxSwift

// MARK: - 12: many selector observers, one change

let selectorScenario = Scenario(
    number: "12", name: "1,000 selector observers on different fields, one change"
) {
    workload in
    let count = 1_000
    let store = makeStore(benchReducers, BenchState(todos: count))
    let heard = Counter()
    let tokens = (0..<count).map { index in
        store.observe({ $0.todos[index].done }) { _ in heard.increment() }
    }
    // Registered last: observers of one post run in registration order, so when it fires every
    // selector has looked at the change.
    let finished = Signal()
    let last = store.observeChanges { _ in finished.fire() }
    try check(heard.value == count, "each selector delivers its current value first")
    let plain = makeStore(benchReducers, BenchState(todos: count))
    let plainChanged = Signal()
    let plainToken = plain.observeChanges { _ in plainChanged.fire() }
    var expected = BenchState(todos: count)
    var toggled = 0
    let summaries = try measureInterleaved(
        repetitions: workload.repetitions,
        [
            {
                heard.reset()
                toggled = (toggled + 337) % count
                expected.todos[toggled].done.toggle()
                let elapsed = try seconds {
                    store.dispatch(BenchAction.toggle(toggled))
                    try finished.wait("the selectors")
                }
                try check(heard.value == 1, "\(heard.value) selectors fired for one changed field")
                return elapsed * 1e3
            },
            {
                // What any observer must do at least: read the new state once (encode and decode),
                // then select 1,000 values. A store without selectors, so nobody has read it yet.
                plain.dispatch(BenchAction.toggle(toggled))
                try plainChanged.wait("the plain store's change")
                return seconds {
                    let state = plain.currentState()
                    var done = 0
                    for index in 0..<count where state.todos[index].done { done += 1 }
                    blackHole(done)
                } * 1e3
            },
        ])
    try check(store.currentState() == expected, "the store missed a toggle")
    withExtendedLifetime((tokens, last, plainToken)) {}
    let ratio = summaries[0].median / summaries[1].median
    return [
        Result(
            scenario:
                "12 \(count) selector observers on different todos, one toggle (dispatch to last callback)",
            unit: "ms", reduxswift: summaries[0], baseline: summaries[1],
            baselineName: "one currentState() + \(count) selections", ratio: ratio,
            target: "≤ 2× one read and \(count) selections", meets: ratio <= 2)
    ]
}

// MARK: - 13: key-path change sets

let keyPathScenario = Scenario(number: "13", name: "key-path change sets against a raw JSON encode") {
    workload in
    var results: [Result] = []
    for (letter, todos) in zip("ab", [10, 10_000]) {
        let store = makeStore(benchReducers, BenchState(todos: todos))
        let delivered = Signal()
        let changes = LockedChanges()
        let token = store.observeStateChanges(at: ["todos"]) { found in
            changes.set(found)
            delivered.fire()
        }
        var expected = BenchState(todos: todos)
        let encoder = JSONEncoder()
        let summaries = try measureInterleaved(
            repetitions: workload.repetitions,
            [
                {
                    let index = Int.random(in: 0..<todos)
                    expected.todos[index].done.toggle()
                    let elapsed = try seconds {
                        store.dispatch(BenchAction.toggle(index))
                        try delivered.wait("the change set")
                    }
                    try check(
                        changes.paths == ["todos.\(index).done"], "the change set was \(changes.paths)")
                    return elapsed * 1e3
                },
                {
                    seconds { blackHole((try? encoder.encode(expected))?.count ?? 0) } * 1e3
                },
            ])
        token.cancel()
        let ratio = summaries[0].median / summaries[1].median
        results.append(
            Result(
                scenario:
                    "13\(letter) key-path change set of one toggle, \(todos) todos (dispatch to callback)",
                unit: "ms", reduxswift: summaries[0], baseline: summaries[1], baselineName: "raw JSON encode",
                ratio: ratio, target: "≤ 4× raw JSON encode (encode, parse, compare)", meets: ratio <= 4))
    }
    return results
}

/// The paths of the last change set, handed from the delivery thread to the measuring thread.
final class LockedChanges: @unchecked Sendable {
    // `@unchecked Sendable`: `found` is only touched while `lock` is held.
    private let lock = NSLock()
    private var found: [String] = []

    func set(_ changes: [StateChange]) {
        lock.withLock { found = changes.map(\.path) }
    }

    var paths: [String] { lock.withLock { found } }
}

/// Keeps the optimizer from removing work whose result is otherwise unused.
@inline(never)
func blackHole(_ value: Int) {
    if value == .min { print(value) }
}

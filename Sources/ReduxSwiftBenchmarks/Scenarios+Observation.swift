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

/// Keeps the optimizer from removing work whose result is otherwise unused.
@inline(never)
func blackHole(_ value: Int) {
    if value == .min { print(value) }
}

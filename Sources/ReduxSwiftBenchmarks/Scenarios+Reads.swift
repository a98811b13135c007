import Foundation
import ReduxSwift

// MARK: - 5 and 6: reads against a raw JSON round trip

/// Seconds for `JSONEncoder().encode` + `JSONDecoder().decode` of `state`.
func rawRoundTrip(_ state: BenchState) throws -> Double {
    var decoded: BenchState?
    let elapsed = try seconds {
        decoded = try JSONDecoder().decode(BenchState.self, from: JSONEncoder().encode(state))
    }
    try check(decoded == state, "the raw round trip changed the state")
    return elapsed
}

let readScenarios = Scenario(number: "5–6", name: "currentState() against a raw JSON round trip") {
    workload in
    var results: [Result] = []
    for (letter, todos) in zip("abcd", workload.readSizes) {
        let store = makeStore(benchReducers, BenchState(todos: todos))
        let changed = DispatchSemaphore(value: 0)
        let token = store.observeChanges { _ in changed.signal() }
        defer { token.cancel() }
        var expected = BenchState(todos: todos)
        let summaries = try measureInterleaved(
            repetitions: workload.repetitions,
            [
                {
                    // The first read after a change has committed: it encodes the new version and
                    // decodes it. Waiting for the change first keeps dispatch latency out of the figure.
                    store.dispatch(BenchAction.toggle(0))
                    expected.todos[0].done.toggle()
                    changed.wait()
                    var state: BenchState?
                    let elapsed = seconds { state = store.currentState() }
                    try check(state == expected, "a first read missed the change")
                    return elapsed
                },
                {
                    // A second read of the same version: it only decodes.
                    var state: BenchState?
                    let elapsed = seconds { state = store.currentState() }
                    try check(state == expected, "a repeated read differed")
                    return elapsed
                },
                {
                    // Timed right after waking up too, like the first read, so a cold cache after a
                    // wait weighs on both.
                    store.dispatch(BenchAction.noop)
                    changed.wait()
                    return try rawRoundTrip(expected)
                },
            ])
        let milliseconds = summaries.map { $0.map { $0 * 1e3 } }
        let first = milliseconds[0].median / milliseconds[2].median
        let again = milliseconds[1].median / milliseconds[2].median
        results.append(
            Result(
                scenario: "5\(letter) first currentState() after a change, \(todos) todos", unit: "ms",
                reduxswift: milliseconds[0], baseline: milliseconds[2], baselineName: "raw JSON round trip",
                ratio: first, target: "≤ 1.10× raw JSON round trip", meets: first <= 1.10))
        results.append(
            Result(
                scenario: "6\(letter) currentState() again, no change, \(todos) todos", unit: "ms",
                reduxswift: milliseconds[1], baseline: milliseconds[2], baselineName: "raw JSON round trip",
                ratio: again, target: "≤ 0.60× raw JSON round trip", meets: again <= 0.60))
    }
    return results
}

// MARK: - 7: concurrent readers share one encode

let countingReducers: [Reducer<CountingState>] = benchReducers.map { reducer in
    { state, action in try reducer(&state.inner, action) }
}

/// Starts `count` threads together, runs `body` on each, and waits for all of them.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let start = DispatchSemaphore(value: 0)
    let finished = DispatchGroup()
    for index in 0..<count {
        finished.enter()
        Thread {
            start.wait()
            body(index)
            finished.leave()
        }.start()
    }
    for _ in 0..<count { start.signal() }
    finished.wait()
}

let concurrentReadersScenario = Scenario(number: "7", name: "concurrent readers of one new version") {
    workload in
    let readers = workload.readers
    let store = makeStore(countingReducers, CountingState(todos: 1_000))
    let naive = NaiveStore(reducers: countingReducers, state: CountingState(todos: 1_000))
    var version = 0
    let summaries = try measureInterleaved(
        repetitions: workload.repetitions,
        [
            {
                version += 1
                store.dispatch(BenchAction.setCounter(version))
                CountingState.encodes.reset()
                let wrong = Counter()
                let expected = version
                onThreads(readers) { _ in
                    if store.currentState().inner.counter != expected { wrong.increment() }
                }
                try check(wrong.value == 0, "a concurrent reader missed the new version")
                return Double(CountingState.encodes.value)
            },
            {
                naive.dispatch(BenchAction.setCounter(version))
                CountingState.encodes.reset()
                onThreads(readers) { _ in _ = naive.currentState() }
                return Double(CountingState.encodes.value)
            },
        ])
    try check(summaries[0].max == 1, "a version was encoded \(summaries[0].max) times")
    return [
        Result(
            scenario: "7 \(readers) concurrent readers of one new version", unit: "JSON encodes",
            reduxswift: summaries[0], baseline: summaries[1], baselineName: "naive port",
            ratio: summaries[0].median / summaries[1].median, target: "exactly 1",
            meets: summaries[0].min == 1 && summaries[0].max == 1)
    ]
}

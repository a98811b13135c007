import Foundation
import ReduxSwift

// MARK: - 14: the cost of middleware

/// Nanoseconds per increment dispatched and reduced through `middleware` pass-through middleware.
func incrementsThroughMiddleware(count: Int, middleware: Int) throws -> Double {
    let chain = (0..<middleware).map { index in
        Middleware<BenchState>("pass-through \(index)") { action, context in context.next(action) }
    }
    let store = Store(
        reducers: benchReducers, state: BenchState(todos: 100), middleware: chain,
        notificationCenter: StoreNotificationCenter())
    var counter = 0
    let elapsed = seconds {
        for _ in 0..<count { store.dispatch(BenchAction.increment) }
        counter = store.currentState().counter
    }
    try check(counter == count, "\(middleware) middleware lost increments: \(counter) of \(count)")
    return elapsed * 1e9 / Double(count)
}

let middlewareScenario = Scenario(number: "14", name: "dispatch throughput with 0 and 3 middleware") {
    workload in
    let count = workload.increments
    let summaries = try measureInterleaved(
        repetitions: workload.repetitions,
        [
            { try incrementsThroughMiddleware(count: count, middleware: 3) },
            { try incrementsThroughMiddleware(count: count, middleware: 0) },
        ])
    let perMiddleware = (summaries[0].median - summaries[1].median) / 3
    let ratio = perMiddleware / summaries[1].median
    return [
        Result(
            scenario: "14 \(count) increments through 3 pass-through middleware (dispatch to drained)",
            unit: "ns/action", reduxswift: summaries[0], baseline: summaries[1],
            baselineName: "no middleware",
            ratio: ratio, target: "one middleware ≤ 1× a whole dispatch without middleware",
            meets: ratio <= 1,
            note: "each middleware adds \(Table.format(perMiddleware)) ns per action to the "
                + "\(Table.format(summaries[1].median)) ns of a dispatch without middleware; "
                + "the ratio is that cost over a whole dispatch")
    ]
}

// MARK: - 15: undo history

let historyScenario = Scenario(number: "15", name: "undo history of 1,000 steps at 10,000 todos") {
    workload in
    let todos = 10_000
    let steps = workload.historySteps
    let undos = workload.undos
    let store = makeStore(benchReducers, BenchState(todos: todos))
    // The store's own first change copies the todos once, history or not: it is made before the
    // memory is read, so that the growth is what the history keeps.
    store.dispatch(BenchAction.increment)
    _ = store.currentState()
    returnFreedMemoryToTheSystem()
    let residentBefore = residentMemory()
    let history = store.recordHistory(limit: HistoryLimit(steps: steps + 1, actions: .max))
    var expected = BenchState(todos: todos)
    expected.counter = 1
    let recording = seconds {
        for step in 0..<steps {
            store.dispatch(BenchAction.toggle(step * 7 % todos))
            expected.todos[step * 7 % todos].done.toggle()
        }
        _ = history.status
    }
    let status = history.status
    try check(status.steps == steps + 1, "the history kept \(status.steps) steps of \(steps + 1)")
    try check(store.currentState() == expected, "the history changed the state it recorded")
    returnFreedMemoryToTheSystem()
    let historyBytes = residentMemory() - residentBefore

    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let stateJSON = try encoder.encode(expected)
    let decoder = JSONDecoder()

    var position = steps
    let summaries = try measureInterleaved(
        repetitions: workload.repetitions,
        [
            {
                // Alternate directions so that each repetition starts where the history has steps.
                let move: HistoryAction = position == steps ? .undo : .redo
                let elapsed = seconds {
                    for _ in 0..<undos { store.dispatch(move) }
                    _ = history.status
                }
                position += move == .undo ? -undos : undos
                try check(history.status.position == position, "the history is not at step \(position)")
                return elapsed * 1e3 / Double(undos)
            },
            {
                // What an undo must do at least: decode the state it goes back to.
                var decoded = 0
                let elapsed = try seconds {
                    for _ in 0..<undos {
                        decoded += try decoder.decode(BenchState.self, from: stateJSON).todos.count
                    }
                }
                try check(decoded == undos * todos, "the raw decode lost todos")
                return elapsed * 1e3 / Double(undos)
            },
        ])
    var rewound = expected
    for step in 0..<undos { rewound.todos[(steps - 1 - step) * 7 % todos].done.toggle() }
    history.jump(to: steps - undos)
    try check(store.currentState() == rewound, "undo did not restore the state \(undos) steps back")

    let ratio = summaries[0].median / summaries[1].median
    let megabytes = Double(historyBytes) / 1_048_576
    let fullCopies = Double(stateJSON.count) * Double(steps + 1) / 1_048_576
    return [
        Result(
            scenario: "15a undo at 10,000 todos with \(steps) steps of history (time per undo)",
            unit: "ms", reduxswift: summaries[0], baseline: summaries[1], baselineName: "raw JSON decode",
            ratio: ratio, target: "≤ 2× a raw JSON decode of the state", meets: ratio <= 2,
            note: "recording cost \(Table.format(recording * 1e3 / Double(steps))) ms per step "
                + "(dispatch, reduce, keep the action; and the one snapshot encode `status` waits for at the end)"
        ),
        Result(
            scenario: "15b memory of \(steps) steps of history at 10,000 todos",
            unit: "MB", reduxswift: Summary([megabytes]), baseline: Summary([fullCopies]),
            baselineName: "one JSON snapshot per step", ratio: megabytes / fullCopies,
            target: "≤ 0.1× a snapshot per step", meets: megabytes <= fullCopies / 10,
            note:
                "resident growth while recording, after malloc_trim on Linux: \(status.actionCount) actions "
                + "and a copy of the state every 64 of them, at most 16"),
    ]
}

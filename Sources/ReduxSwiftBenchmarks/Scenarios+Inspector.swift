import Foundation
import ReduxSwift

// MARK: - 24: the inspector page of a long recording

/// The environment variable that, when set, names where scenario 24 keeps its page (for the
/// browser tests of `.ci/run`); otherwise the page is written to a temporary file and deleted.
let inspectorPageVariable = "REDUXSWIFT_BENCH_INSPECTOR_PAGE"

/// The environment variable that sets how many actions scenario 24a records (by default 10,000
/// with `--quick`, else 100,000).
let inspectorActionsVariable = "REDUXSWIFT_BENCH_INSPECTOR_ACTIONS"

/// A recording of `count` actions over `todos` todos: toggles and renames spread over the list, and
/// counter changes, as a long session makes them; the state keeps its size. Each rename's
/// middleware dispatches an increment, a follow-up that the page nests under it.
func inspectorRecording(count: Int, todos: Int) throws -> (log: ActionLog, lines: Data) {
    let log = ActionLog()
    log.register(BenchAction.self, name: "BenchAction")
    let countsRenames = Middleware<BenchState>("counts renames") { action, context in
        context.next(action)
        if case .rename? = action as? BenchAction { context.dispatch(BenchAction.increment) }
    }
    let store = Store(
        reducers: benchReducers, state: BenchState(todos: todos), middleware: [countsRenames],
        notificationCenter: StoreNotificationCenter())
    let recording = log.record(store)
    for step in 0..<count {
        let index = (step &* 7_919) % todos
        switch step % 4 {
        case 0: store.dispatch(BenchAction.toggle(index))
        case 1: store.dispatch(BenchAction.rename(index, "Renamed at step \(step)"))
        case 2: continue  // the rename's follow-up
        default: store.dispatch(BenchAction.setCounter(step))
        }
    }
    let lines = recording.stop()
    try check(recording.skippedActions == 0, "the recording left actions out")
    return (log, lines)
}

/// Writes the page of `count` actions over `todos` todos to `page`; returns the seconds it took,
/// the page's size and one state's size, in bytes.
func writeInspectorPage(count: Int, todos: Int, to page: URL) throws -> (
    seconds: Double, page: Double, state: Double
) {
    let (log, lines) = try inspectorRecording(count: count, todos: todos)
    var steps = 0
    let elapsed = try seconds {
        steps = try log.writeInspectorPage(
            of: lines, reducers: benchReducers, startingFrom: BenchState(todos: todos), to: page)
    }
    let recorded = lines.count { $0 == UInt8(ascii: "\n") }
    try check(steps == recorded, "the page shows \(steps) steps of \(recorded)")
    let bytes = (try FileManager.default.attributesOfItem(atPath: page.path)[.size] as? Int) ?? 0
    return (elapsed, Double(bytes), Double(try JSONEncoder().encode(BenchState(todos: todos)).count))
}

let inspectorScenario = Scenario(number: "24", name: "inspector page of a long recording") { workload in
    let environment = ProcessInfo.processInfo.environment
    let count =
        environment[inspectorActionsVariable].flatMap { Int($0) } ?? (workload.quick ? 10_000 : 100_000)
    let kept = environment[inspectorPageVariable].map { URL(fileURLWithPath: $0) }
    let temporary = FileManager.default.temporaryDirectory
    let page = kept ?? temporary.appendingPathComponent("reduxswift-inspector-\(UUID()).html")
    let large = temporary.appendingPathComponent("reduxswift-inspector-\(UUID()).html")
    defer {
        if kept == nil { try? FileManager.default.removeItem(at: page) }
        try? FileManager.default.removeItem(at: large)
    }
    let long = try writeInspectorPage(count: count, todos: 100, to: page)
    // Each step encodes the whole state as a snapshot: at 10,000 todos, a few hundred steps show
    // the cost per step.
    let largeCount = workload.quick ? 50 : 500
    let wide = try writeInspectorPage(count: largeCount, todos: 10_000, to: large)
    let perState = long.page / long.state
    return [
        Result(
            scenario: "24a writing the inspector page of \(count) actions over 100 todos", unit: "s",
            reduxswift: Summary([long.seconds]), baseline: nil, baselineName: nil, ratio: nil,
            target: "reported", meets: true,
            note: "\(Int(Double(count) / long.seconds)) actions/s, one run; the page is "
                + String(format: "%.1f MB", long.page / 1_048_576)),
        Result(
            scenario: "24b the size of that page, against one state's JSON", unit: "MB",
            reduxswift: Summary([long.page / 1_048_576]), baseline: Summary([long.state / 1_048_576]),
            baselineName: "one state", ratio: perState,
            target: "grows with what changed, not actions × state", meets: perState < Double(count) / 10),
        Result(
            scenario: "24c writing the page of \(largeCount) actions over 10,000 todos, per action",
            unit: "ms/action",
            reduxswift: Summary([wide.seconds * 1000 / Double(largeCount)]), baseline: nil, baselineName: nil,
            ratio: nil, target: "reported: each step encodes the whole state", meets: true,
            note: String(
                format: "%.2f MB for a state of %.2f MB", wide.page / 1_048_576, wide.state / 1_048_576)),
    ]
}

import Foundation
import ReduxSwift

// MARK: - 22: peak memory while restoring a large state and reading it

/// An expense as apps write one: an identifier, text, a number, a date, an enum and a small array.
struct BenchExpense: Codable, Equatable, Sendable {
    enum Category: String, Codable, Sendable { case food, travel, rent, other }

    var id: UUID
    var title: String
    var amount: Double
    var date: Date
    var category: Category
    var note: String
    var tags: [String]
}

struct ExpenseState: StateProtocol, Equatable, Sendable {
    var expenses: [BenchExpense] = []
    var budget = 2000.0

    init() {}

    init(expenses count: Int) {
        let categories: [BenchExpense.Category] = [.food, .travel, .rent, .other]
        expenses = (0..<count).map { index in
            BenchExpense(
                id: UUID(), title: "Expense number \(index)", amount: Double(index % 997) * 1.25,
                date: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 60),
                category: categories[index % 4], note: index % 3 == 0 ? "shared with Ada" : "",
                tags: index % 5 == 0 ? ["work", "trip"] : [])
        }
    }
}

/// The archive's envelope, as a raw `JSONDecoder` load reads it.
private struct ExpenseEnvelope: Decodable {
    let schemaVersion: Int
    let state: ExpenseState
}

/// The environment variable that names the archive a child process reads.
private let expenseArchiveVariable = "REDUXSWIFT_BENCH_EXPENSE_ARCHIVE"

private func expenseArchive() throws -> URL {
    guard let path = ProcessInfo.processInfo.environment[expenseArchiveVariable] else {
        throw WrongResult(description: "\(expenseArchiveVariable) is not set")
    }
    return URL(fileURLWithPath: path)
}

private func peakMegabytes() -> Double {
    Double(peakResidentMemory()) / 1_048_576
}

/// The expense an action changes, in both the store and the raw round trip.
private func changeOneExpense(_ state: inout ExpenseState) {
    state.expenses[state.expenses.count / 2].amount += 1
}

/// Raw: reads the archive's bytes and decodes them with `JSONDecoder`.
func rawExpenseRestore(count: Int) throws -> [String: Double] {
    let state = try JSONDecoder().decode(ExpenseEnvelope.self, from: Data(contentsOf: expenseArchive())).state
    try check(state.expenses.count == count, "the raw load read \(state.expenses.count) expenses")
    return ["peakMB": peakMegabytes()]
}

/// ReduxSwift: `restore(default:)`, as an app's store initializer calls it.
func reduxSwiftExpenseRestore(count: Int) throws -> [String: Double] {
    let state = StateArchive<ExpenseState>(file: try expenseArchive()).restore(default: ExpenseState())
    try check(state.expenses.count == count, "the archive restored \(state.expenses.count) expenses")
    return ["peakMB": peakMegabytes()]
}

/// Raw: the load, one change, then one `JSONEncoder` and `JSONDecoder` round trip of the state.
func rawExpenseRead(count: Int) throws -> [String: Double] {
    var state = try JSONDecoder().decode(ExpenseEnvelope.self, from: Data(contentsOf: expenseArchive())).state
    changeOneExpense(&state)
    let copy = try JSONDecoder().decode(ExpenseState.self, from: JSONEncoder().encode(state))
    try check(copy == state && copy.expenses.count == count, "the raw round trip changed the state")
    return ["peakMB": peakMegabytes()]
}

/// ReduxSwift: the restore, a store made from it, one action, then `currentState()`.
func reduxSwiftExpenseRead(count: Int) throws -> [String: Double] {
    let state = StateArchive<ExpenseState>(file: try expenseArchive()).restore(default: ExpenseState())
    let store = makeStore([{ state, _ in changeOneExpense(&state) }], state)
    store.dispatch(Action("change"))
    let copy = store.currentState()
    try check(
        copy.expenses.count == count && copy.expenses[count / 2].amount != state.expenses[count / 2].amount,
        "the store's copy does not hold the change")
    return ["peakMB": peakMegabytes()]
}

/// How many actions, each followed by a read, the sustained measurements make.
private let sustainedReads = 10

/// Raw: the load, then a change and a round trip, `sustainedReads` times.
func rawExpenseReads(count: Int) throws -> [String: Double] {
    var state = try JSONDecoder().decode(ExpenseEnvelope.self, from: Data(contentsOf: expenseArchive())).state
    for _ in 0..<sustainedReads {
        changeOneExpense(&state)
        let copy = try JSONDecoder().decode(ExpenseState.self, from: JSONEncoder().encode(state))
        try check(copy.expenses.count == count, "the raw round trip lost expenses")
    }
    return ["peakMB": peakMegabytes()]
}

/// ReduxSwift: the restore and a store, then an action and `currentState()`, `sustainedReads` times.
func reduxSwiftExpenseReads(count: Int) throws -> [String: Double] {
    let state = StateArchive<ExpenseState>(file: try expenseArchive()).restore(default: ExpenseState())
    let store = makeStore([{ state, _ in changeOneExpense(&state) }], state)
    let before = state.expenses[count / 2].amount
    for _ in 0..<sustainedReads {
        store.dispatch(Action("change"))
        try check(store.currentState().expenses.count == count, "the store's copy lost expenses")
    }
    try check(
        store.currentState().expenses[count / 2].amount == before + Double(sustainedReads),
        "the store's copy does not hold every change")
    return ["peakMB": peakMegabytes()]
}

let restoreMemoryScenario = Scenario(
    number: "22", name: "peak memory while restoring a large state and reading it"
) { workload in
    let count = workload.readSizes.last ?? 100_000
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("ReduxSwiftBenchmarks-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("Expenses.json")
    try StateArchive<ExpenseState>(file: file).save(ExpenseState(expenses: count))
    let bytes = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
    let environment = [expenseArchiveVariable: file.path]
    var runs: [String: [Double]] = [:]
    let measurements = [
        "expense-restore-raw", "expense-restore-reduxswift", "expense-read-raw", "expense-read-reduxswift",
        "expense-reads-raw", "expense-reads-reduxswift",
    ]
    for repetition in 0...workload.repetitions {
        for name in measurements {
            let figures = try runInChildProcess(name, count: count, environment: environment)
            if repetition > 0 { runs[name, default: []].append(figures["peakMB"] ?? .nan) }
        }
    }
    func summary(_ name: String) -> Summary { Summary(runs[name] ?? []) }
    let megabytes = Table.format(Double(bytes) / 1_000_000)
    let restore = summary("expense-restore-reduxswift")
    let rawRestore = summary("expense-restore-raw")
    let read = summary("expense-read-reduxswift")
    let rawRead = summary("expense-read-raw")
    let reads = summary("expense-reads-reduxswift")
    let rawReads = summary("expense-reads-raw")
    let note =
        "peak resident memory of a child process of its own, whole process included; the archive holds "
        + "\(megabytes) MB of JSON"
    return [
        Result(
            scenario: "22a restore(default:) of \(count) expenses, peak resident memory", unit: "MB",
            reduxswift: restore, baseline: rawRestore, baselineName: "raw JSONDecoder load",
            ratio: restore.median / rawRestore.median, target: "≤ 1.25× raw JSONDecoder load",
            meets: restore.median <= 1.25 * rawRestore.median, note: note),
        Result(
            scenario:
                "22b restore, a store, one action, currentState(), \(count) expenses, peak resident memory",
            unit: "MB", reduxswift: read, baseline: rawRead,
            baselineName: "raw load, one change, JSONEncoder + JSONDecoder round trip",
            ratio: read.median / rawRead.median, target: "≤ 1.25× raw load and round trip",
            meets: read.median <= 1.25 * rawRead.median, note: note),
        Result(
            scenario: "22c restore and a store, then \(sustainedReads) times an action and currentState(), "
                + "\(count) expenses, peak resident memory",
            unit: "MB", reduxswift: reads, baseline: rawReads,
            baselineName: "raw load, then \(sustainedReads) times a change and a round trip",
            ratio: reads.median / rawReads.median, target: "≤ 1.25× raw load and round trips",
            meets: reads.median <= 1.25 * rawReads.median,
            note: note + "; the store reduces and encodes on its queue's threads and reads on the caller's"),
    ]
}

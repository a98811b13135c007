import Foundation
import ReduxSwift

// MARK: - 20: the first launch after an app update

/// The benchmark todo as the next release declares it: it gained `priority`, with a default.
struct UpdatedTodo: Codable, Equatable, Sendable, ArchiveDefaults {
    var id = 0
    var title = ""
    var done = false
    var tags: [String] = []
    var priority = 3
}

struct UpdatedState: StateProtocol, Equatable, Sendable, ArchiveDefaults {
    var counter = 0
    var todos: [UpdatedTodo] = []
}

let appUpdateScenario = Scenario(
    number: "20", name: "loading the previous version's archive, every todo lacking a member"
) { workload in
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("ReduxSwiftBenchmarks-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    var results: [Result] = []
    for todos in workload.readSizes.suffix(2) {
        let old = BenchState(todos: todos)
        let oldFile = directory.appendingPathComponent("old-\(todos).json")
        try StateArchive<BenchState>(file: oldFile).save(old)
        let expected = UpdatedState(
            counter: old.counter,
            todos: old.todos.map { UpdatedTodo(id: $0.id, title: $0.title, done: $0.done, tags: $0.tags) })
        let newFile = directory.appendingPathComponent("new-\(todos).json")
        try StateArchive<UpdatedState>(file: newFile).save(expected)
        let newData = try Data(contentsOf: newFile)
        // In memory: a file would be written back at the first load, and load as it is after that
        // (scenario 20c–d measures those launches).
        let oldData = try Data(contentsOf: oldFile)
        let summaries = try measureInterleaved(
            repetitions: workload.repetitions,
            [
                {
                    // The previous version's archive: every todo lacks `priority`.
                    var state: UpdatedState?
                    let archive = StateArchive<UpdatedState>(backend: BytesBackend(bytes: oldData))
                    let elapsed = try seconds { state = try archive.load() }
                    try check(state == expected, "the old archive did not load with the default")
                    return elapsed
                },
                {
                    // The same state, complete: what every later launch loads.
                    var state: UpdatedState?
                    let elapsed = try seconds { state = try StateArchive<UpdatedState>(file: newFile).load() }
                    try check(state == expected, "the complete archive changed")
                    return elapsed
                },
                {
                    // Raw: `JSONDecoder` on the complete archive's bytes, already in memory.
                    var envelope: Envelope?
                    let elapsed = try seconds {
                        envelope = try JSONDecoder().decode(Envelope.self, from: newData)
                    }
                    try check(envelope?.state == expected, "the raw decode changed the state")
                    return elapsed
                },
            ])
        let milliseconds = summaries.map { $0.map { $0 * 1e3 } }
        let filled = milliseconds[0].median / milliseconds[2].median
        let plain = milliseconds[1].median / milliseconds[2].median
        results.append(
            Result(
                scenario: "20a load of the previous version's archive, \(todos) todos filled", unit: "ms",
                reduxswift: milliseconds[0], baseline: milliseconds[2], baselineName: "raw JSONDecoder",
                ratio: filled, target: "≤ 4× raw JSONDecoder, once per update", meets: filled <= 4))
        results.append(
            Result(
                scenario: "20b load of a complete archive, \(todos) todos", unit: "ms",
                reduxswift: milliseconds[1], baseline: milliseconds[2], baselineName: "raw JSONDecoder",
                ratio: plain, target: "≤ 1.25× raw JSONDecoder (reads the file too)", meets: plain <= 1.25))
    }
    return results
}

/// The archive's envelope, decoded by `JSONDecoder` alone.
private struct Envelope: Decodable {
    let schemaVersion: Int
    let state: UpdatedState
}

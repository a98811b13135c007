import Foundation
import ReduxSwift

// MARK: - 20c–d: the first launch after an update, and every later one

/// The benchmark todo as version 1 declares it: with a `note`.
private struct NotedTodo: Codable, Equatable, Sendable {
    var id: Int
    var title: String
    var done: Bool
    var tags: [String]
    var note: String
}

private struct StateV1: StateProtocol, Equatable, Sendable {
    var counter = 0
    var todos: [NotedTodo] = []
}

/// Version 2 renames `note` to `memo` (a migration) and adds `priority`, with a default.
private struct MemoTodo: Codable, Equatable, Sendable, ArchiveDefaults {
    var id = 0
    var title = ""
    var done = false
    var tags: [String] = []
    var memo = ""
    var priority = 3
}

/// Version 2's state adds `defaultCurrency`, with a default.
private struct StateV2: StateProtocol, Equatable, Sendable, ArchiveDefaults {
    var counter = 0
    var todos: [MemoTodo] = []
    var defaultCurrency = "EUR"
}

private struct EnvelopeV1: Decodable {
    let schemaVersion: Int
    let state: StateV1
}

private struct EnvelopeV2: Decodable {
    let schemaVersion: Int
    let state: StateV2
}

/// A backend of the app's own that holds bytes in memory: an archive on it keeps nothing beside
/// it, so a load that upgrades does not write back. It measures the upgrade alone.
struct BytesBackend: ArchiveBackend {
    let bytes: Data
    var location: String { "memory" }
    func read(limit: Int) throws(PersistenceError) -> Data? { bytes }
    func write(_ data: Data) throws(PersistenceError) {}
    func setAside(suffix: String) throws(PersistenceError) -> String? { nil }
}

private let renameNote = [ArchiveMigration(from: 1, renaming: "note", to: "memo", in: "todos[]")]

let updateLaunchesScenario = Scenario(
    number: "20c–d",
    name: "the first launch after an update (migration and defaults, written back) and the next"
) { workload in
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("ReduxSwiftBenchmarks-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    var results: [Result] = []
    for todos in workload.readSizes.suffix(2) {
        let bench = BenchState(todos: todos)
        let old = StateV1(
            counter: bench.counter,
            todos: bench.todos.map {
                NotedTodo(id: $0.id, title: $0.title, done: $0.done, tags: $0.tags, note: "note \($0.id)")
            })
        let expected = StateV2(
            counter: old.counter,
            todos: old.todos.map {
                MemoTodo(id: $0.id, title: $0.title, done: $0.done, tags: $0.tags, memo: $0.note)
            })
        let file = directory.appendingPathComponent("launch-\(todos).json")
        try StateArchive<StateV1>(file: file).save(old)
        let oldData = try Data(contentsOf: file)
        let archive = { StateArchive<StateV2>(file: file, schemaVersion: 2, migrations: renameNote) }
        var upgraded = Data()
        let summaries = try measureInterleaved(
            repetitions: workload.repetitions,
            [
                {
                    // The first launch: version 1's archive, migrated, filled and written back.
                    for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                        try FileManager.default.removeItem(at: directory.appendingPathComponent(name))
                    }
                    try oldData.write(to: file)
                    var state: StateV2?
                    var problems: [RestoreProblem] = []
                    let elapsed = seconds {
                        state = archive().restore(default: StateV2()) { problems.append($0) }
                    }
                    try check(state == expected, "the first launch did not load the upgraded state")
                    try check(problems.isEmpty, "the first launch reported \(problems)")
                    upgraded = try Data(contentsOf: file)
                    try check(upgraded != oldData, "the first launch did not write the archive back")
                    return elapsed
                },
                {
                    // The next launch, and every later one: the archive written back, as it is. This
                    // one also removes the previous archive kept beside it.
                    var state: StateV2?
                    let elapsed = seconds { state = archive().restore(default: StateV2()) }
                    try check(state == expected, "a later launch did not load the upgraded state")
                    try check(try Data(contentsOf: file) == upgraded, "a later launch wrote the archive")
                    return elapsed
                },
                {
                    // Raw: `JSONDecoder` on version 1's archive, as version 1's types, already in memory.
                    var envelope: EnvelopeV1?
                    let elapsed = try seconds {
                        envelope = try JSONDecoder().decode(EnvelopeV1.self, from: oldData)
                    }
                    try check(envelope?.state == old, "the raw decode of version 1's archive changed it")
                    return elapsed
                },
                {
                    // Raw: `JSONDecoder` on the archive written back, already in memory.
                    var envelope: EnvelopeV2?
                    let elapsed = try seconds {
                        envelope = try JSONDecoder().decode(EnvelopeV2.self, from: upgraded)
                    }
                    try check(
                        envelope?.state == expected, "the raw decode of the upgraded archive changed it")
                    return elapsed
                },
                {
                    // The upgrade alone, with nothing written back: where the first launch's time goes.
                    var state: StateV2?
                    let upgrading = StateArchive<StateV2>(
                        backend: BytesBackend(bytes: oldData), schemaVersion: 2, migrations: renameNote)
                    let elapsed = try seconds { state = try upgrading.load() }
                    try check(state == expected, "the upgrade alone did not load the upgraded state")
                    return elapsed
                },
            ])
        let milliseconds = summaries.map { $0.map { $0 * 1e3 } }
        let first = milliseconds[0].median / milliseconds[2].median
        let later = milliseconds[1].median / milliseconds[3].median
        let upgradeShare = milliseconds[4].median / milliseconds[2].median
        results.append(
            Result(
                scenario:
                    "20c first launch after an update, \(todos) todos migrated, filled and written back",
                unit: "ms", reduxswift: milliseconds[0], baseline: milliseconds[2],
                baselineName: "raw JSONDecoder of the old archive", ratio: first,
                target: "≤ 3× raw JSONDecoder",
                meets: first <= 3,
                note: String(
                    format:
                        "of which the upgrade alone (migration and defaults, no write-back): %.0f ms, %.2f×",
                    milliseconds[4].median, upgradeShare)))
        results.append(
            Result(
                scenario: "20d every later launch, \(todos) todos", unit: "ms", reduxswift: milliseconds[1],
                baseline: milliseconds[3], baselineName: "raw JSONDecoder of the archive written back",
                ratio: later, target: "≤ 1.25× raw JSONDecoder (reads the file too)", meets: later <= 1.25))
    }
    return results
}

import Foundation

/// The inspector page: a recording replayed step by step, written as one self-contained HTML file.
///
/// The page's data is one JSON object inside `<script type="application/json" id="inspector-data">`:
///
/// - `"format"`: `1`; `"stateType"`: the state's type name; `"title"`: the page's title.
/// - `"steps"`: one entry per line of the recording, in order; step `n` (from 1) is `steps[n-1]`,
///   and step 0 is the state the recording started from. Each entry has `"line"` (its line in the
///   recording), `"time"`, `"kind"` (`"action"`, `"batch"`, `"transaction"` or `"move"`), `"type"`
///   (the registered name), `"id"` (the action's `identifier`) and `"payload"` (the action as the
///   recording holds it; a history move without the state it landed on). A batch or a transaction
///   has `"actions"` instead of `"payload"`: its actions, each with `"type"`, `"id"` and `"payload"`.
///   A step whose action failed has `"failed":true` and `"error"` (its error's description); it
///   changed nothing. A follow-up has `"cause"`: the step of the action whose reducers or
///   middleware dispatched it.
/// - `"changes"`: per step, what it changed: `{"p":[keys and indices],"o":old,"n":new}`, `"o"`
///   missing for an added value and `"n"` for a removed one. `changes[n-1]` is step `n`'s.
/// - `"checkpoints"`: `[[step, state], …]`, whole states at step 0 and wherever the changes written
///   since the last checkpoint outgrow the state, so that the page grows with what changed and
///   reaching any step applies at most a state's worth of changes.
///
/// Every `<`, `>` and `&` of the JSON is written as `\u003c`, `\u003e` and `\u0026`, which JSON
/// reads as the same characters, so no string can end the script element.
extension ActionLog {
    /// Writes a page to open in a browser that shows `recording` step by step: each action, the
    /// state after it and what it changed.
    ///
    /// The states come from replaying `recording` into a new store with `reducers` and `state`,
    /// the state the recording started from, and reading a snapshot after each line; the recorded
    /// store is not touched, so writing the page never holds up its queue.
    ///
    /// ```swift
    /// let data = recording.stop()
    /// try log.writeInspectorPage(
    ///     of: data, reducers: AppReducers.reducers, startingFrom: AppState(),
    ///     to: URL(fileURLWithPath: "inspector.html"))
    /// ```
    ///
    /// The page is one HTML file with its styles and script inside: it loads nothing, and its
    /// content security policy forbids every request. Every string from the recording or the
    /// states is shown as text, never as markup. See <doc:InspectingARecording>.
    ///
    /// - Parameters:
    ///   - recording: The lines of a recording (``ActionLog/Recording/stop()``), or a log read back
    ///     from a file.
    ///   - reducers: The reducers of the recorded store.
    ///   - state: The state the recording started from.
    ///   - url: Where to write the page; a file there is replaced.
    ///   - title: The page's title; by default, the state's type name.
    /// - Returns: How many steps the page shows, the starting state not counted.
    /// - Throws: ``ActionLog/ReplayError`` for a line it cannot read (nothing is written),
    ///   ``SnapshotError`` when a state cannot be encoded, or the error of writing the file.
    @discardableResult
    public func writeInspectorPage<State: StateProtocol>(
        of recording: Data, reducers: [Reducer<State>], startingFrom state: State, to url: URL,
        title: String? = nil
    ) throws -> Int {
        let page = try inspectorPage(
            of: recording, reducers: reducers, startingFrom: state,
            title: title ?? String(describing: State.self))
        try page.html.write(to: url, options: .atomic)
        return page.steps
    }

    /// The page of ``writeInspectorPage(of:reducers:startingFrom:to:title:)``, and its number of steps.
    func inspectorPage<State: StateProtocol>(
        of recording: Data, reducers: [Reducer<State>], startingFrom state: State, title: String
    ) throws -> (html: Data, steps: Int) {
        let (actions, failure) = decodeLines(recording, as: State.self)
        if let failure { throw failure }
        let recordedLines = recording.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let store = Store(reducers: reducers, state: state)
        // A line that fails again when replayed (a recording edited by hand, reducers changed since)
        // is shown failed, with its error: the tap hears it before the step's snapshot is read. The
        // page shows it, so the store's own warning about a failure nobody observes would repeat it.
        let replayFailure = LockedValue<String?>(nil)
        store.installTap(
            { _, error, _ in
                guard let error else { return }
                replayFailure.withLock { $0 = $0 ?? String(describing: error) }
            }, storeFailures: { _ in })
        let failuresHeard = store.observeFailures { _ in }
        defer { failuresHeard.cancel() }
        var data = InspectorData()
        data.begin(title: title, stateType: String(reflecting: State.self))
        var previous = try Self.snapshotJSON(of: store)
        data.addCheckpoint(step: 0, state: previous.value, size: previous.bytes.count)
        var stepOfLine: [Int: Int] = [:]
        for (index, entry) in actions.enumerated() {
            let line = Data(recordedLines[entry.line - 1])
            stepOfLine[entry.line] = index + 1
            if let failed = entry.action as? FailedLine {
                // It changed nothing: its state is the state before it.
                data.addStep(
                    Self.inspectedStep(
                        failed.action, line: entry.line, json: line, stepOfLine: stepOfLine,
                        failure: failed.error))
                data.addChanges([], step: index + 1, state: nil)
                continue
            }
            dispatchReplayed(entry.action, into: store.kernel)
            let next = try Self.snapshotJSON(of: store)
            let failure = replayFailure.withLock { failure in
                defer { failure = nil }
                return failure.map { "it failed when replayed for this page: \($0)" }
            }
            data.addStep(
                Self.inspectedStep(
                    entry.action, line: entry.line, json: line, stepOfLine: stepOfLine, failure: failure))
            if next.bytes == previous.bytes {
                data.addChanges([], step: index + 1, state: nil)
            } else {
                var changes: [InspectorChange] = []
                InspectorChange.compare(previous.value, next.value, path: [], into: &changes)
                data.addChanges(changes, step: index + 1, state: (next.value, next.bytes.count))
                previous = next
            }
        }
        return (InspectorPage.html(data: data.finish()), actions.count)
    }

    /// The store's newest snapshot, as bytes and as a value.
    private static func snapshotJSON<State>(of store: Store<State>) throws -> (bytes: Data, value: JSONValue)
    {
        let snapshot = store.kernel.latestSnapshot()
        let bytes = try snapshot.result.get()
        return (bytes, try JSONValue(parsing: bytes))
    }

    /// What the page shows of one line of a recording; `stepOfLine` gives the step of each line
    /// before it, `failure` the error of an action that failed.
    private static func inspectedStep(
        _ action: any ActionProtocol, line number: Int, json: Data, stepOfLine: [Int: Int],
        failure: String? = nil
    ) -> InspectorStep {
        let record = (try? JSONValue(parsing: json)) ?? .null
        let time = record.child("time")?.stringValue
        let offset = record.child("causeOffset")?.intValue
        let cause = offset.flatMap { $0 < 0 ? stepOfLine[number + $0] : nil }
        if let move = (action as? ReplayedMove)?.move ?? (action as? HistoryAction) {
            var payload = record.child("action") ?? .null
            if case .object(var members) = payload {
                members["state"] = nil
                payload = .object(members)
            }
            return InspectorStep(
                line: number, time: time, kind: "move", type: moveName, identifier: move.identifier,
                payload: payload, actions: nil, failure: failure, cause: cause)
        }
        if let batch = (action as? ReplayedTransaction)?.batch ?? (action as? ActionBatch) {
            var members: [InspectorStep] = []
            if case .array(let records)? = record.child("actions") {
                for (member, memberRecord) in zip(batch.actions, records) {
                    members.append(
                        InspectorStep(
                            line: number, time: nil, kind: "action",
                            type: memberRecord.child("type")?.stringValue ?? "",
                            identifier: member.identifier, payload: memberRecord.child("action") ?? .null,
                            actions: nil, failure: nil, cause: nil))
                }
            }
            return InspectorStep(
                line: number, time: time, kind: action is ReplayedTransaction ? "transaction" : "batch",
                type: batchName, identifier: batch.identifier, payload: nil, actions: members,
                failure: failure, cause: cause)
        }
        return InspectorStep(
            line: number, time: time, kind: "action", type: record.child("type")?.stringValue ?? "",
            identifier: action.identifier, payload: record.child("action") ?? .null, actions: nil,
            failure: failure, cause: cause)
    }
}

/// One step of the page: a line of the recording.
struct InspectorStep {
    let line: Int
    let time: String?
    let kind: String
    let type: String
    let identifier: String
    let payload: JSONValue?
    let actions: [InspectorStep]?
    /// The error of an action that failed; `nil` for one that committed.
    let failure: String?
    /// The step of the action whose reducers or middleware dispatched this one, if any.
    let cause: Int?

    var json: JSONValue {
        var members: [String: JSONValue] = [
            "line": .number(String(line)), "kind": .string(kind), "type": .string(type),
            "id": .string(identifier),
        ]
        if let time { members["time"] = .string(time) }
        if let payload { members["payload"] = payload }
        if let actions { members["actions"] = .array(actions.map(\.json)) }
        if let failure {
            members["failed"] = .bool(true)
            members["error"] = .string(failure)
        }
        if let cause { members["cause"] = .number(String(cause)) }
        return .object(members)
    }
}

/// One value a step changed: where, and the values before and after (`nil` where there is none).
struct InspectorChange: Equatable {
    let path: [String]
    let old: JSONValue?
    let new: JSONValue?

    var json: JSONValue {
        var members: [String: JSONValue] = ["p": .array(path.map { .string($0) })]
        if let old { members["o"] = old }
        if let new { members["n"] = new }
        return .object(members)
    }

    /// Appends the changes from `old` to `new` under `path`: objects and arrays member by member
    /// (array elements by index), anything else, or a change of kind, as one change.
    static func compare(
        _ old: JSONValue?, _ new: JSONValue?, path: [String], into changes: inout [InspectorChange]
    ) {
        switch (old, new) {
        case (.object(let before)?, .object(let after)?):
            for key in after.keys.sorted() {
                compare(before[key], after[key], path: path + [key], into: &changes)
            }
            for key in before.keys.sorted() where after[key] == nil {
                changes.append(InspectorChange(path: path + [key], old: before[key], new: nil))
            }
        case (.array(let before)?, .array(let after)?):
            for index in 0..<max(before.count, after.count) {
                compare(
                    index < before.count ? before[index] : nil, index < after.count ? after[index] : nil,
                    path: path + [String(index)], into: &changes)
            }
        default:
            if old != new { changes.append(InspectorChange(path: path, old: old, new: new)) }
        }
    }
}

/// The page's JSON, written as it is built.
struct InspectorData {
    private var steps: [UInt8] = []
    private var changes: [UInt8] = []
    private var checkpoints: [UInt8] = []
    private var header: [UInt8] = []
    /// The bytes of changes written since the last checkpoint.
    private var changesSinceCheckpoint = 0

    mutating func begin(title: String, stateType: String) {
        header.append(contentsOf: #"{"format":1,"title":"#.utf8)
        JSONValue.string(title).write(to: &header, sortingKeys: true)
        header.append(contentsOf: #","stateType":"#.utf8)
        JSONValue.string(stateType).write(to: &header, sortingKeys: true)
    }

    mutating func addCheckpoint(step: Int, state: JSONValue, size: Int) {
        checkpoints.append(checkpoints.isEmpty ? UInt8(ascii: "[") : UInt8(ascii: ","))
        checkpoints.append(contentsOf: "[\(step),".utf8)
        state.write(to: &checkpoints, sortingKeys: true)
        checkpoints.append(UInt8(ascii: "]"))
        changesSinceCheckpoint = 0
    }

    mutating func addStep(_ step: InspectorStep) {
        steps.append(steps.isEmpty ? UInt8(ascii: "[") : UInt8(ascii: ","))
        step.json.write(to: &steps, sortingKeys: true)
    }

    /// Adds a step's changes, and a checkpoint of `state` after them when the changes written since
    /// the last one outgrow it.
    mutating func addChanges(
        _ stepChanges: [InspectorChange], step: Int, state: (value: JSONValue, size: Int)?
    ) {
        changes.append(changes.isEmpty ? UInt8(ascii: "[") : UInt8(ascii: ","))
        let start = changes.count
        JSONValue.array(stepChanges.map(\.json)).write(to: &changes, sortingKeys: true)
        changesSinceCheckpoint += changes.count - start
        if let state, changesSinceCheckpoint > state.size {
            addCheckpoint(step: step, state: state.value, size: state.size)
        }
    }

    /// The JSON, with `<`, `>` and `&` escaped.
    func finish() -> [UInt8] {
        var output = header
        output.append(contentsOf: #","steps":"#.utf8)
        output.append(contentsOf: steps.isEmpty ? Array("[".utf8) : steps)
        output.append(contentsOf: #"],"changes":"#.utf8)
        output.append(contentsOf: changes.isEmpty ? Array("[".utf8) : changes)
        output.append(contentsOf: #"],"checkpoints":"#.utf8)
        output.append(contentsOf: checkpoints)
        output.append(contentsOf: "]}".utf8)
        var escaped: [UInt8] = []
        escaped.reserveCapacity(output.count)
        for byte in output {
            switch byte {
            case UInt8(ascii: "<"): escaped.append(contentsOf: #"\u003c"#.utf8)
            case UInt8(ascii: ">"): escaped.append(contentsOf: #"\u003e"#.utf8)
            case UInt8(ascii: "&"): escaped.append(contentsOf: #"\u0026"#.utf8)
            default: escaped.append(byte)
            }
        }
        return escaped
    }
}

import Foundation
import Testing

@testable import ReduxSwift

/// A state with the shapes a page must rebuild: members that come and go, arrays that grow and
/// shrink, nested values and values that change kind.
private struct InspectedState: StateProtocol, Equatable {
    var counts: [String: Int] = [:]
    var names: [String] = []
    var detail: Detail? = nil

    struct Detail: Codable, Equatable {
        var title: String
        var tags: [String]
    }
}

private enum InspectedAction: ActionProtocol, Codable, Equatable {
    case set(String, Int)
    case remove(String)
    case append(String)
    case dropFirst
    case detail(String?)
    case tag(String)
    case nothing
    case reject(String)
}

/// The error `InspectedAction.reject` throws, described by its message alone.
private struct InspectedRejection: Error, CustomStringConvertible {
    let description: String
}

private let inspectedReducer: Reducer<InspectedState> = { state, action in
    switch action as? InspectedAction {
    case .set(let key, let value)?: state.counts[key] = value
    case .remove(let key)?: state.counts[key] = nil
    case .append(let name)?: state.names.append(name)
    case .dropFirst?: if !state.names.isEmpty { state.names.removeFirst() }
    case .detail(let title)?: state.detail = title.map { InspectedState.Detail(title: $0, tags: []) }
    case .tag(let tag)?: state.detail?.tags.append(tag)
    case .reject(let message)?:
        state.names.append("half-done")
        throw InspectedRejection(description: message)
    case .nothing?, nil: break
    }
}

@Suite(.offThePool) struct InspectorPageTests {
    private func makeLog() -> ActionLog {
        let log = ActionLog()
        log.register(InspectedAction.self, name: "InspectedAction")
        return log
    }

    /// Dispatches each action to a recorded store and reads the state after it.
    private func record(_ actions: [any ActionProtocol], log: ActionLog) -> (
        lines: Data, states: [InspectedState]
    ) {
        let store = Store(
            reducers: [inspectedReducer], state: InspectedState(),
            notificationCenter: StoreNotificationCenter())
        let recording = log.record(store)
        var states = [store.currentState()]
        for action in actions {
            store.dispatch(action)
            states.append(store.currentState())
        }
        return (recording.stop(), states)
    }

    /// Writes the page and returns its HTML.
    private func page(of lines: Data, log: ActionLog) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("inspector-\(UUID()).html")
        defer { try? FileManager.default.removeItem(at: url) }
        try log.writeInspectorPage(
            of: lines, reducers: [inspectedReducer], startingFrom: InspectedState(), to: url)
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// The text of the data element, as the browser hands it to `JSON.parse`.
    private func embeddedData(_ html: String) throws -> String {
        let opening = #"<script type="application/json" id="inspector-data">"#
        let start = try #require(html.range(of: opening)).upperBound
        let end = try #require(html.range(of: "</script>", range: start..<html.endIndex)).lowerBound
        return String(html[start..<end])
    }

    /// The state at every step, rebuilt as the page's script does: the checkpoint before it, then
    /// the changes since.
    private func rebuiltStates(_ data: JSONValue) throws -> [JSONValue] {
        guard case .array(let changes)? = data.child("changes"),
            case .array(let checkpoints)? = data.child("checkpoints")
        else { throw TestFailure() }
        var byStep: [Int: JSONValue] = [:]
        for checkpoint in checkpoints {
            guard case .array(let pair) = checkpoint, let step = pair[0].intValue else { throw TestFailure() }
            byStep[step] = pair[1]
        }
        var states: [JSONValue] = []
        var state = try #require(byStep[0])
        states.append(state)
        for (index, stepChanges) in changes.enumerated() {
            guard case .array(let list) = stepChanges else { throw TestFailure() }
            for change in list {
                guard case .array(let path)? = change.child("p") else { throw TestFailure() }
                state = applying(path.compactMap(\.stringValue)[...], change.child("n"), to: state)
            }
            if let checkpoint = byStep[index + 1] {
                #expect(
                    checkpoint == state, "the checkpoint at step \(index + 1) is the state the changes reach")
                state = checkpoint
            }
            states.append(state)
        }
        return states
    }

    private func applying(_ path: ArraySlice<String>, _ new: JSONValue?, to value: JSONValue?) -> JSONValue {
        guard let key = path.first else { return new ?? .null }
        switch value {
        case .array(var elements)?:
            let index = Int(key)!
            if path.count == 1 && new == nil {
                if index < elements.count { elements.removeSubrange(index...) }
            } else if index < elements.count {
                elements[index] = applying(path.dropFirst(), new, to: elements[index])
            } else {
                elements.append(applying(path.dropFirst(), new, to: nil))
            }
            return .array(elements)
        case .object(var members)?:
            members[key] =
                path.count == 1 && new == nil ? nil : applying(path.dropFirst(), new, to: members[key])
            return .object(members)
        default:
            return .object([key: applying(path.dropFirst(), new, to: nil)])
        }
    }

    private func json(_ state: InspectedState) throws -> JSONValue {
        try JSONValue(parsing: JSONEncoder().encode(state))
    }

    @Test func thePagesDataRebuildsTheStateOfEveryStep() throws {
        let log = makeLog()
        var actions: [any ActionProtocol] = [
            InspectedAction.set("a", 1), InspectedAction.append("x"), InspectedAction.append("y"),
            InspectedAction.nothing, InspectedAction.detail("first"), InspectedAction.tag("t"),
            ActionBatch([InspectedAction.set("b", 2), InspectedAction.remove("a"), InspectedAction.dropFirst]
            ),
            InspectedAction.detail(nil), InspectedAction.set("a", 3),
        ]
        // Enough changes for checkpoints after step 0.
        for step in 0..<60 {
            actions.append(
                step.isMultiple(of: 3) ? InspectedAction.dropFirst : InspectedAction.append("n\(step)"))
            actions.append(InspectedAction.set("k\(step % 7)", step))
        }
        let (lines, states) = record(actions, log: log)
        let html = try page(of: lines, log: log)
        let data = try JSONValue(parsing: Data(try embeddedData(html).utf8))
        guard case .array(let checkpoints)? = data.child("checkpoints") else { throw TestFailure() }
        #expect(checkpoints.count > 1, "a long recording has checkpoints after the first")
        let rebuilt = try rebuiltStates(data)
        #expect(rebuilt.count == states.count)
        for (step, (state, page)) in zip(states, rebuilt).enumerated() {
            #expect(try json(state) == page, "step \(step)")
        }
        guard case .array(let steps)? = data.child("steps") else { throw TestFailure() }
        #expect(steps[0].child("id")?.stringValue == "InspectedAction.set")
        #expect(steps[6].child("kind")?.stringValue == "batch")
        guard case .array(let members)? = steps[6].child("actions") else { throw TestFailure() }
        #expect(
            members.compactMap { $0.child("id")?.stringValue } == [
                "InspectedAction.set", "InspectedAction.remove", "InspectedAction.dropFirst",
            ])
        guard case .array(let changes)? = data.child("changes"), case .array(let none) = changes[3] else {
            throw TestFailure()
        }
        #expect(none.isEmpty, "an action that changes nothing has no changes")
    }

    @Test func stringsThatLookLikeMarkupStayInsideTheDataAsText() throws {
        let log = makeLog()
        let hostile = "</script><img src=x onerror=alert(1)><!-- & \u{2028}"
        let (lines, _) = record(
            [InspectedAction.append(hostile), InspectedAction.set("</script>", 1)], log: log)
        let html = try page(of: lines, log: log)
        let data = try embeddedData(html)
        #expect(!data.contains("<") && !data.contains(">") && !data.contains("&"))
        #expect(!html.contains("<img"), "no markup from the recording reaches the page")
        #expect(html.components(separatedBy: "</script>").count == 3, "only the page's own two scripts end")
        let value = try JSONValue(parsing: Data(data.utf8))
        guard case .array(let changes)? = value.child("changes"), case .array(let first) = changes[0] else {
            throw TestFailure()
        }
        #expect(first.first?.child("n")?.stringValue == hostile, "the string reads back whole")
        #expect(
            !html.contains("innerHTML") && !html.contains("insertAdjacentHTML") && !html.contains("eval("))
    }

    @Test func thePagesDataMarksAFailedStepWithItsErrorAndKeepsTheStateBeforeIt() throws {
        let log = makeLog()
        let hostile = "<img src=x onerror=alert(1)>"
        let (lines, states) = record(
            [
                InspectedAction.set("a", 1), InspectedAction.reject(hostile),
                ActionBatch([InspectedAction.append("x"), InspectedAction.reject("in a batch")]),
                InspectedAction.append("y"),
            ], log: log)
        let html = try page(of: lines, log: log)
        let embedded = try embeddedData(html)
        #expect(!embedded.contains("<") && !html.contains("<img"), "the error stays text inside the data")
        let data = try JSONValue(parsing: Data(embedded.utf8))
        guard case .array(let steps)? = data.child("steps"), case .array(let changes)? = data.child("changes")
        else { throw TestFailure() }
        try #require(steps.count == 4)
        #expect(steps.map { $0.child("failed") } == [nil, .bool(true), .bool(true), nil])
        #expect(steps[1].child("error")?.stringValue == hostile)
        #expect(steps[1].child("id")?.stringValue == "InspectedAction.reject")
        #expect(steps[1].child("payload") != nil)
        #expect(steps[2].child("kind")?.stringValue == "batch")
        #expect(steps[2].child("error")?.stringValue == "in a batch")
        #expect(changes[1] == .array([]) && changes[2] == .array([]), "a failed step changes nothing")
        let rebuilt = try rebuiltStates(data)
        #expect(rebuilt == (try states.map(json)), "a failed step's state is the state before it")
        #expect(rebuilt[2] == rebuilt[1] && rebuilt[3] == rebuilt[1])
    }

    @Test func aLineThatFailsWhenReplayedIsShownFailedWithItsErrorAndChangesNothing() throws {
        let log = makeLog()
        let (lines, _) = record([InspectedAction.append("x"), InspectedAction.append("y")], log: log)
        // The reducers changed since the recording: they refuse "y" now.
        let stricter: Reducer<InspectedState> = { state, action in
            if case .append("y")? = action as? InspectedAction {
                throw InspectedRejection(description: "no more y")
            }
            try inspectedReducer(&state, action)
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("inspector-\(UUID()).html")
        defer { try? FileManager.default.removeItem(at: url) }
        try log.writeInspectorPage(of: lines, reducers: [stricter], startingFrom: InspectedState(), to: url)
        let data = try JSONValue(
            parsing: Data(try embeddedData(String(contentsOf: url, encoding: .utf8)).utf8))
        guard case .array(let steps)? = data.child("steps"), case .array(let changes)? = data.child("changes")
        else { throw TestFailure() }
        try #require(steps.count == 2)
        #expect(steps.map { $0.child("failed") } == [nil, .bool(true)])
        #expect(steps[1].child("error")?.stringValue == "it failed when replayed for this page: no more y")
        #expect(changes[1] == .array([]))
    }

    @Test func aRecordingInTheOlderFormatStillMakesAPage() throws {
        // Lines as earlier versions wrote them: no float-strings marker, a batch without time or
        // transaction marker.
        let lines = Data(
            """
            {"action":{"set":{"_0":"a","_1":1}},"time":"2026-01-01T10:00:00.000Z","type":"InspectedAction"}
            {"actions":[{"action":{"append":{"_0":"x"}},"type":"InspectedAction"},{"action":{"set":{"_0":"a","_1":2}},"type":"InspectedAction"}],"type":"ActionBatch"}

            """.utf8)
        let html = try page(of: lines, log: makeLog())
        let data = try JSONValue(parsing: Data(try embeddedData(html).utf8))
        let states = try rebuiltStates(data)
        #expect(states.count == 3)
        #expect(
            states.last
                == (try json(InspectedState(counts: ["a": 2], names: ["x"]))))
        guard case .array(let steps)? = data.child("steps") else { throw TestFailure() }
        #expect(steps[1].child("kind")?.stringValue == "batch")
        #expect(steps[1].child("time") == nil)
    }

    @Test func aCorruptLineWritesNoPage() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("inspector-\(UUID()).html")
        let lines = Data(
            """
            {"action":{"set":{"_0":"a","_1":1}},"time":"2026-01-01T10:00:00.000Z","type":"InspectedAction"}
            {"action":
            """.utf8)
        #expect(throws: ActionLog.ReplayError.self) {
            try makeLog().writeInspectorPage(
                of: lines, reducers: [inspectedReducer], startingFrom: InspectedState(), to: url)
        }
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }
}

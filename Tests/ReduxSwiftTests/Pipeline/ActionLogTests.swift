import Foundation
import Testing

@testable import ReduxSwift

enum LoggedAction: ActionProtocol, Codable, Equatable {
    case add(Int)
    case note(String)
    case fail
}

struct Unloggable: ActionProtocol {}

let loggedReducer: Reducer<TestState> = { state, action in
    switch action as? LoggedAction {
    case .add(let amount)?: state.counter += amount
    case .note(let text)?: state.log.append(text)
    case .fail?: throw TestFailure()
    case nil: if action is Unloggable { state.counter += 100 }
    }
}

@Suite struct ActionLogTests {
    func makeLog() -> ActionLog {
        let codec = ActionCodec()
        codec.register(LoggedAction.self, name: "LoggedAction")
        return ActionLog(codec: codec)
    }

    /// Records `actions` dispatched to a fresh store and returns the log once every notification
    /// has been delivered, with the store's final state.
    func record(_ actions: [any ActionProtocol], log: ActionLog) -> (Data, TestState, ActionRecording) {
        let store = makeStore([loggedReducer])
        let recording = log.record(store)
        let (appends, token) = recordAppends(announcedBy: store)
        for action in actions { store.dispatch(action) }
        store.dispatch(TestAction.append("end"))
        appends.wait(forCount: 1)
        withExtendedLifetime(token) {}
        return (recording.stop(), store.currentState(), recording)
    }

    @Test func replayingALogReachesTheSameState() throws {
        let log = makeLog()
        let actions: [any ActionProtocol] = [
            LoggedAction.add(2), LoggedAction.note("a"), LoggedAction.fail, LoggedAction.add(5),
            ActionBatch([LoggedAction.note("b"), LoggedAction.add(1)]), LoggedAction.note("c"),
        ]
        let (lines, final, _) = record(actions, log: log)
        let fresh = makeStore([loggedReducer])
        let replayed = try log.replay(lines, into: fresh)
        #expect(replayed == 5, "the failed action is not in the log")
        #expect(fresh.currentState() == final)
    }

    @Test func eachLineIsAJSONObjectWithATimestamp() throws {
        let (lines, _, _) = record([LoggedAction.note("x")], log: makeLog())
        let text = String(decoding: lines, as: UTF8.self)
        let first = try #require(text.split(separator: "\n").first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        #expect(object["type"] as? String == "LoggedAction")
        let time = try #require(object["time"] as? String)
        #expect(ISO8601DateFormatter.fractional.date(from: time) != nil)
    }

    @Test func unregisteredActionsAreLeftOutAndCounted() {
        let (lines, _, recording) = record([Unloggable(), LoggedAction.add(1)], log: makeLog())
        #expect(recording.skippedActions == 2, "Unloggable and the TestAction that ends the recording")
        #expect(String(decoding: lines, as: UTF8.self).split(separator: "\n").count == 1)
    }

    @Test func aCorruptLineIsReportedByNumberAndNothingAfterItIsReplayed() throws {
        let log = makeLog()
        let (lines, _, _) = record([LoggedAction.add(1), LoggedAction.add(2), LoggedAction.add(4)], log: log)
        var text = String(decoding: lines, as: UTF8.self).split(separator: "\n").map(String.init)
        text[1] = String(text[1].dropLast(5))
        let fresh = makeStore([loggedReducer])
        let error = #expect(throws: ActionLogError.self) {
            try log.replay(Data(text.joined(separator: "\n").utf8), into: fresh)
        }
        #expect(error?.line == 2)
        #expect(error?.replayedActions == 1)
        #expect(error?.description.hasPrefix("Line 2:") == true)
        #expect(fresh.currentState() == TestState(counter: 1))
    }

    @Test func anUnknownTypeIsReportedByName() {
        let line = Data(#"{"type":"Mystery","action":{},"time":"2026-11-22T10:00:00.000Z"}"#.utf8)
        let error = #expect(throws: ActionLogError.self) { try makeLog().replay(line, into: makeStore()) }
        #expect(error?.reason == .unknownType("Mystery"))
        #expect(error?.line == 1)
    }

    @Test func aRecordWhoseActionDoesNotDecodeIsMalformed() {
        let line = Data(#"{"type":"LoggedAction","action":{"add":{"_0":"seven"}}}"#.utf8)
        let error = #expect(throws: ActionLogError.self) { try makeLog().replay(line, into: makeStore()) }
        guard case .malformed(let detail) = error?.reason else {
            Issue.record("expected malformed, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("action.add"), "the detail names where: \(detail)")
    }
}

extension ISO8601DateFormatter {
    static var fractional: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}

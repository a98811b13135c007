import Foundation
import Testing

@testable import ReduxSwift

/// Recordings of follow-ups: the line of an action that store code dispatched to its own store
/// names the line of the action that dispatched it, which the inspector page nests it under.
@Suite(.offThePool) struct ActionLogFollowUpTests {
    /// A store whose reducer notes each `note` and dispatches to the same store what `followUps`
    /// gives for it; `Unloggable` dispatches `note("from unloggable")`.
    private func storeWithFollowUps(
        middleware: [Middleware<TestState>] = [],
        _ followUps: @escaping @Sendable (String) -> [any ActionProtocol]
    ) -> Store<TestState> {
        let handle = StoreHandle()
        let store = Store(
            reducers: [
                loggedReducer,
                { _, action in
                    if case .note(let text)? = action as? LoggedAction {
                        for followUp in followUps(text) { handle.store.dispatch(followUp) }
                    }
                    if action is Unloggable { handle.store.dispatch(LoggedAction.note("from unloggable")) }
                },
            ], state: TestState(), middleware: middleware, notificationCenter: StoreNotificationCenter())
        handle.store = store
        return store
    }

    /// Each line's note (or `type` when it has none) and its `causeOffset`.
    private func notesAndCauses(_ lines: Data) throws -> [(String, Int?)] {
        try jsonObjects(ofLines: lines).map { object in
            let action = object["action"] as? [String: Any]
            let note = (action?["note"] as? [String: Any])?["_0"] as? String
            return (note ?? (object["type"] as? String ?? "?"), object["causeOffset"] as? Int)
        }
    }

    @Test func aFollowUpsLineNamesTheLineOfTheActionThatDispatchedItAtEveryDepth() throws {
        let store = storeWithFollowUps { text in
            switch text {
            case "a": [LoggedAction.note("b"), LoggedAction.note("c")]
            case "b": [LoggedAction.note("d")]
            default: []
            }
        }
        let log = makeLoggedActionLog()
        let recording = log.record(store)
        let lock = store.lock()
        store.dispatch(LoggedAction.note("a"))
        store.dispatch(LoggedAction.note("outside"))
        try lock.release()
        let lines = recording.stop()
        let recorded = try notesAndCauses(lines)
        #expect(recorded.map(\.0) == ["a", "b", "d", "c", "outside"])
        #expect(recorded.map(\.1) == [nil, -1, -1, -3, nil])
        // A replay ignores the link and reaches the same state.
        let fresh = makeStore([loggedReducer])
        try log.replay(lines, into: fresh)
        #expect(fresh.currentState().log == ["a", "b", "d", "c", "outside"])
    }

    @Test func aFailedFollowUpAndAFollowUpOfAFailedFollowUpsSiblingKeepTheirCause() throws {
        let store = storeWithFollowUps { text in
            text == "a" ? [LoggedAction.fail, LoggedAction.note("after")] : []
        }
        let recording = makeLoggedActionLog().record(store)
        store.dispatch(LoggedAction.note("a"))
        let objects = try jsonObjects(ofLines: recording.stop())
        try #require(objects.count == 3)
        #expect(objects[1]["failed"] as? Bool == true)
        #expect(objects.map { $0["causeOffset"] as? Int } == [nil, -1, -2])
    }

    @Test func theFollowUpsOfAnActionLeftOutOfTheRecordingNameNoCause() throws {
        let store = storeWithFollowUps { text in
            text == "from unloggable" ? [LoggedAction.note("deeper")] : []
        }
        let recording = makeLoggedActionLog().record(store)
        store.dispatch(LoggedAction.note("before"))
        store.dispatch(Unloggable())
        let lines = recording.stop()
        #expect(recording.skippedActions == 1)
        let recorded = try notesAndCauses(lines)
        #expect(recorded.map(\.0) == ["before", "from unloggable", "deeper"])
        #expect(recorded.map(\.1) == [nil, nil, -1], "not the line before the left-out action")
    }

    @Test func theFollowUpsOfAnActionAMiddlewareDroppedNameNoCauseNotAnEarlierLine() throws {
        let store = storeWithFollowUps(
            middleware: [
                Middleware<TestState>("drops") { action, context in
                    if case .note(let text)? = action as? LoggedAction, text.hasPrefix("drop"),
                        !text.hasSuffix(".follow-up")
                    {
                        // Dispatches a follow-up, then drops the action: it leaves no line.
                        context.dispatch(LoggedAction.note(text + ".follow-up"))
                        return
                    }
                    context.next(action)
                }
            ]
        ) { text in text == "spawn" ? [LoggedAction.note("sibling"), LoggedAction.note("drop-nested")] : [] }
        let recording = makeLoggedActionLog().record(store)
        store.dispatch(LoggedAction.note("before"))
        store.dispatch(LoggedAction.note("drop-top"))
        store.dispatch(LoggedAction.note("spawn"))
        let recorded = try notesAndCauses(recording.stop())
        #expect(
            recorded.map(\.0) == [
                "before", "drop-top.follow-up", "spawn", "sibling", "drop-nested.follow-up",
            ])
        #expect(recorded.map(\.1) == [nil, nil, nil, -1, nil], "not the line before, nor a sibling")
    }

    @Test func theFollowUpOfAHistoryMoveThatMovedNothingNamesNoCause() throws {
        let store = storeWithFollowUps(
            middleware: [
                Middleware<TestState>("notes moves") { action, context in
                    context.next(action)
                    if action is HistoryAction { context.dispatch(LoggedAction.note("after a move")) }
                }
            ]
        ) { _ in [] }
        let history = store.recordHistory(limit: HistoryLimit(steps: 10, actions: .max))
        let recording = makeLoggedActionLog().record(store)
        store.dispatch(LoggedAction.note("a"))
        history.redo()  // nothing to redo: no line
        let recorded = try notesAndCauses(recording.stop())
        #expect(recorded.map(\.0) == ["a", "after a move"])
        #expect(recorded.map(\.1) == [nil, nil])
    }

    @Test func aMiddlewareThatSeesTheActionFailAndGoesOnKeepsItsDispatchLinkedToTheFailedLine() throws {
        let store = storeWithFollowUps(
            middleware: [
                Middleware<TestState>("dispatches first") { action, context in
                    if case .fail? = action as? LoggedAction { context.dispatch(LoggedAction.note("kept")) }
                    context.next(action)
                }
            ]
        ) { _ in [] }
        let recording = makeLoggedActionLog().record(store)
        store.dispatch(LoggedAction.fail)
        let objects = try jsonObjects(ofLines: recording.stop())
        try #require(objects.count == 2)
        #expect(objects[0]["failed"] as? Bool == true)
        #expect(objects[1]["causeOffset"] as? Int == -1)
        #expect(store.currentState().log == ["kept"])
    }

    @Test func aMiddlewaresFollowUpNamesItsCauseToo() throws {
        let store = storeWithFollowUps(
            middleware: [
                Middleware<TestState>("echo") { action, context in
                    context.next(action)
                    if case .note(let text)? = action as? LoggedAction, !text.hasSuffix("!") {
                        context.dispatch(LoggedAction.note(text + "!"))
                    }
                }
            ]
        ) { _ in [] }
        let recording = makeLoggedActionLog().record(store)
        store.dispatch(LoggedAction.note("x"))
        store.dispatch(LoggedAction.note("y"))
        let recorded = try notesAndCauses(recording.stop())
        #expect(recorded.map(\.0) == ["x", "x!", "y", "y!"])
        #expect(recorded.map(\.1) == [nil, -1, nil, -1])
    }

    @Test func followUpsAroundAHistoryMoveAreLinkedAcrossIt() throws {
        let handle = StoreHandle()
        let store = Store(
            reducers: [
                loggedReducer,
                { _, action in
                    if case .note("a")? = action as? LoggedAction {
                        handle.store.dispatch(HistoryAction.undo)
                        handle.store.dispatch(LoggedAction.note("b"))
                    }
                },
            ], state: TestState(), notificationCenter: StoreNotificationCenter())
        handle.store = store
        _ = store.recordHistory(limit: HistoryLimit(steps: 10, actions: .max))
        store.dispatch(LoggedAction.note("first"))
        let recording = makeLoggedActionLog().record(store)
        store.dispatch(LoggedAction.note("a"))
        let objects = try jsonObjects(ofLines: recording.stop())
        try #require(objects.count == 3)
        #expect(objects[1]["type"] as? String == ActionLog.moveName)
        #expect(objects.map { $0["causeOffset"] as? Int } == [nil, -1, -2])
    }

    @Test func thePageNestsEachFollowUpUnderItsCauseAcrossAppendedRecordings() throws {
        let store = storeWithFollowUps { text in text == "a" ? [LoggedAction.note("b")] : [] }
        let log = makeLoggedActionLog()
        let first = log.record(store)
        store.dispatch(LoggedAction.note("a"))
        var lines = first.stop()
        let second = log.record(store)
        store.dispatch(LoggedAction.note("c"))
        store.dispatch(LoggedAction.note("a"))
        lines.append(second.stop())
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("follow-ups-\(UUID()).html")
        defer { try? FileManager.default.removeItem(at: url) }
        try log.writeInspectorPage(of: lines, reducers: [loggedReducer], startingFrom: TestState(), to: url)
        let html = try String(contentsOf: url, encoding: .utf8)
        let start = try #require(html.range(of: #"id="inspector-data">"#))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        let data = try JSONValue(parsing: Data(html[start.upperBound..<end.lowerBound].utf8))
        guard case .array(let steps)? = data.child("steps") else {
            Issue.record("no steps")
            return
        }
        #expect(steps.map { $0.child("cause")?.intValue } == [nil, 1, nil, nil, 4])
    }
}

import Foundation
import Testing

@testable import ReduxSwift

/// Recordings of actions that fail: each is one line marked failed, with its error, which a replay
/// skips.
@Suite(.offThePool) struct ActionLogFailureTests {
    func makeLog() -> ActionLog { makeLoggedActionLog() }

    /// The log's lines as JSON objects.
    func objects(_ lines: Data) throws -> [[String: Any]] { try jsonObjects(ofLines: lines) }

    /// A store whose middleware throws on `LoggedAction.note("refused")` without passing it on.
    func makeRefusingStore() -> Store<TestState> {
        Store(
            reducers: [loggedReducer], state: TestState(),
            middleware: [
                Middleware("refusing") { action, context in
                    if case .note("refused")? = action as? LoggedAction {
                        throw TestFailure(reason: "refused")
                    }
                    context.next(action)
                }
            ], notificationCenter: StoreNotificationCenter())
    }

    @Test func failedActionsAreRecordedInOrderWithTheCommittedOnesWithTheirError() throws {
        let log = makeLog()
        let store = makeRefusingStore()
        let recording = log.record(store)
        store.dispatch(LoggedAction.add(1))
        store.dispatch(LoggedAction.fail)
        store.dispatch(LoggedAction.note("a"))
        store.dispatch(LoggedAction.note("refused"))
        store.dispatch(LoggedAction.add(2))
        let lines = recording.stop()
        let objects = try objects(lines)
        #expect(objects.count == 5)
        #expect(objects.map { $0["failed"] as? Bool } == [nil, true, nil, true, nil])
        #expect(
            objects.map { $0["error"] as? String } == [
                nil, String(describing: TestFailure()), nil,
                String(describing: TestFailure(reason: "refused")),
                nil,
            ])
        #expect(objects.allSatisfy { $0["type"] as? String == "LoggedAction" && $0["time"] is String })
        #expect(recording.skippedActions == 0)
        #expect(store.currentState() == TestState(counter: 3, log: ["a"]))
    }

    @Test func anUnregisteredFailedActionIsLeftOutAndCounted() throws {
        let log = makeLog()
        let store = makeStore([
            loggedReducer, { _, action in if action is Unloggable { throw TestFailure() } },
        ])
        let recording = log.record(store)
        store.dispatch(Unloggable())
        store.dispatch(LoggedAction.add(1))
        let lines = recording.stop()
        #expect(try objects(lines).count == 1)
        #expect(recording.skippedActions == 1)
    }

    @Test func aFailingBatchIsRecordedAsOneFailedLineWithTheErrorOfTheActionThatFailed() throws {
        let log = makeLog()
        let store = makeStore([loggedReducer])
        let recording = log.record(store)
        store.dispatch(batch: [LoggedAction.add(1), ActionBatch([LoggedAction.fail]), LoggedAction.add(2)])
        store.dispatch(LoggedAction.add(4))
        let objects = try objects(recording.stop())
        try #require(objects.count == 2)
        let failed = objects[0]
        #expect(failed["type"] as? String == "ActionBatch")
        #expect((failed["actions"] as? [Any])?.count == 3, "the whole batch, flat")
        #expect(failed["failed"] as? Bool == true)
        #expect(failed["error"] as? String == String(describing: TestFailure()))
        #expect(objects[1]["failed"] == nil)
    }

    @Test func aTransactionThatFailsInAStoreIsRecordedAsOneFailedTransactionLine() throws {
        let log = makeLog()
        let store = makeStore([loggedReducer])
        let recording = log.record(store)
        var transaction = StoreTransaction()
        transaction.add(LoggedAction.add(1), to: store)
        transaction.add(LoggedAction.fail, to: store)
        #expect(throws: TransactionError.self) { try transaction.commit() }
        store.dispatch(LoggedAction.add(4))
        let objects = try objects(recording.stop())
        try #require(objects.count == 2)
        #expect(objects[0]["transaction"] as? Bool == true)
        #expect(objects[0]["failed"] as? Bool == true)
        #expect(objects[0]["error"] as? String == String(describing: TestFailure()))
    }

    @Test func aJumpToAStepTheHistoryLacksIsRecordedAsAFailedMoveWithoutAState() throws {
        let log = makeLog()
        let store = makeStore([loggedReducer])
        let history = store.recordHistory()
        let recording = log.record(store)
        store.dispatch(LoggedAction.add(1))
        history.jump(to: 9)
        store.dispatch(LoggedAction.add(2))
        let lines = recording.stop()
        let objects = try objects(lines)
        try #require(objects.count == 3)
        #expect(objects[1]["type"] as? String == "ReduxSwift.HistoryAction")
        #expect(objects[1]["failed"] as? Bool == true)
        let move = try #require(objects[1]["action"] as? [String: Any])
        #expect(move["move"] as? String == "jump" && move["step"] as? Int == 9 && move["state"] == nil)
        let fresh = makeStore([loggedReducer])
        #expect(try log.replay(lines, into: fresh) == 2)
        #expect(fresh.currentState() == TestState(counter: 3))
    }

    @Test func aReplaySkipsFailedLinesAndReachesTheSameState() throws {
        let log = makeLog()
        let store = makeRefusingStore()
        let recording = log.record(store)
        store.dispatch(LoggedAction.add(1))
        store.dispatch(LoggedAction.fail)
        store.dispatch(LoggedAction.note("refused"))
        store.dispatch(batch: [LoggedAction.add(10), LoggedAction.fail])
        store.dispatch(LoggedAction.note("b"))
        let final = store.currentState()
        let lines = recording.stop()
        #expect(try objects(lines).count == 5)

        // Replayed into a store without the middleware, the refused note would commit: it is skipped.
        let fresh = makeStore([loggedReducer, testReducer])
        let failures = Recorder<String>()
        let token = fresh.observeFailures { failure in failures.append(failure.failedAction?.identifier ?? "")
        }
        let again = log.record(fresh)
        #expect(try log.replay(lines, into: fresh) == 2, "only the committed lines are replayed")
        #expect(fresh.currentState() == final)
        let rerecorded = try objects(again.stop())
        #expect(rerecorded.count == 2, "the replay's recording holds the committed actions alone")
        #expect(rerecorded.allSatisfy { $0["failed"] == nil })
        // Failures are announced in order: one dispatched now comes first unless a skipped line failed.
        fresh.dispatch(TestAction.fail)
        #expect(failures.wait { !$0.isEmpty })
        #expect(failures.values == ["TestAction.fail"], "no skipped line fails again")
        withExtendedLifetime(token) {}
    }

    @Test func aFailedLineIsSkippedAmongLinesOfEarlierVersions() throws {
        // Lines as earlier versions wrote them (no time, no float-strings marker, no failure
        // fields) replay as before; a failed line among them is skipped, even where its action
        // would commit now.
        let lines = Data(
            """
            {"action":{"add":{"_0":1}},"type":"LoggedAction"}
            {"action":{"add":{"_0":5}},"error":"refused","failed":true,"time":"2026-01-01T10:00:00.000Z","type":"LoggedAction"}
            {"actions":[{"action":{"note":{"_0":"x"}},"type":"LoggedAction"},{"action":{"add":{"_0":2}},"type":"LoggedAction"}],"type":"ActionBatch"}

            """.utf8)
        let fresh = makeStore([loggedReducer])
        #expect(try makeLog().replay(lines, into: fresh) == 2)
        #expect(fresh.currentState() == TestState(counter: 3, log: ["x"]))
    }

    @Test func aCorruptLineAfterAFailedLineCountsOnlyTheReplayedActions() throws {
        let lines = Data(
            """
            {"action":{"add":{"_0":1}},"type":"LoggedAction"}
            {"action":{"add":{"_0":5}},"error":"refused","failed":true,"type":"LoggedAction"}
            {"action":

            """.utf8)
        let fresh = makeStore([loggedReducer])
        let error = #expect(throws: ActionLog.ReplayError.self) { try makeLog().replay(lines, into: fresh) }
        #expect(error?.line == 3)
        #expect(error?.replayedActions == 1)
        #expect(fresh.currentState() == TestState(counter: 1))
    }
}

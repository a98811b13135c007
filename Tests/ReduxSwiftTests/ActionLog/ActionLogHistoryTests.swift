import Foundation
import Testing

@testable import ReduxSwift

/// Recordings made while a history undoes, redoes and jumps.
@Suite(.offThePool) struct ActionLogHistoryTests {
    func makeLog() -> ActionLog { makeLoggedActionLog() }

    /// The log's lines as JSON objects.
    func objects(_ lines: Data) throws -> [[String: Any]] { try jsonObjects(ofLines: lines) }

    /// Replays `lines` into a fresh store that starts from `state`, and returns its state.
    func replayed(_ lines: Data, log: ActionLog, from state: TestState = TestState()) throws -> TestState {
        let fresh = makeStore([loggedReducer], state: state)
        try log.replay(lines, into: fresh)
        return fresh.currentState()
    }

    @Test func aRecordingMadeWhileUndoingAndRedoingReplaysToTheSameState() throws {
        let log = makeLog()
        let store = makeStore([loggedReducer])
        let history = store.recordHistory()
        let recording = log.record(store)
        store.dispatch(LoggedAction.add(1))
        store.dispatch(LoggedAction.add(2))
        history.undo()
        store.dispatch(LoggedAction.note("a"))
        history.undo()
        history.undo()
        history.redo()
        store.dispatch(LoggedAction.add(10))
        history.undo()
        history.redo()
        let final = store.currentState()
        let lines = recording.stop()
        #expect(final == TestState(counter: 11))
        #expect(recording.skippedActions == 0, "every move is recorded")
        #expect(try replayed(lines, log: log) == final)
    }

    @Test func undoAndRedoAmongBatchesAndTransactionsReplayToTheSameState() throws {
        let log = makeLog()
        let store = makeStore([loggedReducer])
        let other = makeStore([loggedReducer])
        let history = store.recordHistory()
        let recording = log.record(store)
        store.dispatch(batch: [
            LoggedAction.add(1), ActionBatch([LoggedAction.note("x"), LoggedAction.add(2)]),
        ])
        var transaction = StoreTransaction()
        transaction.add(LoggedAction.note("paid"), to: store)
        transaction.add(LoggedAction.add(5), to: other)
        try transaction.commit()
        store.dispatch(LoggedAction.add(100))
        // The transaction made no step: undoing keeps it, and the batch is undone whole.
        history.undo()
        history.undo()
        #expect(store.currentState() == TestState(counter: 0, log: ["paid"]))
        store.dispatch(batch: [LoggedAction.add(7), LoggedAction.fail])  // fails: the replay skips it
        history.redo()
        store.dispatch(batch: [LoggedAction.note("y")])
        history.undo()
        let final = store.currentState()
        let lines = recording.stop()
        #expect(final == TestState(counter: 3, log: ["x", "paid"]))
        #expect(try replayed(lines, log: log) == final)
    }

    @Test func aHistoryWithALimitReplaysToTheSameState() throws {
        let log = makeLog()
        let store = makeStore([loggedReducer])
        let history = store.recordHistory(limit: HistoryLimit(steps: 3, actions: 100))
        let recording = log.record(store)
        for amount in [1, 2, 4, 8, 16] { store.dispatch(LoggedAction.add(amount)) }
        // The oldest step kept is the state after 1, 2 and 4: no state of the recording's start.
        history.jump(to: 0)
        #expect(store.currentState().counter == 7)
        history.undo()  // nothing left to undo: not recorded
        store.dispatch(LoggedAction.note("b"))
        history.undo()
        history.redo()
        let final = store.currentState()
        let lines = recording.stop()
        #expect(final == TestState(counter: 7, log: ["b"]))
        #expect(try replayed(lines, log: log) == final)
    }

    @Test func jumpsSeveralStepsBackAndForthReplayToTheSameState() throws {
        let log = makeLog()
        let store = makeStore([loggedReducer])
        let history = store.recordHistory()
        let recording = log.record(store)
        for amount in 1...6 { store.dispatch(LoggedAction.add(amount)) }
        history.jump(to: 2)
        history.jump(to: 5)
        history.jump(to: 1)
        store.dispatch(LoggedAction.note("after"))
        history.jump(to: 0)
        history.jump(to: 2)
        let final = store.currentState()
        let lines = recording.stop()
        #expect(final == TestState(counter: 1, log: ["after"]))
        let jumps = try objects(lines).compactMap { $0["action"] as? [String: Any] }.compactMap {
            $0["step"] as? Int
        }
        #expect(jumps == [2, 5, 1, 0, 2])
        #expect(try replayed(lines, log: log) == final)
    }

    @Test func undoingPastTheStartOfTheRecordingReplaysToTheSameState() throws {
        let log = makeLog()
        let store = makeStore([loggedReducer])
        let history = store.recordHistory()
        store.dispatch(LoggedAction.add(1))
        store.dispatch(LoggedAction.note("before"))
        let start = store.currentState()
        let recording = log.record(store)
        store.dispatch(LoggedAction.add(2))
        history.undo()
        history.undo()  // to a state from before the recording: the log holds none of its actions
        history.undo()
        let final = store.currentState()
        let lines = recording.stop()
        #expect(final == TestState())
        #expect(try replayed(lines, log: log, from: start) == final)
    }

    @Test func aReplayIntoAStoreThatRecordsTheSameHistoryKeepsItsSteps() throws {
        let log = makeLog()
        let store = makeStore([loggedReducer])
        let history = store.recordHistory()
        let recording = log.record(store)
        for amount in [1, 2, 4, 8] { store.dispatch(LoggedAction.add(amount)) }
        history.undo()
        history.undo()
        history.redo()
        history.jump(to: 1)
        let lines = recording.stop()

        let fresh = makeStore([loggedReducer])
        let freshHistory = fresh.recordHistory()
        try log.replay(lines, into: fresh)
        #expect(fresh.currentState() == store.currentState())
        #expect(freshHistory.status == history.status)
        // Both histories go on alike.
        history.redo()
        freshHistory.redo()
        #expect(fresh.currentState() == store.currentState())
        #expect(fresh.currentState().counter == 3)
    }

    @Test func aTransactionInTheLogIsNoStepOfTheReplayingHistory() throws {
        let log = makeLog()
        let limit = HistoryLimit(steps: 10, actions: 100)
        let store = makeStore([loggedReducer])
        let other = makeStore([loggedReducer])
        let history = store.recordHistory(limit: limit)
        let recording = log.record(store)
        store.dispatch(LoggedAction.add(1))
        var transaction = StoreTransaction()
        transaction.add(LoggedAction.add(100), to: store)
        transaction.add(LoggedAction.note("paid"), to: other)
        try transaction.commit()
        store.dispatch(LoggedAction.add(1))
        history.undo()
        let lines = recording.stop()
        #expect(store.currentState().counter == 101)
        #expect(history.status.steps == 3)
        // The transaction's line says it was one.
        let transactionLine = try objects(lines)[1]
        #expect(transactionLine["type"] as? String == "ActionBatch")
        #expect(transactionLine["transaction"] as? Bool == true)

        let fresh = makeStore([loggedReducer])
        let freshHistory = fresh.recordHistory(limit: limit)
        let again = log.record(fresh)
        try log.replay(lines, into: fresh)
        #expect(fresh.currentState() == store.currentState())
        #expect(freshHistory.status == history.status, "the transaction made no step")
        // Recorded again, it is a transaction again.
        #expect(try objects(again.stop())[1]["transaction"] as? Bool == true)
        // Both histories go on alike: every move keeps the transaction.
        history.undo()
        freshHistory.undo()
        #expect(fresh.currentState() == store.currentState())
        #expect(fresh.currentState().counter == 100)
        history.jump(to: 2)
        freshHistory.jump(to: 2)
        #expect(fresh.currentState() == store.currentState())
        #expect(freshHistory.status == history.status)
    }

    @Test func aReplayIntoAStoreWhoseHistoryDiffersReachesTheStateAndRestartsItsHistory() throws {
        let log = makeLog()
        let store = makeStore([loggedReducer])
        let history = store.recordHistory()
        let recording = log.record(store)
        for amount in [1, 2, 4] { store.dispatch(LoggedAction.add(amount)) }
        history.undo()
        store.dispatch(LoggedAction.note("n"))
        let lines = recording.stop()
        let final = store.currentState()

        // A history that keeps one step cannot undo: the replay sets the state the undo landed on.
        let fresh = makeStore([loggedReducer])
        let freshHistory = fresh.recordHistory(limit: HistoryLimit(steps: 1, actions: 10))
        try log.replay(lines, into: fresh)
        #expect(fresh.currentState() == final)
        // It restarted from the state the move landed on, and recorded what came after.
        freshHistory.undo()
        #expect(fresh.currentState() == final, "a one-step history keeps no step to undo")

        // One that makes no step of `add` undoes something else than the recorded history did.
        let other = makeStore([loggedReducer])
        let otherHistory = other.recordHistory { action in
            if case .add? = action as? LoggedAction { return false }
            return true
        }
        try log.replay(lines, into: other)
        #expect(other.currentState() == final)
        otherHistory.undo()
        #expect(other.currentState() == TestState(counter: 3), "the history restarted at the undo")
    }

    @Test func aReplayedMoveIsAnnouncedWithItsMoveAndRecordedAgainAlike() throws {
        let log = makeLog()
        let store = makeStore([loggedReducer])
        let history = store.recordHistory()
        let recording = log.record(store)
        store.dispatch(LoggedAction.add(1))
        store.dispatch(LoggedAction.add(2))
        history.undo()
        history.jump(to: 2)
        let lines = recording.stop()

        let fresh = makeStore([loggedReducer])
        let announced = Recorder<String>()
        let token = fresh.observeChanges { note in
            for action in note.actions { announced.append("\(action)") }
        }
        let again = log.record(fresh)
        #expect(try log.replay(lines, into: fresh) == 4)
        let linesAgain = again.stop()
        #expect(announced.wait(forCount: 4))
        #expect(announced.values == ["add(1)", "add(2)", "undo", "jump(to: 2)"])
        func withoutTimes(_ lines: Data) throws -> [NSDictionary] {
            try objects(lines).map { object in
                var object = object
                object["time"] = nil
                return object as NSDictionary
            }
        }
        #expect(try withoutTimes(linesAgain) == withoutTimes(lines))
        withExtendedLifetime(token) {}
    }

    @Test func aMoveIsOneLineWithTheMoveAndTheStateItLandedOn() throws {
        let log = makeLog()
        let store = makeStore([loggedReducer])
        let history = store.recordHistory()
        let recording = log.record(store)
        store.dispatch(LoggedAction.note("a"))
        store.dispatch(LoggedAction.measure(.nan))
        history.undo()
        history.redo()
        history.jump(to: 1)
        let records = try objects(recording.stop())
        #expect(records.count == 5)
        let moves = records.dropFirst(2)
        #expect(moves.allSatisfy { $0["type"] as? String == "ReduxSwift.HistoryAction" })
        #expect(moves.allSatisfy { $0["time"] is String })
        let payloads = moves.compactMap { $0["action"] as? [String: Any] }
        #expect(payloads.map { $0["move"] as? String } == ["undo", "redo", "jump"])
        #expect(payloads.map { $0["step"] as? Int } == [nil, nil, 1])
        let states = payloads.compactMap { $0["state"] as? [String: Any] }
        #expect(states.map { $0["log"] as? [String] } == [["a"], ["a", "nan"], ["a"]])
        // Their states hold no float JSON cannot hold (the log holds the string "nan").
        #expect(moves.map { $0["floatStrings"] as? Int } == [nil, nil, nil])
        #expect(log.name(of: HistoryAction.undo) == "ReduxSwift.HistoryAction")
    }

    @Test func aRecordedMoveEncodesTheStateOnceAndOnlyWhileRecorded() {
        let encodes = LiveEncodeCounter()
        let store = EncodeCountedState.store(counting: encodes)
        let initial = encodes.count
        let history = store.recordHistory()
        for _ in 0..<5 { store.dispatch(TestAction.increment) }
        history.undo()
        #expect(history.status.position == 4)
        let before = encodes.count
        #expect(before == initial, "an unrecorded move encodes nothing")
        let recording = makeLog().record(store)
        history.undo()
        history.redo()
        history.jump(to: 1)
        let lines = recording.stop()
        #expect(encodes.count - before == 3, "once per move, and not again to write the lines")
        #expect(String(decoding: lines, as: UTF8.self).split(separator: "\n").count == 3)
    }

    @Test func aMovesStateHoldingFloatsJSONCannotHoldReplays() throws {
        struct Reading: StateProtocol, Equatable {
            var value = 0.0
            var label = ""
        }
        enum ReadingAction: ActionProtocol, Codable {
            case set(Double, String)
        }
        let reducer: Reducer<Reading> = { state, action in
            if case .set(let value, let label)? = action as? ReadingAction {
                (state.value, state.label) = (value, label)
            }
        }
        let log = ActionLog()
        log.register(ReadingAction.self, name: "ReadingAction")
        let store = Store(
            reducers: [reducer], state: Reading(), notificationCenter: StoreNotificationCenter())
        let history = store.recordHistory()
        let recording = log.record(store)
        store.dispatch(ReadingAction.set(.infinity, "NaN"))  // a string that reads like a float
        store.dispatch(ReadingAction.set(1, "one"))
        history.undo()
        let lines = recording.stop()
        let move = try #require(try objects(lines).last)
        #expect(move["floatStrings"] as? Int == 1, "the state's strings hold \"NaN\": another variant")

        let fresh = Store(
            reducers: [reducer], state: Reading(), notificationCenter: StoreNotificationCenter())
        try log.replay(lines, into: fresh)
        #expect(fresh.currentState() == Reading(value: .infinity, label: "NaN"))
    }

    @Test func aLogMixingLinesOfEarlierVersionsWithMovesReplays() throws {
        // Lines as earlier versions wrote them (no "floatStrings"), then a move this version writes.
        let text = """
            {"action":{"add":{"_0":5}},"time":"2026-01-05T10:00:00.000Z","type":"LoggedAction"}
            {"actions":[{"action":{"note":{"_0":"x"}},"type":"LoggedAction"}],"time":"2026-01-05T10:00:01.000Z","type":"ActionBatch"}
            {"action":{"move":"undo","state":{"counter":5,"log":[],"todos":[]}},"time":"2026-01-05T10:00:02.000Z","type":"ReduxSwift.HistoryAction"}
            {"action":{"add":{"_0":1}},"time":"2026-01-05T10:00:03.000Z","type":"LoggedAction"}
            """
        let fresh = makeStore([loggedReducer])
        #expect(try makeLog().replay(Data(text.utf8), into: fresh) == 4)
        #expect(fresh.currentState() == TestState(counter: 6))
    }

    @Test func aMoveLineThatCannotBeReadIsReportedByNumber() throws {
        let log = makeLog()
        let good = #"{"action":{"add":{"_0":1}},"type":"LoggedAction"}"#
        func error(replaying move: String) -> ActionLog.ReplayError? {
            let fresh = makeStore([loggedReducer])
            let error = #expect(throws: ActionLog.ReplayError.self) {
                try log.replay(Data([good, move].joined(separator: "\n").utf8), into: fresh)
            }
            #expect(fresh.currentState() == TestState(counter: 1), "the actions before it are replayed")
            #expect(error?.line == 2)
            return error
        }
        let unknown = error(
            replaying: #"{"action":{"move":"sideways","state":{}},"type":"ReduxSwift.HistoryAction"}"#)
        #expect(unknown?.kind == .malformed(detail: "\"sideways\" is no history move"))
        let stateless = error(replaying: #"{"action":{"move":"undo"},"type":"ReduxSwift.HistoryAction"}"#)
        #expect(stateless?.kind == .malformed(detail: "the history move has no \"state\""))
        let otherState = error(
            replaying:
                #"{"action":{"move":"redo","state":{"counter":"many"}},"type":"ReduxSwift.HistoryAction"}"#)
        #expect(
            otherState?.kind
                == .malformed(
                    detail:
                        "the state the history move landed on does not decode as ReduxSwiftTests.TestState "
                        + "(at action.state.counter)"))
        let inBatch = error(
            replaying:
                #"{"actions":[{"action":{"move":"undo","state":{"counter":0,"log":[],"todos":[]}},"type":"ReduxSwift.HistoryAction"}],"type":"ActionBatch"}"#
        )
        #expect(inBatch?.kind == .malformed(detail: "a batch holds a history move"))
    }

    @Test func aMoveWhoseStateHoldsAValueTheStateTypeNoLongerReadsIsRefusedNotLost() throws {
        // Recorded by a version whose state had "refreshed", which this one renamed (to an
        // optional, say): replaying the move would land on a state without the user's value.
        let good = #"{"action":{"add":{"_0":1}},"type":"LoggedAction"}"#
        let move =
            #"{"action":{"move":"undo","state":{"counter":1,"log":[],"refreshed":2,"todos":[]}},"#
            + #""type":"ReduxSwift.HistoryAction"}"#
        let fresh = makeStore([loggedReducer])
        let error = #expect(throws: ActionLog.ReplayError.self) {
            try makeLog().replay(Data([good, move].joined(separator: "\n").utf8), into: fresh)
        }
        #expect(error?.line == 2)
        #expect(
            error?.kind
                == .malformed(
                    detail: "the state the history move landed on holds values "
                        + "ReduxSwiftTests.TestState does not read (at refreshed)"))
        #expect(fresh.currentState() == TestState(counter: 1), "the actions before it are replayed")
    }

    @Test func aMoveToAStateThatCannotBeEncodedIsLeftOutAndCounted() throws {
        struct Bill: StateProtocol, Equatable {
            var share: Decimal = 0
        }
        enum BillAction: ActionProtocol, Codable {
            case split(Int)
        }
        let reducer: Reducer<Bill> = { state, action in
            // Split between nobody: a `Decimal` NaN, which JSON cannot hold.
            if case .split(let people)? = action as? BillAction {
                state.share = people == 0 ? .nan : 100 / Decimal(people)
            }
        }
        let log = ActionLog()
        log.register(BillAction.self, name: "BillAction")
        let store = Store(reducers: [reducer], state: Bill(), notificationCenter: StoreNotificationCenter())
        let history = store.recordHistory()
        let recording = log.record(store)
        store.dispatch(BillAction.split(0))
        store.dispatch(BillAction.split(4))
        history.undo()
        history.redo()
        let lines = recording.stop()
        #expect(recording.skippedActions == 1, "the undo, which landed on the NaN")
        let types = try objects(lines).map { $0["type"] as? String }
        #expect(types == ["BillAction", "BillAction", "ReduxSwift.HistoryAction"])
    }

    @Test func aStateThatIsNotEquatableReplaysItsMovesIntoAStoreWithAHistory() throws {
        struct Tally: StateProtocol {
            var total = 0
        }
        let reducer: Reducer<Tally> = { state, action in
            if case .add(let amount)? = action as? LoggedAction { state.total += amount }
        }
        let log = makeLog()
        let store = Store(reducers: [reducer], state: Tally(), notificationCenter: StoreNotificationCenter())
        let history = store.recordHistory()
        let recording = log.record(store)
        for amount in [1, 2, 4] { store.dispatch(LoggedAction.add(amount)) }
        history.undo()
        history.undo()
        store.dispatch(LoggedAction.add(8))
        let lines = recording.stop()
        #expect(store.currentState().total == 9)

        let fresh = Store(reducers: [reducer], state: Tally(), notificationCenter: StoreNotificationCenter())
        let freshHistory = fresh.recordHistory()
        try log.replay(lines, into: fresh)
        #expect(fresh.currentState().total == 9)
        // Its history cannot tell that its own undo lands on the recorded state: it restarted there.
        freshHistory.undo()
        #expect(fresh.currentState().total == 1)
    }
}

import Foundation
import Testing

@testable import ReduxSwift

enum LoggedAction: ActionProtocol, Codable, Equatable {
    case add(Int)
    case note(String)
    case measure(Double)
    case fail
}

struct Unloggable: ActionProtocol {}

let loggedReducer: Reducer<TestState> = { state, action in
    switch action as? LoggedAction {
    case .add(let amount)?: state.counter += amount
    case .note(let text)?: state.log.append(text)
    case .measure(let value)?: state.log.append("\(value)")
    case .fail?: throw TestFailure()
    case nil: if action is Unloggable { state.counter += 100 }
    }
}

/// A log that knows `LoggedAction`, by the name "LoggedAction".
func makeLoggedActionLog() -> ActionLog {
    let log = ActionLog()
    log.register(LoggedAction.self, name: "LoggedAction")
    return log
}

/// A log's lines as JSON objects.
func jsonObjects(ofLines lines: Data) throws -> [[String: Any]] {
    try String(decoding: lines, as: UTF8.self).split(separator: "\n").map { line in
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
}

@Suite(.offThePool) struct ActionLogTests {
    func makeLog() -> ActionLog { makeLoggedActionLog() }

    /// Records `actions` dispatched to a fresh store and returns the log once every notification
    /// has been delivered, with the store's final state.
    func record(_ actions: [any ActionProtocol], log: ActionLog) -> (Data, TestState, ActionLog.Recording) {
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
        #expect(replayed == 5, "the failed action's line is skipped")
        #expect(fresh.currentState() == final)
    }

    @Test func replayingReachesTheSameStateWhenReducersAndMiddlewareDispatch() throws {
        let log = makeLog()
        // A reducer that dispatches a follow-up, and a middleware that dispatches one and passes
        // every action on: the recording holds what they committed, so a replay runs neither.
        func makeDispatchingStore() -> Store<TestState> {
            let handle = StoreHandle()
            let store = Store(
                reducers: [
                    loggedReducer,
                    { _, action in
                        if case .add(let amount)? = action as? LoggedAction, amount > 1 {
                            handle.store.dispatch(LoggedAction.add(amount - 1))
                        }
                    },
                ], state: TestState(),
                middleware: [
                    Middleware("noting") { action, context in
                        if case .add(let amount)? = action as? LoggedAction {
                            context.dispatch(LoggedAction.note("saw \(amount)"))
                        }
                        context.next(action)
                    }
                ], notificationCenter: StoreNotificationCenter())
            handle.store = store
            return store
        }
        let original = makeDispatchingStore()
        let recording = log.record(original)
        original.dispatch(LoggedAction.add(3))
        original.dispatch(batch: [LoggedAction.note("x"), LoggedAction.add(2)])
        let final = original.currentState()
        let lines = recording.stop()
        #expect(final.counter == 3 + 2 + 1 + 2 + 1)

        let fresh = makeDispatchingStore()
        let history = fresh.recordHistory()
        let announced = Recorder<Int>()
        let token = fresh.observeChanges { note in announced.append(note.actions.count) }
        let replayed = try log.replay(lines, into: fresh)
        #expect(fresh.currentState() == final)
        #expect(announced.wait { $0.reduce(0, +) == replayed }, "every replayed action is announced")
        // The history recorded the replayed actions as steps, and re-applies them.
        history.undo()
        history.redo()
        #expect(fresh.currentState() == final)
        withExtendedLifetime(token) {}
    }

    @Test func aRecordingStartedByAReducerHoldsTheFollowUpsItDispatchesAfterwards() {
        let log = makeLog()
        let handle = StoreHandle()
        let recording = LockedBox<ActionLog.Recording?>(nil)
        let store = makeStore([
            loggedReducer,
            { _, action in
                guard case .note("start")? = action as? LoggedAction else { return }
                handle.store.dispatch(LoggedAction.note("before"))
                recording.value = log.record(handle.store)
                handle.store.dispatch(LoggedAction.note("after"))
            },
        ])
        handle.store = store
        store.dispatch(LoggedAction.note("start"))
        store.dispatch(LoggedAction.note("later"))
        _ = store.currentState()
        let lines = recording.value?.stop() ?? Data()
        let recorded = String(decoding: lines, as: UTF8.self)
        #expect(!recorded.contains("before") && !recorded.contains("start"))
        #expect(recorded.contains("after") && recorded.contains("later"))
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
        let error = #expect(throws: ActionLog.ReplayError.self) {
            try log.replay(Data(text.joined(separator: "\n").utf8), into: fresh)
        }
        #expect(error?.line == 2)
        #expect(error?.replayedActions == 1)
        #expect(error?.description.hasPrefix("Line 2:") == true)
        #expect(fresh.currentState() == TestState(counter: 1))
    }

    @Test func anUnknownTypeIsReportedByName() {
        let line = Data(#"{"type":"Mystery","action":{},"time":"2026-11-22T10:00:00.000Z"}"#.utf8)
        let error = #expect(throws: ActionLog.ReplayError.self) {
            try makeLog().replay(line, into: makeStore())
        }
        #expect(error?.kind == .unknownType(name: "Mystery"))
        #expect(error?.line == 1)
    }

    @Test func aRecordWhoseActionDoesNotDecodeIsMalformed() {
        let line = Data(#"{"type":"LoggedAction","action":{"add":{"_0":"seven"}}}"#.utf8)
        let error = #expect(throws: ActionLog.ReplayError.self) {
            try makeLog().replay(line, into: makeStore())
        }
        guard case .malformed(let detail) = error?.kind else {
            Issue.record("expected malformed, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("action.add"), "the detail names where: \(detail)")
    }

    @Test func actionsCarryingInfinityAndNaNAreRecordedAndReplayed() throws {
        let log = makeLog()
        let actions: [any ActionProtocol] = [
            LoggedAction.measure(.infinity), LoggedAction.measure(-.infinity), LoggedAction.measure(.nan),
            ActionBatch([LoggedAction.measure(.infinity)]),
        ]
        let (lines, final, recording) = record(actions, log: log)
        #expect(recording.skippedActions == 1, "only the TestAction that ends the recording")
        let fresh = makeStore([loggedReducer])
        #expect(try log.replay(lines, into: fresh) == 4)
        #expect(fresh.currentState().log == ["inf", "-inf", "nan", "inf"])
        #expect(fresh.currentState().log == final.log.filter { $0 != "end" })
    }

    /// Splits a bill between `people`: with none, a `Decimal` NaN.
    struct SplitBill: ActionProtocol, Codable {
        var share: Decimal
    }

    /// A payload whose object graph is a cycle.
    final class Loop: Codable, @unchecked Sendable {
        // Unchecked: the test sets `next` once, before the action is dispatched, and never again.
        var next: Loop?
    }

    struct Looping: ActionProtocol, Codable {
        var loop: Loop
    }

    @Test func anActionJSONCannotHoldIsLeftOutAndCountedAndTheLogStaysReadable() throws {
        let log = makeLog()
        log.register(SplitBill.self, name: "SplitBill")
        log.register(Looping.self, name: "Looping")
        let loop = Loop()
        loop.next = loop
        let (lines, _, recording) = record(
            [
                LoggedAction.add(1), SplitBill(share: Decimal(1) / Decimal(0)), Looping(loop: loop),
                SplitBill(share: 2.5), LoggedAction.add(2),
            ],
            log: log)
        loop.next = nil
        #expect(
            recording.skippedActions == 3, "the NaN, the cycle and the TestAction that ends the recording")
        let text = String(decoding: lines, as: UTF8.self)
        #expect(!text.contains("NaN"))
        #expect(text.split(separator: "\n").count == 3)
        let fresh = makeStore([loggedReducer])
        #expect(try log.replay(lines, into: fresh) == 3)
        #expect(fresh.currentState().counter == 3)
    }

    @Test func aBatchKeepsItsRegisteredActionsWhenOneIsNotRegistered() throws {
        let log = makeLog()
        let batch = ActionBatch([
            LoggedAction.add(1), Unloggable(), ActionBatch([LoggedAction.add(2), Unloggable()]),
        ])
        let (lines, _, recording) = record([batch], log: log)
        #expect(recording.skippedActions == 3, "two Unloggable and the TestAction that ends the recording")
        let text = String(decoding: lines, as: UTF8.self)
        #expect(text.split(separator: "\n").count == 1, "the batch is one line")
        let fresh = makeStore([loggedReducer])
        #expect(try log.replay(lines, into: fresh) == 1)
        #expect(fresh.currentState().counter == 3, "the registered actions, still as one batch")
    }

    /// `action` wrapped in `depth` batches, built without recursion.
    static func nest(_ action: any ActionProtocol, depth: Int) -> any ActionProtocol {
        var nested = action
        for _ in 0..<depth { nested = ActionBatch([nested]) }
        return nested
    }

    /// Records `batch: [nest(add(1), depth), add(2)]` and replays it into a fresh store.
    func recordAndReplayNestedBatch(depth: Int) throws -> (text: String, skipped: Int, replayed: TestState) {
        let (lines, final, recording) = record(
            [ActionBatch([Self.nest(LoggedAction.add(1), depth: depth), LoggedAction.add(2)])], log: makeLog()
        )
        #expect(final.counter == 3)
        let fresh = makeStore([loggedReducer])
        try makeLog().replay(lines, into: fresh)
        return (String(decoding: lines, as: UTF8.self), recording.skippedActions, fresh.currentState())
    }

    @Test func aBatchNestedPastTheJSONDepthLimitIsRecordedFlatAndReplays() throws {
        for depth in [3, 300] {
            let (text, skipped, replayed) = try recordAndReplayNestedBatch(depth: depth)
            #expect(skipped == 1, "only the TestAction that ends the recording, at depth \(depth)")
            #expect(text.split(separator: "\n").count == 1, "the batch is one line")
            #expect(text.components(separatedBy: "ActionBatch").count == 2, "one flat batch")
            #expect(replayed.counter == 3, "at depth \(depth)")
        }
    }

    @Test func aBatchNestedThousandsOfLevelsDeepIsRecordedWithoutOverflowingTheStack() throws {
        let (text, skipped, replayed) = try recordAndReplayNestedBatch(depth: 5_000)
        #expect(skipped == 1)
        #expect(text.split(separator: "\n").count == 1)
        #expect(replayed.counter == 3)
    }

    @Test func aNestedBatchKeepsItsRegisteredActionsWhenOneIsNotRegistered() throws {
        let batch = ActionBatch([
            Self.nest(ActionBatch([LoggedAction.add(1), Unloggable()]), depth: 400), LoggedAction.add(2),
        ])
        let (lines, final, recording) = record([batch], log: makeLog())
        #expect(final.counter == 103)
        #expect(recording.skippedActions == 2, "Unloggable and the TestAction that ends the recording")
        let fresh = makeStore([loggedReducer])
        #expect(try makeLog().replay(lines, into: fresh) == 1)
        #expect(fresh.currentState().counter == 3)
    }

    @Test func stopReturnsEveryActionCommittedBeforeIt() throws {
        let log = makeLog()
        for trial in 0..<100 {
            let store = makeStore([loggedReducer])
            let recording = log.record(store)
            for amount in 1...10 { store.dispatch(LoggedAction.add(amount)) }
            let lines = recording.stop()
            let count = String(decoding: lines, as: UTF8.self).split(separator: "\n").count
            guard count == 10 else {
                Issue.record("trial \(trial): the recording has \(count) of 10 actions")
                return
            }
            store.dispatch(LoggedAction.add(100))
            _ = store.currentState()
            #expect(recording.data == lines, "nothing is recorded after stop()")
        }
    }

    @Test func aRecordingStartsWithTheFirstActionDispatchedAfterIt() throws {
        let log = makeLog()
        let store = makeStore([loggedReducer])
        for _ in 0..<1_000 { store.dispatch(LoggedAction.add(1)) }
        let recording = log.record(store)
        store.dispatch(LoggedAction.note("first"))
        let lines = recording.stop()
        let fresh = makeStore([loggedReducer], state: TestState(counter: 1_000))
        #expect(try log.replay(lines, into: fresh) == 1)
        #expect(fresh.currentState() == store.currentState())
    }

    @Test func stopFromAReducerDoesNotWaitForItsOwnStore() throws {
        let log = makeLog()
        let recordings = Recorder<ActionLog.Recording>()
        let stopped = Recorder<Data>()
        let store = makeStore([
            loggedReducer,
            { _, action in
                if case .note("stop")? = action as? LoggedAction, let recording = recordings.values.first {
                    stopped.append(recording.stop())
                }
            },
        ])
        recordings.append(log.record(store))
        store.dispatch(LoggedAction.add(1))
        store.dispatch(LoggedAction.note("stop"))
        #expect(stopped.wait(forCount: 1))
        store.dispatch(LoggedAction.add(2))
        _ = store.currentState()
        // It could not wait: it returned what was recorded then, and the recording goes on to the
        // point where stop() was called, which the action that called it is before.
        let complete = recordings.values[0].data
        #expect(complete.starts(with: stopped.values[0]))
        let fresh = makeStore([loggedReducer])
        #expect(try log.replay(complete, into: fresh) == 2)
        #expect(fresh.currentState() == TestState(counter: 1, log: ["stop"]))
    }

    @Test func readersOnManyThreadsWriteEachLineOnceInOrder() throws {
        let log = makeLog()
        let store = makeStore([loggedReducer])
        let recording = log.record(store)
        onThreads(5) { index in
            for amount in 0..<200 {
                if index == 0 {
                    store.dispatch(LoggedAction.add(amount))
                } else if amount % 10 == 0 {
                    _ = recording.data
                }
            }
        }
        let lines = recording.stop()
        struct Line: Decodable {
            let action: LoggedAction
        }
        let decoder = JSONDecoder()
        let actions = try String(decoding: lines, as: UTF8.self).split(separator: "\n").map { line in
            try decoder.decode(Line.self, from: Data(line.utf8)).action
        }
        #expect(actions == (0..<200).map { LoggedAction.add($0) })
    }

    @Test func anActionsEncodeMayReadTheRecordingThatEncodesIt() throws {
        let log = makeLog()
        log.register(HookedAction.self, name: "HookedAction")
        let store = makeStore([loggedReducer])
        let recording = log.record(store)
        let readInside = Recorder<Int>()
        let hook = Hook()
        hook.set {
            readInside.append(recording.data.count)
            readInside.append(recording.skippedActions)
        }
        store.dispatch(HookedAction(id: 1, hook: hook))
        // On its own thread, so that a lock held around `encode(to:)` fails the test instead of
        // hanging it.
        let stopped = finishing(within: 10) { recording.stop() }
        let lines = try #require(stopped, "the inner read waits for the encode it is called from")
        #expect(readInside.values == [0, 0], "inside, the lines and skips written before the action")
        #expect(String(decoding: lines, as: UTF8.self).split(separator: "\n").count == 1)
        hook.set(nil)
    }

    @Test func aReaderDoesNotWaitForAnotherThreadEncodingTheSameActions() throws {
        let log = makeLog()
        log.register(HookedAction.self, name: "HookedAction")
        let store = makeStore([loggedReducer])
        let recording = log.record(store)
        let entered = Gate()
        let release = Gate()
        let hook = Hook()
        hook.set {
            guard hook.isFirstCall() else { return }
            entered.open()
            release.wait()
        }
        store.dispatch(LoggedAction.add(1))
        store.dispatch(HookedAction(id: 2, hook: hook))
        store.dispatch(LoggedAction.add(3))
        let stopped = onNewThread { _ = recording.stop() }
        #expect(entered.wait(timeout: 10), "the first reader is encoding the hooked action")
        let read = finishing(within: 10) { recording.data }
        release.open()
        let lines = try #require(read, "the second reader waited for the first one's encode")
        #expect(stopped.wait(timeout: 10))
        #expect(String(decoding: lines, as: UTF8.self).split(separator: "\n").count == 3)
        #expect(recording.data == lines, "each line is written once, in order")
        let fresh = makeStore([loggedReducer])
        #expect(try log.replay(lines, into: fresh) == 3)
        #expect(fresh.currentState().counter == 4)
        hook.set(nil)
    }
}

/// An action whose `encode(to:)` runs its hook first, so that a test can act while a recording
/// encodes it. The hook is not encoded.
struct HookedAction: ActionProtocol, Codable {
    let id: Int
    var hook: Hook? = nil

    private enum CodingKeys: String, CodingKey {
        case id
    }

    func encode(to encoder: any Encoder) throws {
        hook?.run()
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
    }
}

extension ISO8601DateFormatter {
    static var fractional: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}

@Suite(.offThePool) struct ActionLogRegistrationTests {
    @Test func registeringATypeTwiceUnderItsNameIsHarmless() throws {
        let log = ActionLog()
        log.register(TodoLogAction.self, name: "todo")
        log.register(TodoLogAction.self, name: "todo")
        #expect(log.name(of: TodoLogAction.add("Milk")) == "todo")
    }

    @Test func twoTypesUnderOneNameStopTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let log = ActionLog()
            log.register(TodoLogAction.self, name: "todo")
            log.register(OtherLogAction.self, name: "todo")
        }
    }
}

enum TodoLogAction: ActionProtocol, Codable {
    case add(String)
}

enum OtherLogAction: ActionProtocol, Codable {
    case other
}

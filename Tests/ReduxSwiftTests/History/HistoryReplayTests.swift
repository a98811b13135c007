import Foundation
import Testing

@testable import ReduxSwift

/// A history rebuilds its steps by applying the committed actions again: what it must keep
/// exactly when other features change the state too.
@Suite(.offThePool) struct HistoryReplayTests {
    /// Appends make no step here: they stand for a background refresh.
    static let appendsMakeNoStep: @Sendable (any ActionProtocol) -> Bool = { action in
        if case .append? = action as? TestAction { return false }
        return true
    }

    @Test func undoTakesBackTheLastStepAndKeepsAnActionThatMadeNone() {
        let store = makeStore()
        let history = store.recordHistory(makesStep: Self.appendsMakeNoStep)
        store.dispatch(TestAction.add(1))
        store.dispatch(TestAction.add(2))
        store.dispatch(TestAction.append("refresh"))
        #expect(history.status.steps == 3)
        history.undo()
        #expect(store.currentState() == TestState(counter: 1, log: ["refresh"]))
        history.redo()
        #expect(store.currentState() == TestState(counter: 3, log: ["refresh"]))
        history.jump(to: 0)
        #expect(store.currentState() == TestState(counter: 0, log: ["refresh"]))
    }

    @Test func anActionAMoveLeavesOutIsReportedOnce() {
        struct NeedsTwo: Error, CustomStringConvertible {
            let marker: String
            var description: String { "needs a counter of 2 (\(marker))" }
        }
        let marker = UUID().uuidString
        // The refresh needs what the step made: without it, it throws.
        let refresh: Reducer<TestState> = { state, action in
            if case .append("refresh")? = action as? TestAction, state.counter < 2 {
                throw NeedsTwo(marker: marker)
            }
        }
        let store = makeStore([refresh, testReducer])
        let history = store.recordHistory(makesStep: Self.appendsMakeNoStep)
        let warnings = Recorder<String>()
        let listener = RuntimeWarning.addListener { message in
            if message.contains(marker) { warnings.append(message) }
        }
        defer { RuntimeWarning.removeListener(listener) }
        store.dispatch(TestAction.add(2))
        store.dispatch(TestAction.append("refresh"))
        history.undo()
        #expect(store.currentState() == TestState(counter: 0, log: []))
        #expect(warnings.count == 1)
        #expect(warnings.values.first?.hasPrefix("A history move applied TestAction.append again") == true)
        history.redo()
        #expect(store.currentState() == TestState(counter: 2, log: ["refresh"]))
        history.undo()
        #expect(warnings.count == 1, "once per action")
    }

    @Test func anActionThatMadeNoStepKeepsTheRedoStepsAndIsAppliedAfterThem() {
        let store = makeStore()
        let history = store.recordHistory(makesStep: Self.appendsMakeNoStep)
        store.dispatch(TestAction.add(1))
        store.dispatch(TestAction.append("before"))
        store.dispatch(TestAction.add(2))
        history.undo()
        history.undo()
        #expect(store.currentState() == TestState(counter: 0, log: ["before"]))
        store.dispatch(TestAction.append("after"))
        #expect(history.status == HistoryStatus(steps: 3, position: 0, actionCount: 4))
        history.redo()
        #expect(store.currentState() == TestState(counter: 1, log: ["before", "after"]))
        history.redo()
        #expect(store.currentState() == TestState(counter: 3, log: ["before", "after"]))
        history.jump(to: 1)
        #expect(store.currentState() == TestState(counter: 1, log: ["before", "after"]))
    }

    @Test func actionsThatMadeNoStepAreReappliedInTheOrderTheyFirstWere() {
        // The order matters here: "double" doubles whatever the counter holds.
        let doubling: Reducer<TestState> = { state, action in
            if case .append("double")? = action as? TestAction { state.counter *= 2 }
        }
        let store = makeStore([testReducer, doubling])
        let history = store.recordHistory(makesStep: Self.appendsMakeNoStep)
        store.dispatch(TestAction.add(1))
        store.dispatch(TestAction.append("double"))
        store.dispatch(TestAction.add(5))
        #expect(store.currentState().counter == 7)
        history.undo()
        #expect(store.currentState().counter == 2, "add(1), then double")
        history.undo()
        #expect(store.currentState().counter == 0, "double alone")
        history.redo()
        history.redo()
        #expect(store.currentState().counter == 7)
    }

    @Test func anActionThatMadeNoStepAndFailsWithoutTheUndoneStepIsLeftOutOfThatState() {
        // Renaming a todo that does not exist throws.
        let renaming: Reducer<TestState> = { state, action in
            guard case .append(let title)? = action as? TestAction else { return }
            guard !state.todos.isEmpty else { throw TestFailure(reason: "no todo to rename") }
            state.todos[0].title = title
        }
        let store = makeStore([testReducer, renaming])
        let history = store.recordHistory(makesStep: Self.appendsMakeNoStep)
        store.dispatch(TestAction.addTodo("draft"))
        store.dispatch(TestAction.append("final"))
        #expect(store.currentState().todos.map(\.title) == ["final"])
        history.undo()
        #expect(store.currentState().todos.isEmpty)
        #expect(store.currentState().log.isEmpty, "the rename is left out whole, not half applied")
        history.redo()
        #expect(store.currentState().todos.map(\.title) == ["final"])
        #expect(store.currentState().log == ["final"])
    }

    @Test func anActionThatChangesNothingMakesNoStepForUndoAndRedo() {
        let store = makeStore()
        let history = store.recordHistory()
        let announced = Recorder<String>()
        let token = store.observeChanges { note in
            for action in note.actions { announced.append("\(action)") }
        }
        store.dispatch(TestAction.add(1))
        store.dispatch(TestAction.add(0))
        history.undo()
        #expect(store.currentState().counter == 0, "the undo passed over add(0)")
        #expect(history.status == HistoryStatus(steps: 2, position: 0, actionCount: 1))
        history.redo()
        #expect(store.currentState().counter == 1)
        history.undo()
        store.dispatch(TestAction.add(0))
        #expect(history.status.steps == 2, "add(0) dropped the redo step, as a step does")
        history.undo()  // nothing left that changes the state: nothing announced
        #expect(history.status == HistoryStatus(steps: 1, position: 0, actionCount: 0))
        store.dispatch(TestAction.increment)
        #expect(announced.wait(forCount: 7))
        #expect(announced.values == ["add(1)", "add(0)", "undo", "redo", "undo", "add(0)", "increment"])
        withExtendedLifetime(token) {}
    }

    @Test func aStateThatIsNotEquatableMakesAStepOfEveryCommittedAction() {
        struct Plain: StateProtocol {
            var counter = 0
        }
        let store = Store<Plain>(
            reducers: [
                { state, action in
                    if case .add(let amount)? = action as? TestAction { state.counter += amount }
                }
            ],
            state: Plain(), notificationCenter: StoreNotificationCenter())
        let history = store.recordHistory()
        store.dispatch(TestAction.add(1))
        store.dispatch(TestAction.add(0))
        #expect(history.status.steps == 3)
        history.undo()
        #expect(store.currentState().counter == 1)
        #expect(history.status.position == 1)
        history.undo()
        #expect(store.currentState().counter == 0)
    }

    @Test func aTransactionBetweenStepsIsKeptByUndoRedoAndJumps() throws {
        let store = makeStore()
        let other = makeStore()
        let history = store.recordHistory()
        store.dispatch(TestAction.add(1))
        var transaction = StoreTransaction()
        transaction.add(TestAction.append("paid"), to: store)
        transaction.add(TestAction.add(5), to: other)
        try transaction.commit()
        store.dispatch(TestAction.add(2))
        history.jump(to: 0)
        #expect(store.currentState() == TestState(counter: 0, log: ["paid"]))
        history.redo()
        #expect(store.currentState() == TestState(counter: 1, log: ["paid"]))
        history.jump(to: 2)
        #expect(store.currentState() == TestState(counter: 3, log: ["paid"]))
        #expect(other.currentState().counter == 5)
    }

    @Test func aTransactionThatDoesNotCommitLeavesNoTraceInTheHistory() throws {
        let store = makeStore()
        let other = makeStore()
        let history = store.recordHistory()
        store.dispatch(TestAction.add(1))
        var transaction = StoreTransaction()
        transaction.add(TestAction.append("never"), to: store)
        transaction.add(TestAction.fail, to: other)
        #expect(throws: (any Error).self) { try transaction.commit() }
        store.dispatch(TestAction.add(2))
        #expect(history.status == HistoryStatus(steps: 3, position: 2, actionCount: 2))
        history.undo()
        history.redo()
        #expect(store.currentState() == TestState(counter: 3))
    }

    @Test func aBatchWithAFailingActionIsNoStepAndTheStepsAroundItStay() {
        let store = makeStore()
        let history = store.recordHistory()
        store.dispatch(TestAction.add(1))
        store.dispatch(batch: [TestAction.add(10), TestAction.fail])
        store.dispatch(TestAction.add(2))
        history.undo()
        store.dispatch(batch: [TestAction.append("x"), TestAction.fail])
        #expect(history.status == HistoryStatus(steps: 3, position: 1, actionCount: 2))
        history.redo()
        #expect(store.currentState().counter == 3)
        history.jump(to: 0)
        #expect(store.currentState() == TestState())
    }

    @Test func aStepIsWhatTheReducersCommittedAfterTheMiddlewareRegisteredLater() {
        let store = makeStore()
        let history = store.recordHistory(makesStep: Self.appendsMakeNoStep)
        let held = LockedBox<(@Sendable (any ActionProtocol) -> Void)?>(nil)
        store.register(middleware: [
            Middleware<TestState>("times ten") { action, context in
                guard case .add(let amount)? = action as? TestAction else {
                    context.next(action)
                    return
                }
                context.next(TestAction.add(amount * 10))
            },
            Middleware<TestState>("hold appends") { action, context in
                guard case .append? = action as? TestAction else {
                    context.next(action)
                    return
                }
                let later = context.nextLater()
                held.value = later
            },
        ])
        store.dispatch(TestAction.add(1))
        store.dispatch(TestAction.append("late"))
        _ = store.currentState()
        held.value?(TestAction.append("late"))
        store.dispatch(TestAction.add(2))
        #expect(store.currentState() == TestState(counter: 30, log: ["late"]))
        history.undo()
        #expect(store.currentState() == TestState(counter: 10, log: ["late"]), "add(20) undone, not add(2)")
        history.undo()
        #expect(
            store.currentState() == TestState(counter: 0, log: ["late"]), "what was passed on later stays")
        history.redo()
        history.redo()
        #expect(store.currentState() == TestState(counter: 30, log: ["late"]))
        #expect(history.status.steps == 3)
    }

    @Test func middlewareRegisteredAfterTheHistorySeesItsMovesAndAnActionPassedOnLaterIsAStep() {
        let store = makeStore()
        let history = store.recordHistory()
        let seen = Recorder<String>()
        let held = LockedBox<(@Sendable (any ActionProtocol) -> Void)?>(nil)
        store.register(middleware: [
            Middleware<TestState>("log") { action, context in
                seen.append(String(describing: action))
                context.next(action)
            },
            Middleware<TestState>("hold appends") { action, context in
                guard case .append? = action as? TestAction else {
                    context.next(action)
                    return
                }
                held.value = context.nextLater()
            },
        ])
        store.dispatch(TestAction.add(1))
        store.dispatch(TestAction.append("late"))
        _ = store.currentState()
        held.value?(TestAction.append("late"))
        #expect(store.currentState() == TestState(counter: 1, log: ["late"]))
        #expect(history.status.steps == 3, "the action passed on later is a step of its own")
        history.undo()
        #expect(store.currentState() == TestState(counter: 1), "undo takes back what was passed on later")
        history.undo()
        #expect(store.currentState() == TestState())
        history.redo()
        #expect(store.currentState() == TestState(counter: 1))
        #expect(seen.values.filter { $0.contains("undo") }.count == 2, "the moves went through the chain")
        #expect(seen.values.filter { $0.contains("redo") }.count == 1)
    }

    @Test func aMiddlewareThatDropsMovesStopsThem() {
        let store = makeStore()
        let history = store.recordHistory()
        store.dispatch(TestAction.add(1))
        store.register(middleware: [
            Middleware<TestState>("no undo") { action, context in
                if action is HistoryAction { return }
                context.next(action)
            }
        ])
        history.undo()
        #expect(store.currentState().counter == 1)
        #expect(history.status.position == 1)
    }

    @Test func reducersRegisteredLaterNeverSeeTheActionsBeforeThemAgain() {
        let store = makeStore()
        let history = store.recordHistory()
        store.dispatch(TestAction.add(1))
        store.register([{ state, action in if action is TestAction { state.log.append("late") } }])
        store.dispatch(TestAction.add(2))
        #expect(store.currentState() == TestState(counter: 3, log: ["late"]))
        history.jump(to: 0)
        history.jump(to: 2)
        #expect(store.currentState() == TestState(counter: 3, log: ["late"]))
        history.undo()
        #expect(store.currentState() == TestState(counter: 1))
    }

    @Test func whatReducersDispatchIsNotDispatchedAgainWhenAStepIsRebuilt() {
        let handle = StoreHandle()
        let echoing: Reducer<TestState> = { _, action in
            if case .add? = action as? TestAction { handle.store.dispatch(TestAction.append("echo")) }
        }
        let store = makeStore([testReducer, echoing])
        handle.store = store
        let history = store.recordHistory(makesStep: Self.appendsMakeNoStep)
        let announced = Recorder<String>()
        let token = store.observeChanges { note in
            for action in note.actions { announced.append("\(action)") }
        }
        store.dispatch(TestAction.add(1))
        store.dispatch(TestAction.add(2))
        // The echoes are queued as each add commits, on the store's thread.
        #expect(announced.wait(forCount: 4))
        history.undo()
        history.redo()
        history.jump(to: 0)
        history.jump(to: 2)
        _ = history.status
        #expect(store.currentState() == TestState(counter: 3, log: ["echo", "echo"]))
        #expect(announced.values.filter { $0.hasPrefix("append") }.count == 2)
        withExtendedLifetime(token) {}
    }

    @Test func movesAndStepsThroughADispatchLockKeepTheirOrder() throws {
        let store = makeStore()
        let history = store.recordHistory()
        store.dispatch(TestAction.add(1))
        let lock = store.lock()
        history.undo()  // held behind the lock
        lock.dispatch(TestAction.add(10))  // passes it
        try lock.release()
        #expect(store.currentState().counter == 1, "the undo took back add(10), the step before it")
        #expect(history.status == HistoryStatus(steps: 3, position: 1, actionCount: 2))
        history.redo()
        #expect(store.currentState().counter == 11)
    }

    @Test func aRollbackThatDropsACommittedActionRestartsTheHistory() {
        // Commits the first time it sees "flaky", throws when a rollback applies it again.
        let seen = LockedBox(0)
        let flaky: Reducer<TestState> = { state, action in
            guard case .append("flaky")? = action as? TestAction else { return }
            seen.value += 1
            if seen.value > 1 { throw TestFailure(reason: "not deterministic") }
        }
        let store = makeStore([testReducer, flaky])
        let history = store.recordHistory()
        store.dispatch(TestAction.add(1))
        store.dispatch(TestAction.append("flaky"))
        store.dispatch(TestAction.fail)
        #expect(store.currentState() == TestState(counter: 1))
        #expect(history.status == HistoryStatus(steps: 1, position: 0, actionCount: 0))
        history.undo()
        #expect(store.currentState() == TestState(counter: 1))
        store.dispatch(TestAction.add(2))
        history.undo()
        #expect(store.currentState() == TestState(counter: 1))
    }

    @Test func undoRedoAndStepsFromManyThreadsLeaveTheStateOfTheStepTheHistoryIsAt() {
        let store = makeStore()
        let history = store.recordHistory(
            limit: HistoryLimit(steps: 40, actions: 200), makesStep: Self.appendsMakeNoStep)
        concurrently(6) { thread in
            for step in 0..<150 {
                switch (thread + step) % 6 {
                case 0: history.undo()
                case 1: history.redo()
                case 2: store.dispatch(TestAction.append("refresh"))
                case 3: store.dispatch(TestAction.add(0))  // changes nothing
                default: store.dispatch(TestAction.increment)
                }
                if step % 25 == 0 { _ = history.status }
            }
        }
        let status = history.status
        #expect(status.steps <= 40)
        #expect(status.actionCount < 200 + HistorySteps<TestState>.baseInterval)
        #expect((0..<status.steps).contains(status.position))
        let current = store.currentState()
        #expect(current.log.count == 150, "every refresh is kept, whatever moved")
        history.jump(to: status.position)
        #expect(store.currentState() == current)
        history.jump(to: 0)
        history.jump(to: status.position)
        #expect(store.currentState() == current, "a step rebuilt from further away is the same state")
    }
}

/// A value behind a lock, for reducers and middleware that share one with the test.
///
/// `@unchecked Sendable`: `stored` is only touched while `lock` is held.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// Changes the value in place, under the lock.
    func update(_ change: (inout Value) -> Void) {
        lock.withLock { change(&stored) }
    }
}

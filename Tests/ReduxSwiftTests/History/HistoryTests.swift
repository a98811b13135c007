import Foundation
import Testing

@testable import ReduxSwift

@Suite(.offThePool) struct HistoryTests {
    @Test func undoAndRedoWalkThroughTheCommittedStates() {
        let store = makeStore(state: TestState(counter: 10))
        let history = store.recordHistory()
        for amount in [1, 2, 3] { store.dispatch(TestAction.add(amount)) }
        #expect(history.status == HistoryStatus(steps: 4, position: 3, actionCount: 3))
        history.undo()
        #expect(store.currentState().counter == 13)
        history.undo()
        history.undo()
        #expect(store.currentState().counter == 10)
        #expect(history.status.canUndo == false)
        history.undo()
        #expect(store.currentState().counter == 10)
        history.redo()
        #expect(store.currentState().counter == 11)
        #expect(history.status.position == 1)
        #expect(history.status.canRedo)
    }

    @Test func recordingMovingAndReadingTheStatusEncodeNothing() {
        let encodes = LiveEncodeCounter()
        let store = EncodeCountedState.store(counting: encodes)
        let before = encodes.count
        let history = store.recordHistory()
        for _ in 0..<10 { store.dispatch(TestAction.increment) }
        #expect(history.status.steps == 11)
        history.undo()
        history.undo()
        #expect(history.status.position == 8)
        #expect(encodes.count - before == 0, "the history or its status encoded the state")
    }

    @Test func eachMoveIsAnnouncedAsOneChangeWithItsAction() {
        let store = makeStore()
        let history = store.recordHistory()
        let announced = Recorder<String>()
        let token = store.observeChanges { note in
            for action in note.actions { announced.append("\(action)") }
        }
        store.dispatch(TestAction.increment)
        history.undo()
        history.undo()  // nothing to undo: no change, nothing announced
        history.redo()
        #expect(store.currentState().counter == 1)
        #expect(announced.wait(forCount: 3))
        #expect(announced.values == ["increment", "undo", "redo"])
        withExtendedLifetime(token) {}
    }

    @Test func aNewActionAfterUndoDropsTheRedoSteps() {
        let store = makeStore()
        let history = store.recordHistory()
        store.dispatch(TestAction.append("a"))
        store.dispatch(TestAction.append("b"))
        history.undo()
        store.dispatch(TestAction.append("c"))
        #expect(store.currentState().log == ["a", "c"])
        #expect(history.status.steps == 3)
        #expect(history.status.canRedo == false)
        history.redo()
        #expect(store.currentState().log == ["a", "c"])
        history.jump(to: 0)
        #expect(store.currentState().log == [])
    }

    /// Only a state that could not be encoded empties a history (see `SnapshotNestingTests`).
    @Test func aRefusedJumpInAnEmptyHistorySaysWhenItRecordsAgain() {
        #expect(
            HistoryError(.noSuchStep(0), steps: 0).description
                == "the history has no step 0; it is empty until an action is dispatched")
        #expect(
            HistoryError(.noSuchStep(-1), steps: 0).description
                == "the history has no step -1; it is empty until an action is dispatched")
    }

    @Test func jumpingToAStepTheHistoryDoesNotHaveIsReportedAndChangesNothing() {
        let center = StoreNotificationCenter()
        let store = makeStore(center: center)
        let failures = Recorder<StoreNotification>()
        let token = store.observeFailures { failures.append($0) }
        let history = store.recordHistory()
        store.dispatch(TestAction.increment)
        history.jump(to: 7)
        #expect(store.currentState().counter == 1)
        #expect(failures.wait(forCount: 1))
        #expect(failures.values[0].error as? HistoryError == HistoryError(.noSuchStep(7), steps: 2))
        #expect(failures.values[0].failedAction as? HistoryAction == .jump(to: 7))
        #expect(
            HistoryError(.noSuchStep(7), steps: 2).description
                == "the history has no step 7; it keeps steps 0 to 1")
        withExtendedLifetime(token) {}
    }

    @Test(arguments: [
        (1, 1, "the history has no step 1; it keeps only step 0"),
        (1, -1, "the history has no step -1; it keeps only step 0"),
        (3, 3, "the history has no step 3; it keeps steps 0 to 2"),
        (3, -1, "the history has no step -1; it keeps steps 0 to 2"),
    ])
    func aRefusedJumpNamesTheStepsThereAre(steps: Int, jump: Int, message: String) {
        let center = StoreNotificationCenter()
        let store = makeStore(center: center)
        let failures = Recorder<StoreNotification>()
        let token = store.observeFailures { failures.append($0) }
        let history = store.recordHistory(limit: HistoryLimit(steps: steps, actions: 1_000))
        // Step 0 is the state when recording started; each action adds one, up to `steps`.
        for _ in 0..<steps { store.dispatch(TestAction.increment) }
        #expect(history.status.steps == steps)
        history.jump(to: jump)
        #expect(failures.wait(forCount: 1))
        let error = failures.values.first?.error as? HistoryError
        #expect(error == HistoryError(.noSuchStep(jump), steps: steps))
        #expect(error?.description == message)
        withExtendedLifetime(token) {}
    }

    @Test func theOldestStepsGoFirstWhenTheStepLimitIsPassed() {
        let store = makeStore()
        let history = store.recordHistory(limit: HistoryLimit(steps: 3, actions: 1_000))
        for _ in 0..<10 { store.dispatch(TestAction.increment) }
        #expect(history.status.steps == 3)
        history.jump(to: 0)
        #expect(store.currentState().counter == 8)
    }

    @Test func theActionLimitBoundsTheActionsKept() {
        let store = makeStore()
        let history = store.recordHistory(limit: HistoryLimit(steps: 1000, actions: 50))
        for index in 0..<200 { store.dispatch(TestAction.append("entry \(index)")) }
        let status = history.status
        #expect(status.steps == 51, "the oldest steps went first")
        // The actions of the steps, and fewer than one checkpoint interval before them.
        #expect(status.actionCount >= 50)
        #expect(status.actionCount < 50 + HistorySteps<TestState>.baseInterval)
        history.jump(to: 0)
        #expect(store.currentState().log.count == 150)
        history.jump(to: 50)
        #expect(store.currentState().log.count == 200)
    }

    @Test func theActionLimitStillBoundsTheActionsKeptAfterTensOfThousandsOfActions() {
        let store = makeStore()
        let history = store.recordHistory(limit: HistoryLimit(steps: 3, actions: 5))
        for round in 1...4 {
            for _ in 0..<10_000 { store.dispatch(TestAction.increment) }
            let status = history.status
            // The records compacted as old ones went, round after round; the oldest copy of the
            // state stays within one interval of the oldest step.
            #expect(status.actionCount < 5 + HistorySteps<TestState>.baseInterval, "after \(round * 10_000)")
        }
        history.undo()
        #expect(store.currentState().counter == 39_999)
    }

    @Test func actionsThatMakeNoStepCountTowardsTheActionLimitAndStepsGoOldestFirst() {
        let store = makeStore()
        let history = store.recordHistory(limit: HistoryLimit(steps: 100, actions: 10)) { action in
            if case .append? = action as? TestAction { return true }
            return false
        }
        store.dispatch(TestAction.append("A"))
        store.dispatch(TestAction.append("B"))
        store.dispatch(TestAction.append("C"))
        history.undo()
        #expect(history.status == HistoryStatus(steps: 4, position: 2, actionCount: 3))
        // Refreshes that make no step: the redo step stays while the limit allows.
        for _ in 0..<5 { store.dispatch(TestAction.increment) }
        #expect(history.status.steps == 4, "a refresh does not drop the redo step")
        // Past the limit, the oldest steps go first, then, with every step undone, the redo step.
        for _ in 0..<10 { store.dispatch(TestAction.increment) }
        let status = history.status
        #expect(status.steps == 1)
        #expect(status.position == 0)
        #expect(store.currentState().log == ["A", "B"])
        #expect(store.currentState().counter == 15)
    }

    @Test func aStepKeepsItsActionNotTheState() {
        let store = makeStore(state: TestState(todos: (0..<1_000).map { Todo(id: $0, title: "Todo \($0)") }))
        let history = store.recordHistory(limit: HistoryLimit(steps: 1000, actions: .max))
        for index in 0..<100 { store.dispatch(TestAction.toggle(index * 7)) }
        let status = history.status
        #expect(status.steps == 101)
        #expect(status.actionCount == 100)
        // The state when recording started, and one copy per 64 actions.
        #expect(history.recorder.checkpointCount == 2)
        var expected = store.currentState()
        for back in 0..<100 {
            history.undo()
            expected.todos[(99 - back) * 7].done.toggle()
            #expect(store.currentState() == expected)
        }
        history.jump(to: 100)
        for index in 0..<100 { expected.todos[index * 7].done.toggle() }
        #expect(store.currentState() == expected)
    }

    @Test func aBatchIsOneStepAndAFailedActionIsNone() {
        let store = makeStore()
        let history = store.recordHistory()
        store.dispatch(batch: [TestAction.increment, TestAction.append("x")])
        store.dispatch(TestAction.fail)
        store.dispatch(batch: [TestAction.increment, TestAction.fail])
        #expect(history.status.steps == 2)
        history.undo()
        #expect(store.currentState() == TestState())
    }

    @Test func aRollbackAfterAnUndoNeverGoesBackAcrossIt() {
        let store = makeStore()
        let history = store.recordHistory()
        store.dispatch(TestAction.add(5))
        store.dispatch(TestAction.add(7))
        history.undo()
        store.dispatch(TestAction.append("kept"))
        store.dispatch(TestAction.fail)
        #expect(store.currentState() == TestState(counter: 5, log: ["kept"]))
    }

    @Test func recordingStartsFromTheStateWhenTheHistoryWasRegistered() {
        let store = makeStore()
        store.dispatch(TestAction.add(3))
        let history = store.recordHistory()
        store.dispatch(TestAction.add(4))
        history.jump(to: 0)
        #expect(store.currentState().counter == 3)
    }

    @Test func aTransactionBeforeTheFirstActionIsNoStepAndEveryMoveKeepsIt() throws {
        let store = makeStore()
        let history = store.recordHistory()
        var transaction = StoreTransaction()
        transaction.add(TestAction.add(3), to: store)
        try transaction.commit()
        store.dispatch(TestAction.add(4))
        #expect(history.status.steps == 2)
        history.jump(to: 0)
        #expect(store.currentState().counter == 3, "step 0 without add(4), with the transaction")
        history.redo()
        #expect(store.currentState().counter == 7)
    }

    @Test func theFirstStepIsThereBeforeAnyActionAndAFailedFirstActionAddsNone() {
        let store = makeStore()
        let history = store.recordHistory()
        #expect(history.status.steps == 1)
        store.dispatch(TestAction.fail)
        #expect(history.status.steps == 1)
        store.dispatch(TestAction.add(2))
        #expect(history.status == HistoryStatus(steps: 2, position: 1, actionCount: 1))
        history.undo()
        #expect(store.currentState() == TestState())
    }

    @Test func movesAndDispatchesFromManyThreadsKeepTheHistoryConsistent() {
        let store = makeStore()
        let history = store.recordHistory(limit: HistoryLimit(steps: 50, actions: 1_000))
        concurrently(6) { thread in
            for step in 0..<100 {
                switch (thread + step) % 5 {
                case 0: history.undo()
                case 1: history.redo()
                default: store.dispatch(TestAction.increment)
                }
                if step % 25 == 0 { _ = history.status }
            }
        }
        let status = history.status
        #expect(status.steps <= 50)
        #expect((0..<status.steps).contains(status.position))
        // The store's state is exactly the step the history says it is at.
        let current = store.currentState()
        history.jump(to: status.position)
        #expect(store.currentState() == current)
    }
}

import Testing

@testable import ReduxSwift

@Suite(.offThePool) struct LiveStateTests {
    @Test func everyReducerSeesEveryActionInRegistrationOrder() {
        let first: Reducer<TestState> = { state, action in state.log.append("first:\(action.identifier)") }
        let second: Reducer<TestState> = { state, action in state.log.append("second:\(action.identifier)") }
        let liveState = LiveState(state: TestState(), reducers: [first, second])
        _ = liveState.apply(Action("a"), scope: nil)
        _ = liveState.apply(Action("b"), scope: nil)
        #expect(liveState.state.log == ["first:a", "second:a", "first:b", "second:b"])
    }

    @Test func registeredReducersSeeOnlyLaterActions() {
        let liveState = LiveState(state: TestState(), reducers: [testReducer])
        _ = liveState.apply(TestAction.increment, scope: nil)
        liveState.register([{ state, _ in state.log.append("late") }])
        _ = liveState.apply(TestAction.increment, scope: nil)
        #expect(liveState.state.counter == 2)
        #expect(liveState.state.log == ["late"])
    }

    @Test func aThrowingReducerLeavesTheStateExactlyAsBeforeTheAction() {
        let before: Reducer<TestState> = { state, _ in state.log.append("seen") }
        let liveState = LiveState(state: TestState(), reducers: [before, testReducer])
        _ = liveState.apply(TestAction.add(5), scope: nil)
        let expected = liveState.state
        guard case .failed(let error, let replayFailures, _) = liveState.apply(TestAction.fail, scope: nil)
        else {
            Issue.record("expected the action to fail")
            return
        }
        #expect(error as? TestFailure == TestFailure())
        #expect(replayFailures.isEmpty)
        #expect(liveState.state == expected)
    }

    @Test(arguments: [1, 2, 3, 7, 100])
    func rollbackIsExactWhateverTheCheckpointInterval(interval: Int) {
        let liveState = LiveState(
            state: TestState(), reducers: [testReducer], checkpointInterval: interval)
        var expected = TestState()
        for step in 0..<25 {
            if step % 4 == 3 {
                _ = liveState.apply(TestAction.fail, scope: nil)
            } else {
                _ = liveState.apply(TestAction.append("\(step)"), scope: nil)
                expected.log.append("\(step)")
            }
            #expect(liveState.state == expected)
            #expect(liveState.actionsSinceCheckpoint < interval)
        }
    }

    @Test func aCheckpointEmptiesTheReplayLog() {
        let liveState = LiveState(state: TestState(), reducers: [testReducer])
        for _ in 0..<10 { _ = liveState.apply(TestAction.increment, scope: nil) }
        #expect(liveState.actionsSinceCheckpoint == 10)
        liveState.takeCheckpoint()
        #expect(liveState.actionsSinceCheckpoint == 0)
        _ = liveState.apply(TestAction.fail, scope: nil)
        #expect(liveState.state.counter == 10)
    }

    @Test func replayIsMarkedOnTheContextWhileItRuns() {
        let scope = StoreCodeScope(reducing: nil, holding: nil)
        let sawReplay = Recorder<Bool>()
        let probe: Reducer<TestState> = { _, _ in
            sawReplay.append(StoreCodeScope.current?.isReplaying ?? false)
        }
        let liveState = LiveState(state: TestState(), reducers: [probe, testReducer])
        scope.install {
            _ = liveState.apply(TestAction.increment, scope: scope)
            _ = liveState.apply(TestAction.fail, scope: scope)
        }
        // increment (live), fail (live), increment again (replay).
        #expect(sawReplay.values == [false, false, true])
        #expect(scope.isReplaying == false)
    }

    @Test func anActionThatFailsOnlyOnReplayIsDroppedAndReported() {
        let calls = Recorder<Int>()
        // Succeeds the first time it sees "flaky", throws every later time: a non-deterministic reducer.
        let flaky: Reducer<TestState> = { state, action in
            guard action.identifier == "flaky" else { return }
            calls.append(1)
            if calls.count > 1 { throw TestFailure(reason: "flaky") }
            state.log.append("flaky")
        }
        let liveState = LiveState(state: TestState(), reducers: [flaky, testReducer])
        _ = liveState.apply(TestAction.append("a"), scope: nil)
        _ = liveState.apply(Action("flaky"), scope: nil)
        _ = liveState.apply(TestAction.append("b"), scope: nil)
        guard case .failed(_, let replayFailures, _) = liveState.apply(TestAction.fail, scope: nil) else {
            Issue.record("expected the action to fail")
            return
        }
        #expect(replayFailures.map(\.action.identifier) == ["flaky"])
        #expect(liveState.state.log == ["a", "b"])
    }

    @Test(arguments: [1, 2, 3, 5, 4096])
    func aBatchRollsBackExactlyAroundFailuresAndRegistrations(interval: Int) {
        let seen: Reducer<TestState> = { state, action in
            if case .append(let entry)? = action as? TestAction { state.log.append("seen \(entry)") }
        }
        let batch: [QueueEntry] = [
            .action(TestAction.append("0")), .action(TestAction.append("1")),
            .command(RegisterReducers(reducers: LiveState<TestState>.erase([seen]))),
            .action(TestAction.append("2")), .action(TestAction.fail), .action(TestAction.append("3")),
            .action(TestAction.fail), .action(TestAction.append("4")),
        ]
        let liveState = LiveState(
            state: TestState(), reducers: [testReducer], checkpointInterval: interval)
        let reduced = liveState.reduce(batch, scope: StoreCodeScope(reducing: nil, holding: nil))
        #expect(liveState.state.log == ["0", "1", "2", "seen 2", "3", "seen 3", "4", "seen 4"])
        #expect(liveState.state.counter == 0)
        #expect(reduced.changes == 5)
        let described = reduced.events.map { event -> String in
            switch event {
            case .changed(let runs):
                return StoreNotification.ActionList(runs: runs).map { "\($0)" }.joined(separator: ",")
            case .failed(let action, _, _):
                return "failed \(action)"
            case .lockAbandoned(let error):
                return "\(error)"
            case .snapshotFailed(let error):
                return "\(error)"
            }
        }
        #expect(
            described == [
                #"append("0"),append("1"),append("2")"#, "failed fail", #"append("3")"#, "failed fail",
                #"append("4")"#,
            ])
        #expect(liveState.actionsSinceCheckpoint < interval)
    }
}

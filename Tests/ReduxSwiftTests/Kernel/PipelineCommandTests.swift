import Testing

@testable import ReduxSwift

/// A command the kernel does not know: it reads the state where the queue reaches it.
private struct ReadLog: PipelineCommand {
    final class Seen {
        var logs: [[String]] = []
    }
    let seen: Seen

    func handle(
        _ pipeline: inout ReductionPipeline, at index: Int, of pass: [QueueEntry], state: StatePointer,
        scope: StoreCodeScope, into result: inout ReducedPass
    ) -> ReductionOutcome? {
        seen.logs.append(state.assuming(TestState.self).pointee.log)
        return nil
    }
}

/// A command the kernel does not know that applies an action with the store's reducers.
private struct ApplyAppend: PipelineCommand {
    let entry: String

    func handle(
        _ pipeline: inout ReductionPipeline, at index: Int, of pass: [QueueEntry], state: StatePointer,
        scope: StoreCodeScope, into result: inout ReducedPass
    ) -> ReductionOutcome? {
        pipeline.apply(TestAction.append(entry), at: index, of: pass, state: state, scope: scope)
    }

    var announcedAction: any ActionProtocol { TestAction.append(entry) }

    func reapply(_ reducers: UnsafeBufferPointer<ErasedReducer>, upTo count: Int, state: StatePointer) throws
    {
        for index in 0..<count { try reducers[index](state, TestAction.append(entry)) }
    }
}

@Suite(.offThePool) struct PipelineCommandTests {
    @Test func aNewCommandRunsInTheQueuesOrderAndEndsTheRunOfActionsBeforeIt() {
        let seen = ReadLog.Seen()
        let liveState = LiveState(state: TestState(), reducers: [testReducer])
        let reduced = liveState.reduce(
            [
                .action(TestAction.append("a")), .command(ReadLog(seen: seen)),
                .action(TestAction.append("b")),
                .action(TestAction.append("c")),
            ], scope: StoreCodeScope(reducing: nil, holding: liveState))
        #expect(seen.logs == [["a"]])
        #expect(liveState.state.log == ["a", "b", "c"])
        guard reduced.events.count == 1, case .changed(let runs) = reduced.events[0] else {
            Issue.record("expected one change, got \(reduced.events)")
            return
        }
        #expect(runs.map(\.range) == [0..<1, 2..<4])
    }

    @Test(arguments: [1, 2, 100])
    func aNewCommandThatAppliesAnActionIsAnnouncedAndSurvivesARollback(interval: Int) {
        let liveState = LiveState(
            state: TestState(), reducers: [testReducer], checkpointInterval: interval)
        let reduced = liveState.reduce(
            [
                .action(TestAction.append("a")), .command(ApplyAppend(entry: "x")), .action(TestAction.fail),
                .action(TestAction.append("b")),
            ], scope: StoreCodeScope(reducing: nil, holding: liveState))
        #expect(liveState.state.log == ["a", "x", "b"])
        #expect(liveState.state.counter == 0)
        #expect(reduced.changes == 3)
        let described = reduced.events.map { event -> String in
            switch event {
            case .changed(let runs):
                return StoreNotification.ActionList(runs: runs).map { "\($0)" }.joined(separator: ",")
            case .failed(let action, _, _): return "failed \(action)"
            case .lockAbandoned(let error): return "\(error)"
            case .snapshotFailed(let error): return "\(error)"
            }
        }
        #expect(described == ["append(\"a\"),append(\"x\")", "failed fail", "append(\"b\")"])
    }
}

/// The history: the record of what the store's reducers committed, and the moves between its
/// steps.
///
/// Recording keeps each committed entry with the reducers that saw it, and every
/// `HistorySteps.baseInterval` entries a copy of the state (a checkpoint). It never copies,
/// encodes or compares the state per action: a step costs one record. A move rebuilds the state
/// of its target from the newest checkpoint before the first record that changes, re-applying the
/// records that belong there, with the reducers that saw them, the way a rollback re-applies its
/// replay list.
///
/// `@unchecked Sendable`: everything but `published` is used only by the holder of the store's
/// live state (the pipeline calls the history recorder there, one call at a time); `published` is
/// guarded by its lock. Unchecked exclusivity for the same reason: one thread at a time, and no access to
/// a property calls out while it lasts, so the runtime's check on every action would never fire.
final class HistoryRecorder<State: StateProtocol>: AnyHistoryRecorder, @unchecked Sendable {
    private let limit: HistoryLimit
    private let makesStep: @Sendable (any ActionProtocol) -> Bool
    /// `==` for an `Equatable` state, which lets undo and redo pass over steps that change nothing.
    private let isEqual: (@Sendable (State, State) -> Bool)?
    /// The status, and how many checkpoints the history keeps (for tests).
    private let published = LockedValue(
        (HistoryStatus(steps: 1, position: 0, actionCount: 0), checkpoints: 1))
    /// `nil` until the store starts the history recorder.
    @exclusivity(unchecked) private var steps: HistorySteps<State>?
    /// Where the records of the action in progress start: those before belong to earlier actions
    /// or to transactions.
    @exclusivity(unchecked) private var actionStart = 0
    /// Whether the history restarted during the action in progress, which leaves it no step.
    @exclusivity(unchecked) private var restartedDuringAction = false
    /// The identifiers of the actions a move left out and reported, each once.
    @exclusivity(unchecked) private var reportedLeftOut: Set<String> = []

    init(limit: HistoryLimit, makesStep: @escaping @Sendable (any ActionProtocol) -> Bool) {
        self.limit = limit
        self.makesStep = makesStep
        isEqual = Equality.of(State.self)
    }

    var status: HistoryStatus { published.withLock { $0.0 } }

    /// How many copies of the state the history keeps, as of the last `status`.
    var checkpointCount: Int { published.withLock { $0.checkpoints } }

    /// Records the first step: the state when the store starts the history recorder, in queue order, so
    /// that a transaction committed before it is not part of step 0. From here on the store tells
    /// the recorder of every entry it commits.
    func start(_ state: StatePointer) -> any AnyHistoryRecorder {
        steps = HistorySteps(start: state.assuming(State.self).pointee)
        publish()
        return self
    }

    // MARK: As the pipeline's history recorder

    func committed(_ entry: QueueEntry, reducers: [ErasedReducer], state: StatePointer) {
        guard steps != nil else { return }
        if let transaction = entry.transactionPart {
            // Kept as the batch it applied: a record must not keep the transaction's machinery.
            // A transaction is no step, and may still be undone: it waits for the next action. A
            // transaction an action log replays is kept alike, so the history goes on as the
            // recorded one did.
            steps!.append(.batch(transaction), reducers: reducers)
            actionStart = steps!.records.count
            if steps!.wantsCheckpoint { steps!.addCheckpoint(state.assuming(State.self).pointee) }
            publish()
            return
        }
        steps!.append(entry, reducers: reducers)
        if steps!.wantsCheckpoint { steps!.addCheckpoint(state.assuming(State.self).pointee) }
    }

    func finished(_ action: any ActionProtocol) {
        guard steps != nil else { return }
        // What the reducers committed for the action is the step, whatever the middleware made of
        // it; a failed action committed nothing.
        if !restartedDuringAction, steps!.records.count > actionStart, makesStep(action) {
            steps!.addStep(from: actionStart)
        }
        restartedDuringAction = false
        steps!.enforce(limit)
        actionStart = steps!.records.count
        publish()
    }

    func retractLast(state: StatePointer) {
        steps?.removeLastRecord()
        actionStart = min(actionStart, steps?.records.count ?? 0)
        publish()
    }

    /// Restarts the history from the live state: the states before it cannot be rebuilt, so no
    /// move may go back across it.
    func diverged(state: StatePointer) {
        steps = HistorySteps(start: state.assuming(State.self).pointee)
        actionStart = 0
        restartedDuringAction = true
        publish()
    }

    // MARK: Moving

    func move(_ move: HistoryAction, state: StatePointer, scope: StoreCodeScope) throws -> Bool {
        guard steps != nil else { return false }
        // A move adds and drops no record of its own, but may forget steps: the next action's
        // records start where the move left them.
        defer { actionStart = steps!.records.count }
        let stepCount = steps!.stepCount
        var target: Int
        switch move {
        case .undo: target = steps!.position - 1
        case .redo: target = steps!.position + 1
        case .jump(let step): target = step
        }
        guard (0..<stepCount).contains(target) else {
            if case .jump(let step) = move { throw HistoryError(.noSuchStep(step), steps: stepCount) }
            return false  // nothing to undo or redo
        }
        defer { publish() }
        let live = state.assuming(State.self)
        guard target != steps!.position else { return true }
        while true {
            let base = steps!.base(for: target)
            let (rebuilt, newCheckpoints) = rebuild(to: target, from: base, scope: scope)
            if move == .undo || move == .redo, let isEqual, isEqual(rebuilt, live.pointee) {
                // The step changes nothing here (it changed nothing, or what it changed was
                // overwritten since): forget it and move on to the next one.
                if move == .undo {
                    steps!.forgetUndoneStep(base: base, newCheckpoints: newCheckpoints)
                    target = steps!.position - 1
                    guard target >= 0 else { return false }
                } else {
                    steps!.forgetRedoneStep()
                    target = steps!.position + 1
                    guard target < steps!.stepCount else { return false }
                }
                continue
            }
            steps!.move(to: target, base: base, newCheckpoints: newCheckpoints)
            live.pointee = rebuilt
            return true
        }
    }

    /// The state at `target`: checkpoint `base`, with every later record that belongs to `target`
    /// re-applied by the reducers that saw it, and the checkpoints taken on the way.
    ///
    /// Re-applied as a rollback re-applies: dispatches and registrations made by the reducers are
    /// dropped, since their first run made them. A record whose reducers throw here (an action
    /// that made no step and needs a step this state leaves out, say) is left out of this state,
    /// and the rebuild starts over without it.
    private func rebuild(
        to target: Int, from base: Int, scope: StoreCodeScope
    ) -> (State, [HistoryCheckpoint<State>]) {
        let steps = self.steps!
        let wasReplaying = scope.isReplaying
        scope.isReplaying = true
        defer { scope.isReplaying = wasReplaying }
        let activeLimit = steps.activeLimit(at: target)
        let start = steps.checkpoints[base]
        var excluded = Set<Int>()
        while true {
            var state = start.state
            var checkpoints: [HistoryCheckpoint<State>] = []
            let failed: (index: Int, error: any Error)? = StatePointer.with(&state) { pointer in
                var sinceCheckpoint = 0
                for index in start.index..<steps.records.count {
                    guard steps.applies(index, activeLimit: activeLimit),
                        excluded.isEmpty || !excluded.contains(index)
                    else { continue }
                    if sinceCheckpoint >= steps.checkpointInterval {
                        checkpoints.append(
                            HistoryCheckpoint(index: index, state: pointer.assuming(State.self).pointee))
                        sinceCheckpoint = 0
                    }
                    let record = steps.records[index]
                    do {
                        try record.reducers.withUnsafeBufferPointer { reducers in
                            try ReductionPipeline.run(
                                reducers, upTo: reducers.count, on: record.entry, state: pointer)
                        }
                    } catch {
                        return (index, error)
                    }
                    sinceCheckpoint += 1
                }
                return nil
            }
            guard let failed else { return (state, checkpoints) }
            excluded.insert(failed.index)
            reportLeftOut(steps.records[failed.index].entry.announcedAction, failed.error)
        }
    }

    /// Reports, once per action identifier, an action that made no step and that a move left
    /// out, since it threw without the steps the move took back: a failed action is never silent
    /// in a debug build (in a release build nothing is written; see ``RuntimeWarning``).
    private func reportLeftOut(_ action: any ActionProtocol, _ error: any Error) {
        let name =
            ActionBatch.of(action).map { "a batch of \($0.flattened().actions.count) actions" }
            ?? action.identifier
        guard reportedLeftOut.insert(name).inserted else { return }
        RuntimeWarning.report(
            "A history move applied \(name) again, which makes no step, and it threw "
                + "\(String(reflecting: type(of: error))): \(error) without the steps the move took back: it "
                + "is left out of the state the move landed on (only the first time for each action is "
                + "reported here).")
    }

    private func publish() {
        guard let steps else { return }
        let status = HistoryStatus(
            steps: steps.stepCount, position: steps.position, actionCount: steps.liveRecordCount)
        let checkpoints = steps.checkpoints.count
        published.withLock { $0 = (status, checkpoints) }
    }
}

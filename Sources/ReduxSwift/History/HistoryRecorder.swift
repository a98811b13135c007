/// The history's middleware, and the journal of what the store's reducers committed.
///
/// Recording keeps each committed entry with the reducers that saw it, and every
/// `HistorySteps.baseInterval` entries a copy of the state (a checkpoint). It never copies,
/// encodes or compares the state per action: a step costs one record. A move rebuilds the state
/// of its target from the newest checkpoint before the first record that changes, re-applying the
/// records that belong there, with the reducers that saw them, the way a rollback re-applies its
/// log.
///
/// `@unchecked Sendable`: everything but `published` is used only by the owner of the store's
/// live state (the middleware, the join hook and the journal calls all run there, one at a time);
/// `published` is guarded by its lock. Unchecked exclusivity for the same reason: one thread at a
/// time, and no access to a property calls out while it lasts, so the runtime's check on every
/// action would never fire.
final class HistoryRecorder<State: StateProtocol>: ReductionJournal, @unchecked Sendable {
    private let limit: HistoryLimit
    private let makesStep: @Sendable (any ActionProtocol) -> Bool
    /// `==` for an `Equatable` state, which lets undo and redo pass over steps that change nothing.
    private let isEqual: (@Sendable (State, State) -> Bool)?
    /// The status, and how many checkpoints the history keeps (for tests).
    private let published = LockedValue(
        (HistoryStatus(steps: 1, position: 0, actionCount: 0), checkpoints: 1))
    /// `nil` until the middleware joins the chain.
    @exclusivity(unchecked) private var steps: HistorySteps<State>?
    /// Whether the middleware is passing an action on: its records may still become a step.
    @exclusivity(unchecked) private var isPassingOn = false
    /// Set while the history replaces the state itself, so that it does not restart over it.
    @exclusivity(unchecked) private var isReplacingState = false
    /// Changes when the history restarts, which renumbers its records.
    @exclusivity(unchecked) private var generation = 0

    init(limit: HistoryLimit, makesStep: @escaping @Sendable (any ActionProtocol) -> Bool) {
        self.limit = limit
        self.makesStep = makesStep
        isEqual = Equality.of(State.self)
    }

    var status: HistoryStatus { published.withLock { $0.0 } }

    /// How many copies of the state the history keeps, as of the last `status`.
    var checkpointCount: Int { published.withLock { $0.checkpoints } }

    /// Records the first step: the state when the history's middleware joins the chain, in queue
    /// order, so that a transaction committed before the first action that reaches it is not part
    /// of step 0. From here on the store tells the recorder of every entry it commits.
    func start(_ state: StatePointer) -> (any ReductionJournal)? {
        steps = HistorySteps(start: state.assuming(State.self).pointee)
        publish()
        return self
    }

    // MARK: The middleware

    func handle(_ action: any ActionProtocol, _ call: MiddlewareCall) throws {
        if let move = action as? HistoryAction {
            try travel(move, call)
            return
        }
        guard let start = steps?.records.count else {
            _ = call.next(action)
            return
        }
        let startGeneration = generation
        isPassingOn = true
        _ = call.next(action)
        isPassingOn = false
        // What the reducers committed for the action is the step, whatever the middleware after
        // this one made of it; a failed action committed nothing.
        if generation == startGeneration, steps!.records.count > start, makesStep(action) {
            steps!.addStep(from: start)
        }
        steps!.enforce(limit)
        publish()
    }

    // MARK: The journal

    func committed(_ entry: PendingEntry, reducers: [ErasedReducer], state: StatePointer) {
        guard steps != nil else { return }
        if case .transaction(let participant) = entry {
            // Kept as the batch it applied: a record must not keep the transaction's machinery.
            steps!.append(.batch(participant.batch), reducers: reducers)
        } else {
            steps!.append(entry, reducers: reducers)
        }
        if steps!.wantsCheckpoint { steps!.addCheckpoint(state.assuming(State.self).pointee) }
        // Inside the middleware, `handle` finishes the bookkeeping once the action is done; a
        // transaction may still be undone, so it waits for the next step.
        guard !isPassingOn else { return }
        if case .transaction = entry {
            publish()
            return
        }
        steps!.enforce(limit)
        publish()
    }

    func retractLast(state: StatePointer) {
        steps?.removeLastRecord()
        publish()
    }

    /// Restarts the history from the live state: the states before it cannot be rebuilt, so no
    /// move may go back across it.
    func diverged(state: StatePointer) {
        if isReplacingState {
            isReplacingState = false
            return
        }
        steps = HistorySteps(start: state.assuming(State.self).pointee)
        generation += 1
        publish()
    }

    // MARK: Moving

    private func travel(_ move: HistoryAction, _ call: MiddlewareCall) throws {
        guard steps != nil else { return }
        let stepCount = steps!.stepCount
        var target: Int
        switch move {
        case .undo: target = steps!.position - 1
        case .redo: target = steps!.position + 1
        case .jump(let step): target = step
        }
        guard (0..<stepCount).contains(target) else {
            if case .jump(let step) = move { throw HistoryError(.noSuchStep(step), steps: stepCount) }
            return  // nothing to undo or redo
        }
        defer { publish() }
        let live = call.state(as: State.self)
        guard target != steps!.position else {
            replaceState(with: live.pointee, call)
            return
        }
        while true {
            let base = steps!.base(for: target)
            let (state, newCheckpoints) = rebuild(to: target, from: base)
            if move == .undo || move == .redo, let isEqual, isEqual(state, live.pointee) {
                // The step changes nothing here (it changed nothing, or what it changed was
                // overwritten since): forget it and move on to the next one.
                if move == .undo {
                    steps!.forgetUndoneStep(base: base, newCheckpoints: newCheckpoints)
                    target = steps!.position - 1
                    guard target >= 0 else { return }
                } else {
                    steps!.forgetRedoneStep()
                    target = steps!.position + 1
                    guard target < steps!.stepCount else { return }
                }
                continue
            }
            steps!.move(to: target, base: base, newCheckpoints: newCheckpoints)
            replaceState(with: state, call)
            return
        }
    }

    private func replaceState(with state: State, _ call: MiddlewareCall) {
        isReplacingState = true
        call.replaceState(with: state)
    }

    /// The state at `target`: checkpoint `base`, with every later record that belongs to `target`
    /// re-applied by the reducers that saw it, and the checkpoints taken on the way.
    ///
    /// Re-applied as a rollback re-applies: dispatches and registrations made by the reducers are
    /// dropped, since their first run made them. A record whose reducers throw here (an action
    /// that made no step and needs a step this state leaves out, say) is left out of this state,
    /// and the rebuild starts over without it.
    private func rebuild(to target: Int, from base: Int) -> (State, [HistoryCheckpoint<State>]) {
        let steps = self.steps!
        let context = ReducerContext.current
        let wasReplaying = context?.isReplaying ?? false
        context?.isReplaying = true
        defer { context?.isReplaying = wasReplaying }
        let activeLimit = steps.activeLimit(at: target)
        let start = steps.checkpoints[base]
        var excluded = Set<Int>()
        while true {
            var state = start.state
            var checkpoints: [HistoryCheckpoint<State>] = []
            let failed: Int? = StatePointer.with(&state) { pointer in
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
                        return index
                    }
                    sinceCheckpoint += 1
                }
                return nil
            }
            guard let failed else { return (state, checkpoints) }
            excluded.insert(failed)
        }
    }

    private func publish() {
        guard let steps else { return }
        let status = HistoryStatus(
            steps: steps.stepCount, position: steps.position, actionCount: steps.liveRecordCount)
        let checkpoints = steps.checkpoints.count
        published.withLock { $0 = (status, checkpoints) }
    }
}

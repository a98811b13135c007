/// How an action ended.
enum ReductionOutcome {
    /// Every reducer returned; the change stands.
    case committed
    /// A reducer threw `error`; the state is as it was before the action. `replayFailures` lists
    /// listed actions that threw when re-applied (only non-deterministic reducers do that): they
    /// are dropped from the state as well. `site` says which action of a batch threw.
    case failed(any Error, replayFailures: [ReplayFailure], site: FailureSite)
}

/// A listed action that threw when a rollback re-applied it, and which action of it threw.
typealias ReplayFailure = (action: any ActionProtocol, error: any Error, site: FailureSite)

/// Thrown by the reducers of a batch's action, with that action: which action of a batch failed
/// is part of the report of a failure nothing observes (see ``FailureSite``). Callers unwrap it.
struct FailedInBatch: Error {
    let action: any ActionProtocol
    let error: any Error
}

/// What reducing one pass produced.
struct ReducedPass {
    /// Committed state changes.
    var changes = 0
    /// Notifications to post, in order.
    var events: [StoreEvent] = []
}

/// Consecutive actions of one pass committed since the checkpoint, all seen by the first
/// `reducerCount` erased registrations. The replay list refers to the pass instead of copying each action.
struct ReplayRun {
    let entries: [QueueEntry]
    var range: Range<Int>
    let reducerCount: Int
}

/// The state operations the pipeline needs beyond the reducers, erased to the state's address like
/// them: the two of a rollback, and the encoding an action log records a history move with.
struct StateOperations {
    /// Makes the state at the address the checkpoint.
    let take: (StatePointer) -> Void
    /// Replaces the state at the address with the checkpoint.
    let restore: (StatePointer) -> Void
    /// Encodes the state at the address as a snapshot does (its version is not used). Called by
    /// the holder of the state, outside any reducer.
    let encode: (StatePointer) -> Snapshot
}

/// One middleware of a store's chain.
struct MiddlewareLink {
    let handler: ErasedMiddleware
    /// Its place in the order the store received its middleware, which it keeps when others leave
    /// the chain: an action passed on later continues after the slot of the middleware that held
    /// it (see ``ResumeAction``), so no removal sends it elsewhere. Slots only grow, and none
    /// is used twice, so a middleware registered later always comes after.
    let slot: Int
    /// The registration that can remove it; `nil` for the middleware the store was created with.
    let key: MiddlewareKey?
}

/// Everything the store does per action, with no generic parameter, so that it runs as concrete
/// code: applying the erased reducers, logging committed actions for rollback, collecting events.
struct ReductionPipeline {
    private(set) var reducers: [ErasedReducer]
    /// The middleware chain, in order; empty unless the store was given some, or once every
    /// registered one was removed.
    private(set) var middleware: [MiddlewareLink] = []
    /// Middleware taken out of the chain for a while (see ``HideMiddleware``),
    /// by the key that registered them.
    private var hidden: [(key: MiddlewareKey, links: [MiddlewareLink])] = []
    /// The slot the next middleware registered gets.
    private var nextSlot = 0
    /// One reusable call object per middleware position (see `reusableCall(at:kernel:)`).
    var calls: [MiddlewareCall] = []
    /// What committed since the checkpoint, in order.
    private var replayList: [ReplayRun] = []
    /// Where in the replay list the runs of the current pass begin: those before it belong to
    /// passes already released (see ``releaseBatch(_:)``).
    private var passRunsStart = 0
    private(set) var actionsToReplay = 0
    /// The action logs recording this store (see `ActionLog.Recording`); empty unless one records.
    var recorders: [RecordingSink] = []
    /// How far the recorders have been given the events of the current pass.
    var recordedEvents = EventPosition()
    /// How deep in follow-ups the current pass's events are, for the recorders: from each position
    /// on, the number of actions above the one reduced there (0 for an action dispatched from
    /// outside store code, 1 for one that its reducers or middleware dispatched, and so on).
    /// Noted only where a pass goes into follow-ups or comes back; empty for a pass that has none.
    /// Going into follow-ups, `causeHasEvent` says whether the action that dispatched them left an
    /// event (it committed or failed) whose recorded line they can name; one that a middleware
    /// dropped, or a move that moved nothing, left none.
    var followUpDepths: [(from: EventPosition, depth: Int, causeHasEvent: Bool)] = []
    /// Whether the entry whose follow-ups the pass goes into next left an event (see
    /// ``followUpDepths``).
    private var followUpCauseHasEvent = true
    /// How many marks of ``followUpDepths`` the recorders were given, and the depth of the last.
    var followUpMarksTaken = 0
    var recordedDepth = 0
    /// Whether a change may be heard by an observer of notifications; when not, and nothing
    /// records the store, a pass keeps no change events, which nobody would read.
    var announcesChanges = true
    /// The state watchers still at work: value observers, which select from the state after every
    /// pass that changes it (a place in the queue leaves once reached).
    private var watchers: [any StateWatcher] = []
    /// How many value observers make a new one sweep out the ended ones (cancelled, or whose
    /// owner is gone): twice as many as the last sweep left, so that the sweeps cost O(1) per
    /// observer, and the observers ended on a store that does not change (whose passes would drop
    /// them) stay a fraction of the live.
    private var sweepThreshold = 64
    /// What keeps every committed entry (a history); empty unless a history records this store.
    private(set) var historyRecorders: [any AnyHistoryRecorder] = []
    let checkpointInterval: Int
    let checkpoints: StateOperations
    /// Which action types are not ``AsyncAction``s, so that an async action that reaches the
    /// reducers in a batch, or from a middleware, is caught without a cast per action.
    var actionTypes = ActionTypes()
    /// Hears every change and failure the store announces, each with the state it left (see
    /// ``ReductionTap``); `nil` until one is installed.
    var tap: ErasedReductionTap?

    init(reducers: [ErasedReducer], checkpointInterval: Int, checkpoints: StateOperations) {
        precondition(checkpointInterval > 0, "checkpointInterval must be positive")
        self.reducers = reducers
        self.checkpointInterval = checkpointInterval
        self.checkpoints = checkpoints
    }

    mutating func register(_ newReducers: [ErasedReducer]) {
        reducers.append(contentsOf: newReducers)
    }

    /// Adds middleware to the end of the chain; `key` removes them.
    mutating func register(middleware newMiddleware: [ErasedMiddleware], key: MiddlewareKey?) {
        for handler in newMiddleware {
            middleware.append(MiddlewareLink(handler: handler, slot: nextSlot, key: key))
            nextSlot += 1
        }
    }

    /// Takes the middleware registered with `key` out of the chain; the others keep their order
    /// and their slots. Once none is left, actions go straight to the reducers, with no chain pass.
    mutating func removeMiddleware(registeredWith key: MiddlewareKey) {
        middleware.removeAll { $0.key === key }
        if !hidden.isEmpty { hidden.removeAll { $0.key === key } }
    }

    /// Takes the middleware registered with `key` out of the chain until ``showMiddleware(registeredWith:)``.
    mutating func hideMiddleware(registeredWith key: MiddlewareKey) {
        let links = middleware.filter { $0.key === key }
        guard !links.isEmpty else { return }
        middleware.removeAll { $0.key === key }
        hidden.append((key, links))
    }

    /// Puts the middleware hidden with `key` back, each at the place its slot gives it.
    mutating func showMiddleware(registeredWith key: MiddlewareKey) {
        guard let index = hidden.firstIndex(where: { $0.key === key }) else { return }
        for link in hidden.remove(at: index).links {
            middleware.insert(link, at: position(afterSlot: link.slot))
        }
    }

    /// The position in the chain of the first middleware after `slot`: where an action passed on
    /// later by the middleware in `slot` continues, even if that middleware has left the chain.
    func position(afterSlot slot: Int) -> Int {
        middleware.firstIndex { $0.slot > slot } ?? middleware.count
    }

    /// Makes `recorder` keep every entry that commits from here on, after those already keeping.
    mutating func addHistoryRecorder(_ recorder: any AnyHistoryRecorder) {
        historyRecorders.append(recorder)
    }

    /// Forgets the replay list, after the caller made the current state the checkpoint.
    mutating func clearReplayList() {
        replayList.removeAll(keepingCapacity: true)
        passRunsStart = 0
        actionsToReplay = 0
    }

    /// Reduces a pass of queued entries in order, on the state at `state`.
    ///
    /// For each action it applies the registrations its reducers made, then releases the
    /// dispatches they made if it committed or discards them if it failed. Committed actions are
    /// announced as runs of their entry arrays, split around failures and registrations.
    ///
    /// What store code dispatches to this store while handling an entry (its *follow-ups*) is
    /// handled right after that entry, before the rest of the pass, and their own follow-ups
    /// before their later siblings: the order of nested synchronous dispatches. The entries left
    /// wait on a stack of unfinished arrays rather than in recursion, so that no chain of
    /// follow-ups overflows the thread's stack; a chain of one follow-up each leaves nothing there.
    mutating func reduce(
        _ pass: [QueueEntry], state: StatePointer, scope: StoreCodeScope
    ) -> ReducedPass {
        var result = ReducedPass()
        recordedEvents = EventPosition()
        passRunsStart = replayList.count
        if !followUpDepths.isEmpty {
            followUpDepths.removeAll(keepingCapacity: true)
            followUpMarksTaken = 0
            recordedDepth = 0
        }
        var unfinished: [(entries: [QueueEntry], next: Int, depth: Int)] = []
        var entries = pass
        var start = 0
        var depth = 0
        var followUpsHandled = 0
        while true {
            if let stop = reduce(entries, from: start, state: state, scope: scope, into: &result) {
                if stop < entries.count {
                    unfinished.append((entries, stop, depth))
                } else {
                    releaseBatch(entries)
                }
                entries = scope.takeFollowUps()
                start = 0
                depth += 1
                followUpDepths.append((EventPosition.end(of: result.events), depth, followUpCauseHasEvent))
                followUpsHandled = reportEndlessFollowUps(handled: followUpsHandled, adding: entries.count)
                continue
            }
            releaseBatch(entries)
            guard let resumed = unfinished.popLast() else { break }
            (entries, start, depth) = resumed
            followUpDepths.append((EventPosition.end(of: result.events), depth, true))
        }
        if !recorders.isEmpty { feedRecorders(result.events) }
        if result.changes > 0, !watchers.isEmpty { select(from: state, scope: scope) }
        return result
    }

    /// How many follow-ups one pass handles before the store reports that store code may be
    /// dispatching in an endless loop: a legitimate pass, even one that fans out, stays far below.
    var followUpWarningThreshold = 100_000

    /// Counts follow-ups of one pass; reports once when they pass the threshold.
    private func reportEndlessFollowUps(handled: Int, adding count: Int) -> Int {
        let total = handled + count
        if handled < followUpWarningThreshold, total >= followUpWarningThreshold {
            RuntimeWarning.report(
                "reducers or middleware dispatched \(total) actions in a row to their own store, which "
                    + "handles each right after the action that dispatched it: they may be dispatching "
                    + "in an endless loop, and nothing else queued is reduced, read or delivered until "
                    + "they stop")
        }
        return total
    }

    /// Reduces `pass` from `start` on, until it ends (returns `nil`) or an entry leaves follow-ups,
    /// which are handled next (returns where to resume).
    private mutating func reduce(
        _ pass: [QueueEntry], from start: Int, state: StatePointer, scope: StoreCodeScope,
        into result: inout ReducedPass
    ) -> Int? {
        var runStart = start
        var runHasActions = false
        func closeRun(at end: Int) {
            defer {
                runStart = end
                runHasActions = false
            }
            guard runHasActions else { return }
            if announcesChanges || !recorders.isEmpty {
                result.events.appendChange([ActionRun(entries: pass, range: runStart..<end)])
            }
            // With a tap, a run holds one action, so `state` is the state that action left.
            if let tap { for index in runStart..<end { tap(pass[index].announcedAction, nil, state) } }
        }
        // Checked once per array rather than per action; only a command in it changes it.
        // A history recorder needs to hear where each action ends, and to handle moves: with one, actions
        // go one at a time, as through middleware.
        // A tap hears each action with the state it leaves: with one, runs hold one action.
        var passesOneByOne = !middleware.isEmpty || !historyRecorders.isEmpty || tap != nil
        // Where the events end before an entry is passed on or handled alone, while something
        // records the store: whether it left an event matters only to a recording that holds it
        // (see `followUpDepths`), so a store nobody records does not look.
        func eventsEnd() -> EventPosition? {
            recorders.isEmpty ? nil : EventPosition.end(of: result.events)
        }
        func leavesFollowUps(since before: EventPosition?) -> Bool {
            guard scope.hasFollowUps else { return false }
            followUpCauseHasEvent = before.map { EventPosition.end(of: result.events) != $0 } ?? true
            return true
        }
        // Reading entries through the buffer borrows each action instead of retaining a copy.
        let stop: Int? = pass.withUnsafeBufferPointer { entries in
            for index in start..<entries.count {
                let outcome: ReductionOutcome
                switch entries[index] {
                case .action(let action):
                    guard !passesOneByOne else {
                        closeRun(at: index)
                        runStart = index + 1
                        let before = eventsEnd()
                        passOn(at: index, of: pass, state: state, scope: scope, into: &result)
                        if leavesFollowUps(since: before) { return index + 1 }
                        continue
                    }
                    outcome = apply(action, at: index, of: pass, state: state, scope: scope)
                case .batch:
                    guard !passesOneByOne else {
                        closeRun(at: index)
                        runStart = index + 1
                        let before = eventsEnd()
                        passOn(at: index, of: pass, state: state, scope: scope, into: &result)
                        if leavesFollowUps(since: before) { return index + 1 }
                        continue
                    }
                    outcome = applyBatch(at: index, of: pass, state: state, scope: scope)
                case .asyncAction(let action):
                    closeRun(at: index)
                    runStart = index + 1
                    if passesOneByOne {
                        let before = eventsEnd()
                        passOn(at: index, of: pass, state: state, scope: scope, into: &result)
                        if leavesFollowUps(since: before) { return index + 1 }
                    } else {
                        refuse(action, into: &result)
                    }
                    continue
                case .command(let command):
                    if !command.joinsRun(recordingHistory: !historyRecorders.isEmpty) { closeRun(at: index) }
                    let before = eventsEnd()
                    guard
                        let applied = command.handle(
                            &self, at: index, of: pass, state: state, scope: scope, into: &result)
                    else {
                        // It applied no action: the next run starts after it. It may have changed
                        // the middleware, the historyRecorders or the tap.
                        runStart = index + 1
                        passesOneByOne = !middleware.isEmpty || !historyRecorders.isEmpty || tap != nil
                        if leavesFollowUps(since: before) { return index + 1 }
                        continue
                    }
                    outcome = applied
                }
                if scope.hasDeferredRegistrations {
                    for newReducers in scope.takeRegistrations() {
                        reducers.append(contentsOf: newReducers)
                    }
                }
                switch outcome {
                case .committed:
                    result.changes += 1
                    runHasActions = true
                    if scope.releaseDispatches() {
                        closeRun(at: index + 1)
                        followUpCauseHasEvent = true
                        return index + 1
                    }
                    // A replayed action commits in a run even when actions pass on one by one.
                    if tap != nil { closeRun(at: index + 1) }
                case .failed(let error, let replayFailures, let site):
                    scope.discardDispatches()
                    closeRun(at: index)
                    runStart = index + 1
                    for failure in replayFailures {
                        // The state no longer holds an action that had committed: a new version.
                        result.changes += 1
                        result.events.append(.failed(failure.action, failure.error, site: failure.site))
                        tap?(failure.action, failure.error, state)
                    }
                    result.events.append(.failed(entries[index].announcedAction, error, site: site))
                    tap?(entries[index].announcedAction, error, state)
                }
            }
            return nil
        }
        guard stop == nil else { return stop }
        closeRun(at: pass.count)
        return nil
    }

    /// Adds a value observer; past the threshold, first drops the ended ones.
    mutating func keep(_ watcher: any StateWatcher) {
        if watchers.count >= sweepThreshold {
            watchers.removeAll { $0.hasEnded() }
            sweepThreshold = max(64, watchers.count * 2)
        }
        watchers.append(watcher)
    }

    /// Lets every value observer select from the changed state, and drops the cancelled ones.
    private mutating func select(from state: StatePointer, scope: StoreCodeScope) {
        // A selector cannot reach the pipeline: an observer it registers is queued like a dispatch.
        Self.selecting(scope) { watchers.removeAll { !$0.select(from: state) } }
    }

    /// Ends every value observer, when the store is freed: no value will come any more.
    func endWatchers() {
        for watcher in watchers { watcher.storeDidEnd() }
    }

    /// Runs selectors as the holder of the state, outside any reducer: a selector that reads a
    /// store gets its published snapshot without waiting, and one that dispatches queues normally.
    static func selecting(_ scope: StoreCodeScope, _ body: () -> Void) {
        scope.selecting.install(body)
    }

    /// Runs every reducer on `action`, which is `pass[index]`, in registration order.
    /// - Parameter scope: Marked as replaying while a rollback re-applies actions, so that
    ///   re-entrant dispatches and registrations are not made twice.
    @inline(__always)
    mutating func apply(
        _ action: any ActionProtocol, at index: Int, of pass: [QueueEntry], state: StatePointer,
        scope: StoreCodeScope?
    ) -> ReductionOutcome {
        do {
            // Through the buffer, each reducer is called without retaining and releasing it.
            try reducers.withUnsafeBufferPointer { reducers in
                for index in reducers.indices { try reducers[index](state, action) }
            }
        } catch {
            return .failed(
                error, replayFailures: restoreCheckpointAndReplay(state: state, scope: scope),
                site: .action)
        }
        logCommitted(at: index, of: pass, state: state)
        return .committed
    }

    /// Runs every reducer on each action of the batch that is `pass[index]`, in order, as one
    /// unit: if any reducer throws on any of them, the state is rebuilt as for one action.
    mutating func applyBatch(
        at index: Int, of pass: [QueueEntry], state: StatePointer, scope: StoreCodeScope?
    ) -> ReductionOutcome {
        if case .batch(let actions) = pass[index], actionTypes.holdsAsyncAction(actions) {
            var asyncActions: [any AsyncActionStarting] = []
            var otherActions = 0
            _ = actions.takingOutAsyncActions(into: &asyncActions, counting: &otherActions)
            return refuse(asyncActions)
        }
        do {
            try reducers.withUnsafeBufferPointer { reducers in
                try Self.run(reducers, upTo: reducers.count, on: pass[index], state: state)
            }
        } catch {
            let (error, site) = FailureSite.unwrapping(error)
            return .failed(
                error, replayFailures: restoreCheckpointAndReplay(state: state, scope: scope), site: site)
        }
        logCommitted(at: index, of: pass, state: state)
        return .committed
    }

    /// Applies an action an ``ActionLog`` replays with the reducers alone, and drops what they
    /// dispatch: the replay list holds what those dispatches committed.
    mutating func replay(
        _ action: any ActionProtocol, at index: Int, of pass: [QueueEntry], state: StatePointer,
        scope: StoreCodeScope
    ) -> ReductionOutcome {
        let outcome =
            ActionBatch.of(action) == nil
            ? apply(action, at: index, of: pass, state: state, scope: scope)
            : applyBatch(at: index, of: pass, state: state, scope: scope)
        scope.discardDispatches()
        return outcome
    }

    /// Fails an async action that reached the reducers (see ``refuse(_:)``), and announces it.
    func refuse(_ action: any ActionProtocol, into result: inout ReducedPass) {
        guard let work = action as? any AsyncActionStarting else {
            preconditionFailure("an entry for an async action holds another action")
        }
        // Never with a tap, which makes every action pass on one by one.
        if case .failed(let error, _, _) = refuse([work]) { result.events.append(.failed(action, error)) }
    }

    /// Fails an action or batch that holds async actions no middleware ran, without reducing it:
    /// they could never run, so they end (their `finished()` returns) and the failure names the
    /// first.
    func refuse(_ asyncActions: [any AsyncActionStarting]) -> ReductionOutcome {
        for work in asyncActions { work.endWithoutRunning() }
        let identifier = asyncActions.first?.identifier ?? "AsyncAction"
        return .failed(
            AsyncActionError(.noAsyncActionsMiddleware, identifier: identifier), replayFailures: [],
            site: asyncActions.first.map { .inBatch($0) } ?? .action)
    }

    /// Applies the first `count` reducers to an entry's action, or to each action of its batch.
    /// A history re-applies its entries with this too.
    static func run(
        _ reducers: UnsafeBufferPointer<ErasedReducer>, upTo count: Int, on entry: QueueEntry,
        state: StatePointer
    ) throws {
        switch entry {
        case .action(let action):
            for index in 0..<count { try reducers[index](state, action) }
        case .batch(let batch):
            try run(reducers, upTo: count, onEachActionOf: batch, state: state)
        case .command(let command):
            try command.reapply(reducers, upTo: count, state: state)
        case .asyncAction:
            break
        }
    }

    /// Applies the first `count` reducers to each action of `batch` in order, expanding the
    /// batches it holds at any depth: reducers never see an ``ActionBatch``. Nested batches are
    /// expanded with a stack of positions, not recursion, so that no depth overflows the stack.
    static func run(
        _ reducers: UnsafeBufferPointer<ErasedReducer>, upTo count: Int, onEachActionOf batch: ActionBatch,
        state: StatePointer
    ) throws {
        let actions = batch.actions
        var position = 0
        // A flat batch, or the flat start of one, needs no stack.
        while position < actions.count, ActionBatch.of(actions[position]) == nil {
            do {
                for index in 0..<count { try reducers[index](state, actions[position]) }
            } catch {
                throw FailedInBatch(action: actions[position], error: error)
            }
            position += 1
        }
        guard position < actions.count else { return }
        var pending: [(actions: [any ActionProtocol], next: Int)] = [(actions, position)]
        while let top = pending.indices.last {
            let (level, next) = pending[top]
            guard next < level.count else {
                pending.removeLast()
                continue
            }
            pending[top].next = next + 1
            let action = level[next]
            if let nested = ActionBatch.of(action) {
                pending.append((nested.actions, 0))
                continue
            }
            do {
                for index in 0..<count { try reducers[index](state, action) }
            } catch {
                throw FailedInBatch(action: action, error: error)
            }
        }
    }

    /// Extends the last run of the replay list when this action directly follows it in the same pass and was
    /// seen by the same reducers; otherwise starts a new run. Runs never span a failed action.
    @inline(__always)
    private mutating func logCommitted(
        at index: Int, of pass: [QueueEntry], state: StatePointer
    ) {
        actionsToReplay += 1
        if !historyRecorders.isEmpty { tellHistoryRecorders(committed: pass[index], state: state) }
        if let last = replayList.indices.last, replayList[last].reducerCount == reducers.count,
            replayList[last].range.upperBound == index, replayList[last].entries.isSameBuffer(as: pass)
        {
            replayList[last].range = replayList[last].range.lowerBound..<(index + 1)
        } else {
            replayList.append(
                ReplayRun(entries: pass, range: index..<(index + 1), reducerCount: reducers.count))
        }
        if actionsToReplay >= checkpointInterval {
            checkpoints.take(state)
            clearReplayList()
        }
    }

    /// Tells the historyRecorders that `entry` committed, with the reducers that saw it.
    private func tellHistoryRecorders(committed entry: QueueEntry, state: StatePointer) {
        for recorder in historyRecorders { recorder.committed(entry, reducers: reducers, state: state) }
    }

    /// Tells the historyRecorders that the pipeline is done with a dispatched action.
    func tellHistoryRecordersFinished(_ action: any ActionProtocol) {
        for recorder in historyRecorders { recorder.finished(action) }
    }

    /// Tells the historyRecorders that the state changed in a way re-applying what they kept does not
    /// give; all but `mover`, which made the change itself.
    func tellHistoryRecordersDiverged(state: StatePointer, except mover: (any AnyHistoryRecorder)? = nil) {
        for recorder in historyRecorders where recorder !== mover { recorder.diverged(state: state) }
    }

    /// Lets the first history recorder move the state to another step, in place of the reducers:
    /// the new state is one committed change, the base of later rollbacks, announced with `move`.
    mutating func move(
        _ move: HistoryAction, state: StatePointer, scope: StoreCodeScope, into result: inout ReducedPass
    ) -> DispatchOutcome {
        let mover = historyRecorders[0]
        do {
            guard try mover.move(move, state: state, scope: scope) else { return .dropped }
        } catch {
            result.events.append(.failed(move, error))
            tap?(move, error, state)
            return .failed(error)
        }
        checkpoints.take(state)
        clearReplayList()
        tellHistoryRecordersDiverged(state: state, except: mover)
        announceMove(move, state: state, scope: scope, into: &result)
        return .committed
    }

    /// Tells the historyRecorders that the entry they heard of last was undone.
    func tellHistoryRecordersRetracted(state: StatePointer) {
        for recorder in historyRecorders { recorder.retractLast(state: state) }
    }

    /// Stops the replay list from keeping a large pass alive for the few actions it may replay: a run
    /// that covers less than half of its pass is copied out. This costs at most
    /// `checkpointInterval` copies per pass, and keeps memory after a burst at O(interval). Only the
    /// runs of the current pass are looked at: a pass of one action looks at one run, not at every
    /// run since the checkpoint.
    private mutating func releaseBatch(_ pass: [QueueEntry]) {
        for position in min(passRunsStart, replayList.count)..<replayList.count
        where replayList[position].entries.isSameBuffer(as: pass) {
            let run = replayList[position]
            guard run.range.count * 2 < run.entries.count else { continue }
            replayList[position] = ReplayRun(
                entries: Array(run.entries[run.range]), range: 0..<run.range.count,
                reducerCount: run.reducerCount)
        }
    }

    /// Rebuilds the state from the checkpoint and the replay list. A listed action that throws on replay
    /// is removed from the replay list and the replay starts over, so this ends after at most
    /// `actionsToReplay` restarts.
    private mutating func restoreCheckpointAndReplay(
        state: StatePointer, scope: StoreCodeScope?
    ) -> [ReplayFailure] {
        let wasReplaying = scope?.isReplaying ?? false
        scope?.isReplaying = true
        defer { scope?.isReplaying = wasReplaying }
        var failures: [ReplayFailure] = []
        while let failure = replayLog(state: state) {
            failures.append(failure)
        }
        if !failures.isEmpty { tellHistoryRecordersDiverged(state: state) }
        return failures
    }

    /// Re-applies the replay list to the checkpoint. If a listed action throws, removes it from the replay list and
    /// returns it with the error; the state must then be rebuilt again.
    private mutating func replayLog(state: StatePointer) -> ReplayFailure? {
        checkpoints.restore(state)
        for (position, run) in replayList.enumerated() {
            for index in run.range {
                let entry = run.entries[index]
                do {
                    try reducers.withUnsafeBufferPointer { reducers in
                        try Self.run(reducers, upTo: run.reducerCount, on: entry, state: state)
                    }
                } catch {
                    dropLogged(index, inRunAt: position)
                    let (error, site) = FailureSite.unwrapping(error)
                    return (entry.announcedAction, error, site)
                }
            }
        }
        return nil
    }

    /// Removes one action from the replay list by splitting its run around it.
    private mutating func dropLogged(_ index: Int, inRunAt position: Int) {
        let run = replayList[position]
        let pieces = [run.range.lowerBound..<index, (index + 1)..<run.range.upperBound]
            .filter { !$0.isEmpty }
            .map { ReplayRun(entries: run.entries, range: $0, reducerCount: run.reducerCount) }
        replayList.replaceSubrange(position...position, with: pieces)
        if position < passRunsStart { passRunsStart = position }
        actionsToReplay -= 1
    }
}

extension Array {
    /// Whether both arrays share one storage buffer (so indices of one address the other).
    fileprivate func isSameBuffer(as other: Self) -> Bool {
        withUnsafeBufferPointer { mine in other.withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress }
        }
    }
}

/// Action types found not to be ``AsyncAction``s, so that telling an async action apart costs a
/// cast once per type rather than once per action.
///
/// An async action that reaches the reducers never runs, and the store reports it. A type is cast
/// once and then recognized by its metadata: the type seen last with one comparison, the others
/// seen before by a short scan. Each store keeps one under its lock, for dispatches from outside
/// (which know their type statically), and the holder of its state keeps others, for what store
/// code dispatches and what reaches the reducers in a batch or from a middleware.
struct ActionTypes {
    /// The type found plain last; `Never`, which no action is, until then.
    private var last = ObjectIdentifier(Never.self)
    /// The types found plain so far, up to `limit`; a type past it is cast each time.
    private var plain: [ObjectIdentifier] = []
    private static var limit: Int { 64 }

    /// Whether an action dispatched as `type` is an async action.
    @inline(__always)
    mutating func isAsyncAction(_ action: any ActionProtocol, dispatchedAs type: ObjectIdentifier) -> Bool {
        type == last ? false : classify(action, type)
    }

    /// Whether `action` is an async action; reads its type from the existential.
    mutating func isAsyncAction(_ action: any ActionProtocol) -> Bool {
        isAsyncAction(action, dispatchedAs: Self.storedType(of: action))
    }

    /// The type the existential `action` holds, read from its container without the runtime call
    /// `type(of:)` makes to look for a subclass: a class and its subclasses are each cached on
    /// their own, so none is needed.
    @inline(__always)
    private static func storedType<Action: ActionProtocol>(of _: Action) -> ObjectIdentifier {
        ObjectIdentifier(Action.self)
    }

    @inline(never)
    private mutating func classify(_ action: any ActionProtocol, _ type: ObjectIdentifier) -> Bool {
        if plain.contains(type) {
            last = type
            return false
        }
        if action is any AsyncActionStarting { return true }
        if plain.count < Self.limit { plain.append(type) }
        last = type
        return false
    }

    /// Makes `entry`, an action dispatched as `type`, ``QueueEntry/asyncAction(_:)`` if it holds
    /// an async action. In place, so that a plain action's entry is not copied.
    @inline(__always)
    mutating func mark(_ entry: inout QueueEntry, dispatchedAs type: ObjectIdentifier) {
        if type != last { markIfAsync(&entry, type) }
    }

    @inline(never)
    private mutating func markIfAsync(_ entry: inout QueueEntry, _ type: ObjectIdentifier) {
        guard case .action(let action) = entry, classify(action, type) else { return }
        entry = .asyncAction(action)
    }

    /// Whether `batch` holds an async action, at any depth.
    mutating func holdsAsyncAction(_ batch: ActionBatch) -> Bool {
        var levels = [batch.actions[...]]
        while var level = levels.popLast() {
            while let action = level.popFirst() {
                if let nested = ActionBatch.of(action) {
                    levels.append(level)
                    levels.append(nested.actions[...])
                    break
                }
                if isAsyncAction(action) { return true }
            }
        }
        return false
    }
}

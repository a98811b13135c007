/// Applies actions to the live state in place, and restores it exactly when a reducer throws.
///
/// Plain synchronous code: the store's ``StoreKernel`` runs it on whichever thread holds the state
/// (see `StoreMachine.Holder`), through ``AnyLiveState``, which names no generic parameter.
///
/// **Cost.** The common path runs each reducer once on the state itself, so an action costs the
/// reducers' own work plus a few counter updates. Nothing holds a second reference to the state
/// while reducers run, so Swift's copy-on-write never copies it per action, and nothing copies
/// the action either: the replay list and the notifications refer to runs of the pass's array. The
/// per-action work lives in the non-generic ``ReductionPipeline``; this type only holds the state.
///
/// **Rollback.** The live state keeps a *checkpoint* (the state at some committed version, sharing
/// storage with it) and the replay list of actions committed since. When a reducer throws, the state is
/// rebuilt from the checkpoint by re-applying the listed actions, which is the extra cost a
/// failure pays. A checkpoint is taken whenever a snapshot is published (so rollback never
/// re-applies an action across a state a reader has seen) and every `checkpointInterval` actions
/// (which bounds the replay list). Taking a checkpoint makes the next mutation copy the
/// storage it touches, once.
///
/// **Holding.** Only the current holder of the live state touches the state, its checkpoint and
/// the middleware call objects. Debug builds check it: once a kernel runs the live state, every entry
/// point asserts that the calling thread has this live state installed as its own (see
/// ``StoreCodeScope/heldLiveState``), and the state's address is handed out only as a
/// ``StatePointer``, which checks its type and its scope.
final class LiveState<State: StateProtocol>: AnyLiveState, @unchecked Sendable {
    // `@unchecked Sendable`: every property below is read and written only by the current holder of
    // the live state; the state changes hands under the kernel's mutex, which orders every access.
    // Unchecked exclusivity for the same reason: the holder is one thread at a time.

    @exclusivity(unchecked) private var pipeline: ReductionPipeline
    /// The live state.
    @exclusivity(unchecked) private(set) var state: State
    private let checkpoint: CheckpointBox<State>
    /// Turns snapshots of the state into JSON; used only by the holder, like the state.
    private let encoder: SnapshotEncoder
    /// Set once a kernel runs this live state: from then on, debug builds check who holds the state.
    @exclusivity(unchecked) var checksHolder = false

    init(
        state: State, reducers: [Reducer<State>], middleware: [Middleware<State>] = [],
        encoder: SnapshotEncoder = SnapshotCoder.makeEncoder(), checkpointInterval: Int = 4096
    ) {
        let checkpoint = CheckpointBox(state)
        self.checkpoint = checkpoint
        self.state = state
        self.encoder = encoder
        pipeline = ReductionPipeline(
            reducers: Self.erase(reducers), checkpointInterval: checkpointInterval,
            checkpoints: StateOperations(
                take: { checkpoint.value = $0.assuming(State.self).pointee },
                restore: { $0.assuming(State.self).pointee = checkpoint.value },
                encode: { SnapshotCoder.encode($0.assuming(State.self).pointee, version: 0, with: encoder) }))
        // The store's own middleware: no registration can remove them.
        pipeline.register(middleware: middleware.map(\.erased), key: nil)
    }

    /// The store is freed, and nothing else uses the live state: its value observers end, so that a
    /// `values(of:)` loop over a freed store finishes instead of waiting forever.
    deinit {
        pipeline.endWatchers()
    }

    /// Erases one registration's reducers into a single closure that applies them in order.
    ///
    /// One erased call per registration per action, and inside it each reducer is called straight
    /// from the array: taking a reducer out of the array into a closure of its own would add a
    /// reabstraction thunk to every call.
    static func erase(_ reducers: [Reducer<State>]) -> [ErasedReducer] {
        guard !reducers.isEmpty else { return [] }
        return [
            { pointer, action in
                let state = pointer.assuming(State.self)
                try reducers.withUnsafeBufferPointer { reducers in
                    for index in reducers.indices { try reducers[index](&state.pointee, action) }
                }
            }
        ]
    }

    /// The middleware in the chain now (tests use this).
    var middlewareCount: Int {
        assertOwned()
        return pipeline.middleware.count
    }

    /// The number of committed actions a rollback would re-apply right now.
    var actionsSinceCheckpoint: Int { pipeline.actionsToReplay }

    /// How many follow-ups one pass handles before the store warns that store code may be
    /// dispatching in an endless loop. Tests lower it before the store reduces anything; the
    /// store's mutex orders that write before the drainer reads it.
    var followUpWarningThreshold: Int {
        get { pipeline.followUpWarningThreshold }
        set { pipeline.followUpWarningThreshold = newValue }
    }

    /// Appends reducers; they see every action applied after this call (tests use this; a store
    /// queues a registration, which the pipeline applies in order).
    func register(_ newReducers: [Reducer<State>]) {
        assertOwned()
        pipeline.register(Self.erase(newReducers))
    }

    /// Whether the changes of the next passes may be heard as notifications (see
    /// ``ReductionPipeline/announcesChanges``); the holder of the state sets it before a pass.
    var announcesChanges: Bool {
        get { pipeline.announcesChanges }
        set { pipeline.announcesChanges = newValue }
    }

    /// Reduces a pass of queued entries in order; see ``ReductionPipeline/reduce(_:state:scope:)``.
    func reduce(_ pass: [QueueEntry], scope: StoreCodeScope) -> ReducedPass {
        assertOwned()
        return StatePointer.with(&state) { pipeline.reduce(pass, state: $0, scope: scope) }
    }

    /// Applies one action (or batch) on its own (tests use this).
    func apply(_ action: any ActionProtocol, scope: StoreCodeScope?) -> ReductionOutcome {
        assertOwned()
        return StatePointer.with(&state) { state in
            switch QueueEntry.entry(for: action) {
            case .batch(let batch):
                return pipeline.applyBatch(at: 0, of: [.batch(batch)], state: state, scope: scope)
            default:
                return pipeline.apply(action, at: 0, of: [.action(action)], state: state, scope: scope)
            }
        }
    }

    /// Encodes the live state as the snapshot of `version`, and makes it the rollback base:
    /// readers can now see this version, so rollbacks must never re-apply actions across it.
    ///
    /// The base is taken first: encoding does not change the state, and the previous base, which
    /// holds the storage the last actions copied (a large array, say), is then freed before the
    /// encoder builds its tree instead of after.
    func encodeState(version: UInt64) -> Snapshot {
        assertOwned()
        takeCheckpoint()
        return SnapshotCoder.encode(state, version: version, with: encoder)
    }

    /// Makes the current state the rollback base.
    func takeCheckpoint() {
        assertOwned()
        checkpoint.value = state
        pipeline.clearReplayList()
    }

    /// Debug builds: stops the program if the calling thread does not own the live state.
    @inline(__always)
    private func assertOwned() {
        #if DEBUG
        if checksHolder {
            precondition(
                StoreCodeScope.current?.heldLiveState === self,
                "a store's state was touched by a thread that does not hold it")
        }
        #endif
    }
}

/// A store's live state with its `State` erased, so that the non-generic ``StoreKernel``
/// runs it with concrete calls.
protocol AnyLiveState: AnyObject, Sendable {
    /// Whether debug builds check that only the holder of the state touches the live state.
    var checksHolder: Bool { get set }
    /// Whether the changes of the next passes may be heard as notifications; set by the holder of
    /// the live state before a pass.
    var announcesChanges: Bool { get set }
    /// Reduces a pass of queued entries in order, as the holder of the live state.
    func reduce(_ pass: [QueueEntry], scope: StoreCodeScope) -> ReducedPass
    /// Encodes the live state as the snapshot of `version`, as its holder.
    func encodeState(version: UInt64) -> Snapshot
}

/// The checkpoint, in a box that the pipeline's erased checkpoint operations share.
///
/// Only the holder of the store's state touches it, like the state itself.
final class CheckpointBox<State> {
    var value: State

    init(_ value: State) {
        self.value = value
    }
}

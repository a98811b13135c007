/// One entry the store's reducers committed, as a history keeps it to apply again.
struct HistoryRecord {
    /// The entry: an action, or a batch (a transaction is kept as the batch it applied).
    var entry: QueueEntry
    /// The reducers that saw it; reducers registered later never see it again.
    var reducers: [ErasedReducer]
    /// The step the entry belongs to: `0` for an entry that made no step (a non-step action, a
    /// transaction), which every state re-applies, and `-1` for a forgotten one, which none does.
    var owner: Int

    static let forgotten = -1
    static let noStep = 0
}

/// The state before the record at `index`, kept whole; it shares storage with the states around
/// it, so it holds its own copy only of the storage changed since.
struct HistoryCheckpoint<State> {
    var index: Int
    let state: State
}

/// A step after step 0: the records its action committed start at `firstRecord`.
struct HistoryStep {
    let id: Int
    var firstRecord: Int
}

/// The bookkeeping of a history, without the live state: what the reducers committed since
/// recording started, in order, which of it each step owns, and copies of the state to re-apply
/// it from.
///
/// The state at a position is the newest checkpoint before the first change of that position,
/// with every record re-applied whose step is active there (steps `1...position`) or that made no
/// step. Only the history's thread touches it.
struct HistorySteps<State> {
    private(set) var records: [HistoryRecord] = []
    /// Records before `front` are dropped: the first checkpoint holds them.
    private(set) var front = 0
    private(set) var forgottenCount = 0
    private(set) var steps: [HistoryStep] = []
    /// How many of `steps` are active: the store's state is step `position`.
    private(set) var position = 0
    private(set) var checkpoints: [HistoryCheckpoint<State>]
    /// The index of the newest checkpoint: read per action, where the generic array costs more.
    private var lastCheckpointIndex = 0
    /// Whether records or checkpoints may have become unneeded since the front was last dropped.
    private var frontMayMove = false
    private var nextStepID = 1
    /// Records re-applied between checkpoints before a new one is taken; doubles when thinning.
    private(set) var checkpointInterval = HistorySteps.baseInterval

    static var baseInterval: Int { 64 }
    /// The most checkpoints kept: beyond it every second one goes, and the interval doubles.
    static var maximumCheckpoints: Int { 16 }

    init(start state: State) {
        checkpoints = [HistoryCheckpoint(index: 0, state: state)]
    }

    /// Steps kept, step 0 included.
    var stepCount: Int { steps.count + 1 }

    /// The records kept that are still applied somewhere.
    var liveRecordCount: Int { records.count - front - forgottenCount }

    /// The records from the oldest step on: what the actions limit bounds.
    var undoableRecordCount: Int {
        guard let first = steps.first else { return 0 }
        var forgottenBefore = 0
        if forgottenCount > 0 {
            // Short: the first checkpoint is at most one interval before the first step.
            for index in front..<first.firstRecord where records[index].owner == HistoryRecord.forgotten {
                forgottenBefore += 1
            }
        }
        return records.count - first.firstRecord - (forgottenCount - forgottenBefore)
    }

    /// The id below which records are re-applied at `position`.
    func activeLimit(at position: Int) -> Int { position > 0 ? steps[position - 1].id : 0 }

    /// Whether the record at `index` is part of the state at a position whose active limit is `limit`.
    @inline(__always)
    func applies(_ index: Int, activeLimit limit: Int) -> Bool {
        let owner = records[index].owner
        return owner >= 0 && owner <= limit
    }

    // MARK: Recording

    mutating func append(_ entry: QueueEntry, reducers: [ErasedReducer]) {
        records.append(HistoryRecord(entry: entry, reducers: reducers, owner: HistoryRecord.noStep))
    }

    /// Whether the live state, `records.count` records in, should become a checkpoint.
    var wantsCheckpoint: Bool { records.count - lastCheckpointIndex >= checkpointInterval }

    /// Keeps `state`, the state after every record, as a checkpoint.
    mutating func addCheckpoint(_ state: State) {
        checkpoints.append(HistoryCheckpoint(index: records.count, state: state))
        checkpointsChanged()
    }

    /// Thins the checkpoints, and notes the newest one.
    private mutating func checkpointsChanged() {
        thinCheckpoints()
        lastCheckpointIndex = checkpoints[checkpoints.count - 1].index
        frontMayMove = true
    }

    /// Undoes the last `append`: a transaction that did not commit.
    mutating func removeLastRecord() {
        guard records.count > front else { return }
        records.removeLast()
        while checkpoints.count > 1, checkpoints[checkpoints.count - 1].index > records.count {
            checkpoints.removeLast()
        }
        lastCheckpointIndex = checkpoints[checkpoints.count - 1].index
    }

    /// Makes the records from `start` on the newest step, after dropping the redo steps.
    mutating func addStep(from start: Int) {
        dropRedoSteps()
        let id = nextStepID
        nextStepID += 1
        for index in start..<records.count where records[index].owner == HistoryRecord.noStep {
            records[index].owner = id
        }
        steps.append(HistoryStep(id: id, firstRecord: start))
        position = steps.count
    }

    /// Forgets the steps after the current one: their records apply nowhere from now on.
    private mutating func dropRedoSteps() {
        while steps.count > position { forgetStep(at: steps.count - 1) }
    }

    /// Forgets the step at `index` of `steps`; the store's state must not depend on it.
    mutating func forgetStep(at index: Int) {
        let step = steps[index]
        let end = index + 1 < steps.count ? steps[index + 1].firstRecord : records.count
        for record in step.firstRecord..<end where records[record].owner == step.id {
            records[record] = HistoryRecord(
                entry: .command(RegisterReducers(reducers: [])), reducers: [], owner: HistoryRecord.forgotten)
            forgottenCount += 1
        }
        steps.remove(at: index)
        if index < position { position -= 1 }
        frontMayMove = true
    }

    // MARK: Limits

    /// Drops the oldest steps beyond `limit` (the newest redo steps when every step is undone),
    /// then the records and checkpoints no state needs any more.
    mutating func enforce(_ limit: HistoryLimit) {
        while steps.count > limit.steps - 1 || undoableRecordCount > limit.actions {
            if position > 0 {
                foldOldestStep()
            } else {
                forgetStep(at: steps.count - 1)
            }
        }
        if frontMayMove { dropUnneededFront() }
    }

    /// Makes the oldest step part of every state: its records no longer belong to a step.
    private mutating func foldOldestStep() {
        let step = steps[0]
        let end = steps.count > 1 ? steps[1].firstRecord : records.count
        for index in step.firstRecord..<end where records[index].owner == step.id {
            records[index].owner = HistoryRecord.noStep
        }
        steps.removeFirst()
        position -= 1
        frontMayMove = true
    }

    /// Drops the checkpoints before the newest one that precedes every step, and the records
    /// before that one; compacts the records when more than half of them are dropped.
    private mutating func dropUnneededFront() {
        frontMayMove = false
        let firstNeeded = steps.first?.firstRecord ?? records.count
        var keep = 0
        while keep + 1 < checkpoints.count, checkpoints[keep + 1].index <= firstNeeded { keep += 1 }
        if keep > 0 { checkpoints.removeFirst(keep) }
        // Thinned when the steps spanned many records; once they span few again, as often as before.
        while checkpointInterval > Self.baseInterval, checkpoints.count * 4 <= Self.maximumCheckpoints {
            checkpointInterval /= 2
        }
        let newFront = checkpoints[0].index
        if newFront > front {
            for index in front..<newFront {
                if records[index].owner == HistoryRecord.forgotten { forgottenCount -= 1 }
                records[index] = HistoryRecord(
                    entry: .command(RegisterReducers(reducers: [])), reducers: [],
                    owner: HistoryRecord.forgotten)
            }
            front = newFront
        }
        if front + forgottenCount > 1_024, front + forgottenCount > records.count / 2 { compact() }
    }

    /// Removes dropped and forgotten records, renumbering what refers to positions in `records`.
    private mutating func compact() {
        var newIndex = [Int](repeating: 0, count: records.count + 1)
        var kept: [HistoryRecord] = []
        kept.reserveCapacity(liveRecordCount)
        for index in records.indices {
            newIndex[index] = kept.count
            if index >= front, records[index].owner != HistoryRecord.forgotten { kept.append(records[index]) }
        }
        newIndex[records.count] = kept.count
        records = kept
        for index in steps.indices { steps[index].firstRecord = newIndex[steps[index].firstRecord] }
        for index in checkpoints.indices { checkpoints[index].index = newIndex[checkpoints[index].index] }
        lastCheckpointIndex = checkpoints[checkpoints.count - 1].index
        front = 0
        forgottenCount = 0
    }

    /// Keeps at most `maximumCheckpoints`: drops every second one but the first and the last, and
    /// takes them half as often from then on. The first one holds every dropped record.
    private mutating func thinCheckpoints() {
        guard checkpoints.count > Self.maximumCheckpoints else { return }
        let last = checkpoints.count - 1
        checkpoints = checkpoints.enumerated().filter {
            $0.offset == 0 || $0.offset == last || $0.offset % 2 == 0
        }
        .map(\.element)
        checkpointInterval *= 2
    }

    // MARK: Moving

    /// The checkpoint a move to `target` starts from: the newest one before the first record whose
    /// step changes between the current position and `target`.
    func base(for target: Int) -> Int {
        let firstChanged = steps[min(position, target)].firstRecord
        var chosen = 0
        while chosen + 1 < checkpoints.count, checkpoints[chosen + 1].index <= firstChanged { chosen += 1 }
        return chosen
    }

    /// Makes `target` the position, with `newCheckpoints` rebuilt for it after checkpoint `base`.
    mutating func move(to target: Int, base: Int, newCheckpoints: [HistoryCheckpoint<State>]) {
        checkpoints.removeSubrange((base + 1)...)
        checkpoints.append(contentsOf: newCheckpoints)
        checkpointsChanged()
        position = target
    }

    /// Forgets the step being undone, whose state equals the one before it; the checkpoints
    /// rebuilt without it after checkpoint `base` replace the ones that held it.
    mutating func forgetUndoneStep(base: Int, newCheckpoints: [HistoryCheckpoint<State>]) {
        checkpoints.removeSubrange((base + 1)...)
        checkpoints.append(contentsOf: newCheckpoints)
        checkpointsChanged()
        forgetStep(at: position - 1)
    }

    /// Forgets the step a redo would apply, which changes nothing here.
    mutating func forgetRedoneStep() {
        forgetStep(at: position)
    }
}

import Foundation
import ReduxSwift

/// One dispatching thread of a stress run: each step picks an operation among the enabled
/// features, performs it, and records what the stores must commit because of it.
struct StressWorker {
    let run: StressRun
    let index: Int
    private var random: StressRandom
    private var seq = 0
    /// Set while a transaction is being put together: its actions form their own ordered stream.
    private var isComposingTransaction = false
    private let operations: [(weight: Int, name: String, body: (inout StressWorker) -> Void)]

    init(run: StressRun, index: Int, seed: UInt64) {
        self.run = run
        self.index = index
        random = StressRandom(seed: seed, stream: UInt64(index) + 1)
        let features = run.features
        var operations: [(Int, String, (inout StressWorker) -> Void)] = [
            (10, "dispatch", { $0.dispatchPlain() }),
            (2, "dispatch a failing action", { $0.dispatchFailing() }),
            (2, "read", { $0.read() }),
        ]
        if features.contains(.batches) {
            operations.append((3, "dispatch(batch:)", { $0.dispatchBatch(nested: false) }))
        }
        if features.contains(.nestedBatches) {
            operations.append((3, "dispatch(batch:) with nested batches", { $0.dispatchBatch(nested: true) }))
        }
        if features.contains(.middleware) {
            operations.append((4, "dispatch through middleware", { $0.dispatchThroughMiddleware() }))
        }
        if features.contains(.relays) {
            operations.append((1, "dispatch a relaying action", { $0.dispatchRelaying() }))
        }
        if features.contains(.asyncActions) {
            operations.append((2, "dispatch async actions", { $0.dispatchAsync() }))
        }
        if features.contains(.locks) { operations.append((1, "overlapping locks", { $0.overlapLocks() })) }
        if features.contains(.transactions) {
            operations.append((2, "commit a transaction", { $0.commitTransaction() }))
        }
        if features.contains(.history) {
            operations.append((2, "move through history", { $0.moveThroughHistory() }))
        }
        if features.contains(.recordings) { operations.append((1, "record", { $0.record() })) }
        self.operations = operations
    }

    mutating func step() {
        let total = operations.reduce(0) { $0 + $1.weight }
        var pick = Int.random(in: 0..<total, using: &random)
        for operation in operations {
            if pick < operation.weight {
                run.status.set(index, operation.name)
                operation.body(&self)
                return
            }
            pick -= operation.weight
        }
    }

    // MARK: Helpers

    private mutating func bump(_ kind: Bump.Kind = .plain, _ channel: Bump.Channel = .ordered) -> Bump {
        seq += 1
        let channel = channel == .ordered && isComposingTransaction ? .transaction : channel
        return Bump(origin: index, seq: seq, kind: kind, channel: channel)
    }

    private mutating func anyStore() -> Int {
        Int.random(in: 0..<3, using: &random)
    }

    private mutating func bumps(_ count: Int) -> [Bump] {
        (0..<count).map { _ in bump() }
    }

    /// A batch of 1 to 4 plain actions, nested up to `depth` levels; its flat actions in `flat`.
    private mutating func batchActions(depth: Int, flat: inout [Bump]) -> [any ActionProtocol] {
        var actions: [any ActionProtocol] = []
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            if depth > 0 && random.chance(0.4) {
                actions.append(ActionBatch(batchActions(depth: depth - 1, flat: &flat)))
            } else {
                let action = bump()
                flat.append(action)
                actions.append(action)
            }
        }
        return actions
    }

    // MARK: Operations

    private mutating func dispatchPlain() {
        let store = anyStore()
        let action = bump()
        run.stores[store].dispatch(action)
        run.expected[store].expect(action)
    }

    private mutating func dispatchFailing() {
        let store = anyStore()
        run.stores[store].dispatch(bump(.fail))
    }

    private mutating func read() {
        let store = anyStore()
        let state = run.stores[store].currentState()
        if state.total >= failedActionMark {
            run.violations.record(
                "reads", "a read of store \(store) saw the partial change of a failed action")
        }
    }

    private mutating func dispatchBatch(nested: Bool) {
        let store = anyStore()
        var flat: [Bump] = []
        var actions = batchActions(depth: nested ? 3 : 0, flat: &flat)
        if nested && !actions.contains(where: { $0 is ActionBatch }) {
            actions.append(ActionBatch(batchActions(depth: 1, flat: &flat)))
        }
        let fails = random.chance(0.2)
        if fails {
            // Anywhere in the batch, at any depth: the whole batch rolls back.
            let failing = bump(.fail)
            if nested {
                actions.insert(ActionBatch([bump(), ActionBatch([failing])]), at: 0)
            } else {
                actions.insert(failing, at: Int.random(in: 0...actions.count, using: &random))
            }
        }
        run.stores[store].dispatch(batch: actions)
        if !fails { run.expected[store].expect(flat) }
    }

    private mutating func dispatchThroughMiddleware() {
        let store = anyStore()
        switch Int.random(in: 0..<3, using: &random) {
        case 0:
            run.stores[store].dispatch(bump(.drop, .unordered))
        case 1:
            let action = bump(.transformMe)
            run.stores[store].dispatch(action)
            var transformed = action
            transformed.kind = .transformed
            run.expected[store].expect(transformed)
        default:
            let action = bump(.later, .unordered)
            run.stores[store].dispatch(action)
            run.expected[store].expect(action)
        }
    }

    private mutating func dispatchRelaying() {
        let store = anyStore()
        let action = bump(.relay)
        run.stores[store].dispatch(action)
        run.expected[store].expect(action)
    }

    /// An async action whose work dispatches one action; tracked until `finished()` returns.
    private mutating func asyncAction(_ place: String, store: Int) -> (AsyncAction<StressState, Void>, Bump) {
        let result = bump(.async, .unordered)
        let action = AsyncAction<StressState, Void>("stress.async.\(place)") { context in
            context.dispatch(result)
        }
        run.asyncStarted.append(place)
        let finished = run.asyncFinished
        Task {
            await action.finished()
            finished.append(place)
        }
        return (action, result)
    }

    private mutating func dispatchAsync() {
        let store = anyStore()
        if random.chance(0.5) {
            let (action, result) = asyncAction("alone", store: store)
            run.stores[store].dispatch(action)
            run.expected[store].expect(result)
        } else {
            // An async action inside a batch runs like one dispatched alone; the reducers see only
            // the batch's other actions.
            let before = bump()
            let (action, result) = asyncAction("in a batch", store: store)
            let after = bump()
            run.stores[store].dispatch(batch: [before, action, after])
            run.expected[store].expect([before, after, result])
        }
    }

    /// `a = lock(); dispatch(x); b = lock(); a.release()`: x was dispatched before b was taken, so
    /// it is reduced while b is held. One such sequence per store at a time (two threads each
    /// waiting for their own action under a lock could legitimately hold each other's).
    private mutating func overlapLocks() {
        let storeIndex = anyStore()
        let gate = run.lockGates[storeIndex]
        guard gate.try() else { return }
        defer { gate.unlock() }
        let store = run.stores[storeIndex]
        let first: DispatchLock
        if random.chance(0.5) {
            first = store.lock("stress.a")
        } else {
            let performed = bump(.locked, .unordered)
            first = store.lock("stress.a", performing: performed)
            run.expected[storeIndex].expect(performed)
        }
        let passed = bump(.locked, .unordered)
        first.dispatch(passed)
        run.expected[storeIndex].expect(passed)
        let held = bump()
        store.dispatch(held)
        run.expected[storeIndex].expect(held)
        let second = store.lock("stress.b")
        do {
            try first.release()
        } catch {
            run.violations.record("locks", "the first release of a lock threw \(error)")
        }
        do {
            try first.release()
            run.violations.record("locks", "a second release of a lock did not throw")
        } catch {}
        let passing = bump(.locked, .unordered)
        second.dispatch(passing)
        run.expected[storeIndex].expect(passing)
        if !run.logs[storeIndex].wait(forAll: [held.id], timeout: 5) {
            run.violations.record(
                "locks",
                "store \(storeIndex): an action dispatched before lock b was taken was not reduced within 5 s of "
                    + "releasing lock a (held by the later lock b)")
        }
        do {
            try second.release()
        } catch {
            run.violations.record("locks", "releasing lock b threw \(error)")
        }
    }

    private mutating func commitTransaction() {
        isComposingTransaction = true
        defer { isComposingTransaction = false }
        var order = [0, 1, 2].shuffled(using: &random)
        if random.chance(0.5) { order.removeLast() }
        var transaction = StoreTransaction()
        var parts: [(store: Int, bumps: [Bump])] = []
        let failingStore = random.chance(0.2) ? order.randomElement(using: &random) : nil
        var asyncPart: (store: Int, action: AsyncAction<StressState, Void>, result: Bump)?
        for store in order {
            var flat: [Bump] = []
            if run.features.contains(.nestedBatches) && random.chance(0.5) {
                transaction.add(ActionBatch(batchActions(depth: 2, flat: &flat)), to: run.stores[store])
            }
            let action = bump()
            flat.append(action)
            transaction.add(action, to: run.stores[store])
            if store == failingStore { transaction.add(bump(.fail), to: run.stores[store]) }
            if run.features.contains(.asyncActions) && asyncPart == nil && random.chance(0.3) {
                let (action, result) = asyncAction("in a transaction", store: store)
                transaction.add(action, to: run.stores[store])
                asyncPart = (store, action, result)
            }
            parts.append((store, flat))
        }
        do {
            try transaction.commit()
            if failingStore != nil {
                run.violations.record("transactions", "a transaction with a failing action committed")
            }
            if let asyncPart {
                if asyncActionInTransactionPolicy == .isRefused {
                    run.violations.record("async actions", "a transaction holding an AsyncAction committed")
                }
                run.expected[asyncPart.store].expect(asyncPart.result)
            }
            for part in parts { run.expected[part.store].expect(part.bumps) }
        } catch {
            if let asyncPart {
                // Refused (or rejected for a failing action): the work must never run.
                asyncPart.action.cancel()
                if failingStore == nil && asyncActionInTransactionPolicy == .runs {
                    run.violations.record(
                        "async actions", "a transaction holding an AsyncAction threw \(error)")
                }
            } else if failingStore == nil {
                run.violations.record("transactions", "a transaction without a failing action threw \(error)")
            }
        }
    }

    private mutating func moveThroughHistory() {
        guard let history = run.history else { return }
        switch Int.random(in: 0..<5, using: &random) {
        case 0, 1: history.undo()
        case 2, 3: history.redo()
        default: history.jump(to: Int.random(in: 0...max(0, history.status.steps), using: &random))
        }
        // Counted on the history's store (store 0) too, so moves land among fresh steps.
        let action = bump()
        run.stores[0].dispatch(action)
        run.expected[0].expect(action)
    }

    /// Records a store while dispatching; every action announced before `stop()` must be in the
    /// recording, which a replay into a fresh store reads back.
    private mutating func record() {
        let storeIndex = anyStore()
        let log = ActionLog()
        log.register(Bump.self)
        let recording = log.record(run.stores[storeIndex])
        let mine = bumps(Int.random(in: 1...4, using: &random))
        for action in mine { run.stores[storeIndex].dispatch(action) }
        run.expected[storeIndex].expect(mine)
        guard run.logs[storeIndex].wait(forAll: mine.map(\.id), timeout: 10) else {
            recording.stop()
            run.violations.record("lost", "store \(storeIndex): actions were not announced within 10 s")
            return
        }
        // A history move's line holds the state it landed on, a `StressState`, which the store of
        // another state type that captures the actions cannot take: the actions are in the others.
        let lines = recording.stop().split(separator: UInt8(ascii: "\n")).filter { line in
            !String(decoding: line, as: UTF8.self).hasSuffix(#""type":"ReduxSwift.HistoryAction"}"#)
        }
        let replayed = Store(reducers: [captureReducer], state: CaptureState())
        do {
            try log.replay(Data(lines.joined(separator: [UInt8(ascii: "\n")])), into: replayed)
        } catch {
            run.violations.record("recordings", "replaying a recording threw \(error)")
            return
        }
        let ids = replayed.currentState().ids
        let recorded = ids.compactMap(Self.parse)
        for id in recorded { run.recorded.append(id) }
        let missing = mine.filter { !ids.contains($0.id.description) }
        if !missing.isEmpty {
            run.violations.record(
                "recordings",
                "stop() returned a recording without \(missing.count) of \(mine.count) actions announced before it"
            )
        }
        if Set(ids).count != ids.count {
            run.violations.record("recordings", "a recording holds an action twice")
        }
    }

    private static func parse(_ id: String) -> BumpID? {
        let parts = id.split(separator: ":")
        guard parts.count == 2, let origin = Int(parts[0]), let seq = Int(parts[1]) else { return nil }
        return BumpID(origin: origin, seq: seq)
    }
}

/// The reducer of replayed recordings: the identity of every bump, batches expanded.
let captureReducer: Reducer<CaptureState> = { state, action in
    func capture(_ action: any ActionProtocol) {
        if let bump = action as? Bump {
            state.ids.append(bump.id.description)
        } else if let batch = action as? ActionBatch {
            for inner in batch.actions { capture(inner) }
        }
    }
    capture(action)
}

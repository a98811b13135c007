import Foundation
import ReduxSwift

// The model the store stress test checks against: actions that name who dispatched them, a state
// of counters, and the bookkeeping of what each store must commit and announce.

/// The parts of the API one stress run mixes in, on top of plain dispatches, failing actions and
/// reads (`currentState()`, `snapshot()`), which every run has.
enum StressFeature: String, CaseIterable, Sendable, Comparable, CustomStringConvertible {
    /// `dispatch(batch:)` of flat batches.
    case batches
    /// Batches inside batches, and inside transactions.
    case nestedBatches
    /// Every observer kind, added and cancelled from different threads.
    case observers
    /// Observers and a reducer that post `.stateDidChange` for their own store.
    case relays
    /// Middleware that drop, transform and pass actions on later (`nextLater()`).
    case middleware
    /// `AsyncAction`s dispatched alone, inside batches, and inside transactions.
    case asyncActions
    /// Dispatch locks, overlapping: `a = lock(); dispatch(x); b = lock(); a.release()`.
    case locks
    /// Transactions across two or three stores, named in random orders.
    case transactions
    /// Undo, redo and jumps of a recorded history.
    case history
    /// Action recordings started and stopped while other threads dispatch.
    case recordings

    var description: String { rawValue }

    static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// What a transaction that holds an `AsyncAction` must do. The documentation says only that
/// "the reducers never see an async action"; whether a transaction runs the work (like a batch)
/// or refuses it with an error is not yet decided, so the check is one switch here.
enum AsyncActionInTransactionPolicy: Sendable {
    /// The transaction commits the rest and the work runs once, like an `AsyncAction` in a batch.
    case runs
    /// `commit()` throws and no store changes; the work never runs.
    case isRefused
    /// Either of the two, as long as it is all-or-nothing.
    case either
}

/// The policy the stress test checks; change it once the behaviour is decided.
let asyncActionInTransactionPolicy = AsyncActionInTransactionPolicy.either

/// How a stress run is sized; read from the environment so that CI stays fast and a long run or
/// a replay needs no code change.
struct StressConfiguration: Sendable {
    /// The seed of every worker's random choices (`REDUXSWIFT_STRESS_SEED`, else random).
    var seed: UInt64
    /// How long the workers run, per test case (`REDUXSWIFT_STRESS_SECONDS`, default 0.25).
    var seconds: Double
    /// A fixed number of operations per worker instead of a duration (`REDUXSWIFT_STRESS_ITERATIONS`).
    var iterations: Int?
    /// How long any phase may take beyond `seconds` before the run counts as hung.
    var watchdogSeconds: Double

    static let current: StressConfiguration = {
        let environment = ProcessInfo.processInfo.environment
        let seed =
            environment["REDUXSWIFT_STRESS_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
        let seconds = environment["REDUXSWIFT_STRESS_SECONDS"].flatMap { Double($0) } ?? 0.25
        let iterations = environment["REDUXSWIFT_STRESS_ITERATIONS"].flatMap { Int($0) }
        return StressConfiguration(
            seed: seed, seconds: seconds, iterations: iterations, watchdogSeconds: 30 + seconds)
    }()
}

/// SplitMix64: small, fast and the same on every platform, so a seed replays the same choices.
struct StressRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64, stream: UInt64) {
        state = seed ^ (stream &* 0x9E37_79B9_7F4A_7C15)
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }
}

/// An action of the stress test: it names the worker that dispatched it and a number unique to
/// that worker, so every announcement, recording and counter can be traced back to one dispatch.
struct Bump: ActionProtocol, Codable, Hashable {
    enum Kind: String, Codable, Sendable {
        /// Counted by the reducer.
        case plain
        /// Makes the reducer mutate, then throw: never committed.
        case fail
        /// Dropped by the middleware: never reaches a reducer.
        case drop
        /// Replaced by the middleware with a `.transformed` copy.
        case transformMe
        /// What the middleware makes of `.transformMe`.
        case transformed
        /// Passed on by the middleware later, from another thread.
        case later
        /// Dispatched by an `AsyncAction`'s work.
        case async
        /// Dispatched through a dispatch lock.
        case locked
        /// Counted, and the reducer posts `.stateDidChange` for its own store.
        case relay
    }

    /// Which streams keep their dispatch order: actions a worker dispatches on its own path
    /// (plainly, in batches, in transactions) are reduced in its order; others may pass them.
    /// A transaction is not held by dispatch locks, so while a lock holds a worker's earlier
    /// dispatches its transactions may pass them: with locks in the mix, transactions are ordered
    /// among themselves only.
    enum Channel: String, Codable, Sendable {
        case ordered
        case transaction
        case unordered
    }

    var origin: Int
    var seq: Int
    var kind: Kind
    var channel: Channel

    var identifier: String { "stress.bump" }

    /// The identity the model tracks; a transformed action keeps the identity of its original.
    var id: BumpID { BumpID(origin: origin, seq: seq) }
}

struct BumpID: Hashable, Sendable, CustomStringConvertible, Comparable {
    var origin: Int
    var seq: Int

    var description: String { "\(origin):\(seq)" }

    static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.origin, lhs.seq) < (rhs.origin, rhs.seq)
    }
}

/// A failure of the reducer, for `.fail` bumps.
struct StressFailure: Error {}

/// Far above any count a run reaches: a reader that sees it saw a failed action's partial change.
let failedActionMark = 1_000_000_000

/// The stores' state: counters per worker and kind, and their total.
struct StressState: StateProtocol, Equatable {
    var counts: [String: Int] = [:]
    var total = 0

    mutating func count(_ bump: Bump) {
        counts["\(bump.origin).\(bump.kind.rawValue)", default: 0] += 1
        total += 1
    }
}

/// The state of the stores that replay recordings: the identities in the order reduced.
struct CaptureState: StateProtocol, Equatable {
    var ids: [String] = []
}

/// Gives a reducer its store (set before the first dispatch, read-only afterwards).
///
/// `@unchecked Sendable`: `store` is written once before the store's first dispatch, and that
/// dispatch orders the write before every read on the store's queue.
final class StressStoreHandle: @unchecked Sendable {
    var store: Store<StressState>?
}

/// The reducer of the stress stores. It counts bumps, throws for `.fail`, and reports what the
/// documentation says reducers never see: async actions, batches (they reach reducers one action
/// at a time, at any nesting), and actions the middleware dropped or replaced.
func stressReducer(
    storeIndex: Int, handle: StressStoreHandle, violations: StressViolations
) -> Reducer<StressState> {
    { state, action in
        if let bump = action as? Bump {
            switch bump.kind {
            case .fail:
                state.total += failedActionMark
                throw StressFailure()
            case .drop:
                violations.record(
                    "middleware", "store \(storeIndex): a reducer saw an action the middleware dropped")
            case .transformMe:
                violations.record(
                    "middleware", "store \(storeIndex): a reducer saw an action the middleware replaced")
            case .relay:
                state.count(bump)
                if let store = handle.store {
                    store.notificationCenter.post(StoreNotification(name: .stateDidChange, object: store))
                }
            default:
                state.count(bump)
            }
        } else if action is ActionBatch {
            violations.record(
                "batches",
                "store \(storeIndex): a reducer saw an ActionBatch (a nested batch was not expanded)")
        } else if action.identifier.hasPrefix("stress.async") {
            violations.record(
                "async actions", "store \(storeIndex): a reducer saw an AsyncAction (\(action.identifier))")
        }
    }
}

/// The problems a run found, by category, with the first few messages of each.
final class StressViolations: @unchecked Sendable {
    // `@unchecked Sendable`: `entries` is only touched while `lock` is held.
    private let lock = NSLock()
    private var entries: [String: (count: Int, examples: [String])] = [:]

    func record(_ category: String, _ message: String) {
        lock.withLock {
            var entry = entries[category] ?? (0, [])
            entry.count += 1
            if entry.examples.count < 4 { entry.examples.append(message) }
            entries[category] = entry
        }
    }

    var isEmpty: Bool { lock.withLock { entries.isEmpty } }

    var categories: [String] { lock.withLock { entries.keys.sorted() } }

    var report: String {
        lock.withLock {
            entries.keys.sorted().map { category in
                let entry = entries[category]!
                return "[\(category)] \(entry.count)×\n"
                    + entry.examples.map { "    " + $0 }.joined(separator: "\n")
            }.joined(separator: "\n")
        }
    }
}

/// One committed item of a store's announcements: an action or a batch (a history step each), or
/// a history move.
enum AnnouncedItem: Sendable {
    case bumps([Bump])
    case move(HistoryAction)
    case other(String)
}

/// Everything a store announced, in order, flattened for the model.
final class AnnouncementLog: @unchecked Sendable {
    // `@unchecked Sendable`: `items` and `seen` are only touched while `condition` is locked.
    private let condition = NSCondition()
    private var items: [AnnouncedItem] = []
    private var seen: [BumpID: Int] = [:]
    private(set) var token: ObserverToken?

    init(store: Store<StressState>) {
        token = store.observeChanges { [unowned self] notification in
            // Relays post `.stateDidChange` without actions; only the store's own posts count.
            let announced = notification.actions.map { AnnouncementLog.item(for: $0) }
            guard !announced.isEmpty else { return }
            condition.lock()
            for item in announced {
                items.append(item)
                if case .bumps(let bumps) = item { for bump in bumps { seen[bump.id, default: 0] += 1 } }
            }
            condition.broadcast()
            condition.unlock()
        }
    }

    static func item(for action: any ActionProtocol) -> AnnouncedItem {
        if let move = action as? HistoryAction { return .move(move) }
        if let bump = action as? Bump { return .bumps([bump]) }
        if let batch = action as? ActionBatch {
            var bumps: [Bump] = []
            flatten(batch, into: &bumps)
            return .bumps(bumps)
        }
        return .other(action.identifier)
    }

    private static func flatten(_ batch: ActionBatch, into bumps: inout [Bump]) {
        for action in batch.actions {
            if let bump = action as? Bump {
                bumps.append(bump)
            } else if let inner = action as? ActionBatch {
                flatten(inner, into: &bumps)
            }
        }
    }

    var values: [AnnouncedItem] {
        condition.lock()
        defer { condition.unlock() }
        return items
    }

    /// Waits until every identity in `ids` has been announced, or the timeout passes.
    @discardableResult
    func wait(forAll ids: some Sequence<BumpID>, timeout: TimeInterval) -> Bool {
        let ids = Array(ids)
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !ids.allSatisfy({ seen[$0] != nil }) {
            if !condition.wait(until: deadline) { return ids.allSatisfy { seen[$0] != nil } }
        }
        return true
    }

    /// Waits until `predicate` holds for the announced items, or the timeout passes.
    @discardableResult
    func wait(timeout: TimeInterval, until predicate: ([AnnouncedItem]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(items) {
            if !condition.wait(until: deadline) { return predicate(items) }
        }
        return true
    }
}

/// The actions a store must commit, as the workers learn it: an action is expected once the
/// operation that dispatched it knows it will commit (a transaction once `commit()` returned).
final class ExpectedCommits: @unchecked Sendable {
    // `@unchecked Sendable`: `ids` is only touched while `lock` is held.
    private let lock = NSLock()
    private var bumps: [BumpID: Bump] = [:]

    func expect(_ bump: Bump) {
        lock.withLock { bumps[bump.id] = bump }
    }

    func expect(_ list: [Bump]) {
        lock.withLock { for bump in list { bumps[bump.id] = bump } }
    }

    var values: [BumpID: Bump] { lock.withLock { bumps } }
}

/// The state a store must reach from what it announced: the reducer's counting, plus the steps of
/// a history when the store records one.
///
/// The history keeps what was committed, in order; each committed item is a step but a
/// transaction, which makes none. The state at a position re-applies the items of the steps up to
/// it and every transaction, in the order they committed. Undo and redo pass over (and forget) a
/// step whose state equals the current one; a new step forgets the redo steps.
struct ModelStore {
    var state = StressState()
    let recordsHistory: Bool
    /// What committed, with the step it belongs to: 0 for a transaction, -1 once forgotten.
    private var records: [(bumps: [Bump], owner: Int)] = []
    /// The ids of the steps after step 0, oldest first.
    private var steps: [Int] = []
    private var position = 0
    private var nextStepID = 1

    /// A store that records a history started recording before its first dispatch: its first step
    /// is the initial state, whatever comes first (a failed action, a transaction, a move).
    init(recordsHistory: Bool) {
        self.recordsHistory = recordsHistory
    }

    /// Applies one announced item; returns a problem when the item cannot have been announced.
    mutating func apply(_ item: AnnouncedItem) -> String? {
        switch item {
        case .bumps(let bumps):
            // A transaction goes to the reducers without middleware: it makes no step, and every
            // move keeps it.
            let isTransaction = !bumps.isEmpty && bumps.allSatisfy { $0.channel == .transaction }
            for bump in bumps where bump.kind != .fail { state.count(bump) }
            guard recordsHistory else { return nil }
            if isTransaction {
                records.append((bumps, 0))
            } else {
                while steps.count > position { forget(steps.removeLast()) }
                records.append((bumps, nextStepID))
                steps.append(nextStepID)
                nextStepID += 1
                position = steps.count
            }
            return nil
        case .move(let move):
            guard recordsHistory else { return "a history move was announced by a store without history" }
            var target: Int
            switch move {
            case .undo: target = position - 1
            case .redo: target = position + 1
            case .jump(let step): target = step
            }
            while true {
                guard (0...steps.count).contains(target) else {
                    return
                        "announced \(move), which has no step to go to (position \(position) of \(steps.count + 1))"
                }
                let rebuilt = self.state(at: target)
                guard move != .jump(to: target), rebuilt == state else {
                    state = rebuilt
                    position = target
                    return nil
                }
                // A step that changes nothing is forgotten, and the move goes on to the next one.
                if move == .undo {
                    forget(steps.remove(at: position - 1))
                    position -= 1
                    target = position - 1
                } else {
                    forget(steps.remove(at: position))
                    target = position + 1
                }
            }
        case .other(let identifier):
            return "announced an unexpected action \(identifier)"
        }
    }

    private mutating func forget(_ step: Int) {
        for index in records.indices where records[index].owner == step { records[index].owner = -1 }
    }

    private func state(at position: Int) -> StressState {
        let limit = position > 0 ? steps[position - 1] : 0
        var state = StressState()
        for record in records where record.owner >= 0 && record.owner <= limit {
            for bump in record.bumps where bump.kind != .fail { state.count(bump) }
        }
        return state
    }
}

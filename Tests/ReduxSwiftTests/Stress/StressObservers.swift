import Foundation
import ReduxSwift

// The observers of a stress run: every kind, added on one thread and cancelled on another, each
// with a probe that catches a call starting after its `cancel()` returned.

/// Every way to observe a store.
enum StressObserverKind: String, CaseIterable, Sendable {
    case centerObserver, changes, changesOnSerialQueue, changesOnGlobalQueue
    case selector, selectorOnQueue, equatableProjection
    case unequatableValue, unequatableValueOnQueue
    case ownerState, ownerSelector
    case wholeStateValues, values, notifications

    /// Whether the documentation promises that this observer's calls never overlap.
    var neverOverlaps: Bool {
        switch self {
        case .selector, .selectorOnQueue, .equatableProjection, .unequatableValue, .unequatableValueOnQueue,
            .ownerState, .ownerSelector, .changesOnSerialQueue:
            return true
        default:
            return false
        }
    }

    var isAsyncSequence: Bool { self == .wholeStateValues || self == .values || self == .notifications }
}

/// Watches the calls of one observer. Set `cancelled` only after `cancel()` returned: a call that
/// starts after that is late, whatever the thread timing.
final class ObserverProbe: @unchecked Sendable {
    // `@unchecked Sendable`: every stored var is only touched while `lock` is held.
    private let lock = NSLock()
    private var cancelled = false
    private var running = 0
    private var lastTotal: Int?
    let kind: StressObserverKind
    let storeIndex: Int
    /// Whether the store's total only grows (no history), so observed totals must never go back.
    let totalOnlyGrows: Bool
    private let violations: StressViolations

    init(kind: StressObserverKind, storeIndex: Int, totalOnlyGrows: Bool, violations: StressViolations) {
        self.kind = kind
        self.storeIndex = storeIndex
        self.totalOnlyGrows = totalOnlyGrows
        self.violations = violations
    }

    /// Call first thing in the block.
    func enter(total: Int? = nil) {
        lock.lock()
        defer { lock.unlock() }
        if cancelled {
            violations.record(
                "late calls",
                "a \(kind) observer of store \(storeIndex) was called after its cancel() returned")
        }
        running += 1
        if running > 1 && kind.neverOverlaps {
            violations.record(
                "overlapping calls", "two calls of one \(kind) observer of store \(storeIndex) overlapped")
        }
        if let total {
            if total >= failedActionMark {
                violations.record("reads", "a \(kind) observer saw the partial change of a failed action")
            }
            if totalOnlyGrows, let lastTotal, total < lastTotal, kind != .changesOnGlobalQueue {
                violations.record(
                    "went back",
                    "a \(kind) observer of store \(storeIndex) got total \(total) after \(lastTotal)")
            }
            lastTotal = total
        }
    }

    /// Call last thing in the block.
    func exit() {
        lock.withLock { running -= 1 }
    }

    func markCancelled() {
        lock.withLock { cancelled = true }
    }
}

/// The owner of owner-bound observers.
final class StressOwner: Sendable {
    let probe: ObserverProbe

    init(probe: ObserverProbe) {
        self.probe = probe
    }
}

/// An observer of any kind, and how to stop it.
struct LiveObserver: Sendable {
    let probe: ObserverProbe
    let cancel: @Sendable () -> Void
}

/// Ends an async sequence's loop and says when it ended.
final class SequenceLoop: @unchecked Sendable {
    // `@unchecked Sendable`: `task` is only touched while `lock` is held; `ended` is a `Gate`.
    private let lock = NSLock()
    private var task: Task<Void, Never>?
    let ended = Gate()
    let kind: StressObserverKind
    /// The identities a `notifications()` loop received, in order.
    let received = Recorder<BumpID>()

    init(kind: StressObserverKind) {
        self.kind = kind
    }

    func start(_ body: @escaping @Sendable () async -> Void) {
        let task = Task { [ended] in
            await body()
            ended.open()
        }
        lock.withLock { self.task = task }
    }

    func cancel() {
        lock.withLock { task }?.cancel()
    }
}

/// Adds an observer of `kind` to `store`.
func addStressObserver(
    _ kind: StressObserverKind, to store: Store<StressState>, storeIndex: Int, totalOnlyGrows: Bool,
    violations: StressViolations, loops: Recorder<SequenceLoop>
) -> LiveObserver {
    let probe = ObserverProbe(
        kind: kind, storeIndex: storeIndex, totalOnlyGrows: totalOnlyGrows, violations: violations)
    func tokenObserver(_ token: ObserverToken) -> LiveObserver {
        LiveObserver(probe: probe) {
            token.cancel()
            probe.markCancelled()
        }
    }
    switch kind {
    case .centerObserver:
        return tokenObserver(
            store.notificationCenter.addObserver(forName: .stateDidChange, object: store, queue: nil) { _ in
                probe.enter()
                probe.exit()
            })
    case .changes:
        return tokenObserver(
            store.observeChanges { _ in
                probe.enter()
                probe.exit()
            })
    case .changesOnSerialQueue:
        return tokenObserver(
            store.observeChanges(queue: DispatchQueue(label: "stress.observer")) { _ in
                probe.enter()
                probe.exit()
            })
    case .changesOnGlobalQueue:
        return tokenObserver(
            store.observeChanges(queue: .global()) { _ in
                probe.enter()
                probe.exit()
            })
    case .selector:
        return tokenObserver(
            store.observe(\.total) { total in
                probe.enter(total: total)
                probe.exit()
            })
    case .selectorOnQueue:
        return tokenObserver(
            store.observe({ $0.total }, queue: .global()) { total in
                probe.enter(total: total)
                probe.exit()
            })
    case .equatableProjection:
        return tokenObserver(
            store.observe({ StateByTotal(state: $0) }) { projection in
                probe.enter(total: projection.state.total)
                probe.exit()
            })
    case .unequatableValue:
        return tokenObserver(
            store.observe({ TotalReading(total: $0.total) }) { reading in
                probe.enter(total: reading.total)
                probe.exit()
            })
    case .unequatableValueOnQueue:
        // The selector also reads the store it runs on, which returns its published snapshot.
        return tokenObserver(
            store.observe(
                { [weak store] state in
                    TotalReading(total: state.total, published: store?.currentState().total)
                }, queue: .global()
            ) { reading in
                probe.enter(total: reading.total)
                probe.exit()
            })
    case .ownerState:
        let owner = StressOwner(probe: probe)
        let token = store.observe(
            { $0 }, owner: owner, queue: .global(),
            using: { owner, state in
                owner.probe.enter(total: state.total)
                owner.probe.exit()
            })
        return LiveObserver(probe: probe) {
            token.cancel()
            probe.markCancelled()
            withExtendedLifetime(owner) {}
        }
    case .ownerSelector:
        let owner = StressOwner(probe: probe)
        let token = store.observe(\.total, owner: owner) { owner, total in
            owner.probe.enter(total: total)
            owner.probe.exit()
        }
        return LiveObserver(probe: probe) {
            token.cancel()
            probe.markCancelled()
            withExtendedLifetime(owner) {}
        }
    case .wholeStateValues, .values, .notifications:
        let loop = SequenceLoop(kind: kind)
        loops.append(loop)
        switch kind {
        case .wholeStateValues:
            loop.start {
                for await state in store.values(of: { $0 }) {
                    probe.enter(total: state.total)
                    probe.exit()
                }
            }
        case .values:
            loop.start {
                var last: Int?
                for await total in store.values(of: \.total) {
                    if total == last {
                        violations.record("async sequences", "values(of:) repeated \(total)")
                    }
                    last = total
                    probe.enter(total: total)
                    probe.exit()
                }
            }
        default:
            loop.start {
                for await notification in store.notifications(bufferingNewest: 100_000) {
                    for case .bumps(let bumps) in notification.actions.map(AnnouncementLog.item(for:)) {
                        for bump in bumps { loop.received.append(bump.id) }
                    }
                }
            }
        }
        // A sequence promises that its loop ends, not that no value follows the cancel.
        return LiveObserver(probe: probe) { loop.cancel() }
    }
}

/// The whole state as an `Equatable` value whose `==` compares only the total, so that its
/// observer skips changes that leave the total alone.
struct StateByTotal: Equatable, Sendable {
    let state: StressState

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.state.total == rhs.state.total
    }
}

/// A selected value that is not `Equatable`: its observer hears every change of the state.
struct TotalReading: Sendable {
    var total: Int
    /// The store's published total, read by the selector.
    var published: Int?
}

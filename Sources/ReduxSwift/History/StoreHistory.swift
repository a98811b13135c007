import Foundation

/// How much history a store keeps; the oldest steps go first when either bound is passed.
public struct HistoryLimit: Sendable, Equatable {
    /// The most steps kept, at least 1 (the current state).
    public let steps: Int
    /// The most bytes of encoded state kept; the current state is kept whatever its size.
    public let bytes: Int

    /// Creates a limit.
    ///
    /// - Parameters:
    ///   - steps: At least 1; a smaller number is a programming error, which stops the program.
    ///   - bytes: The most bytes of encoded state kept besides the current state.
    public init(steps: Int, bytes: Int) {
        precondition(steps >= 1, "a history keeps at least one step")
        self.steps = steps
        self.bytes = bytes
    }

    /// 100 steps and 64 MiB.
    public static let `default` = HistoryLimit(steps: 100, bytes: 64 << 20)
}

/// Moves a store through its recorded history; dispatch one directly or through ``StoreHistory``.
public enum HistoryAction: ActionProtocol, Equatable {
    /// Goes back one step; does nothing at the oldest step.
    case undo
    /// Goes forward one step; does nothing at the newest step.
    case redo
    /// Goes to a step: 0 is the oldest kept, `steps - 1` the newest.
    case jump(to: Int)
}

/// Where a store's history stands.
public struct HistoryStatus: Sendable, Equatable {
    /// Steps kept, including the current one.
    public let steps: Int
    /// The step the store's state is at.
    public let position: Int
    /// The bytes of encoded state kept.
    public let byteCount: Int

    /// Whether ``HistoryAction/undo`` would change the state.
    public var canUndo: Bool { position > 0 }
    /// Whether ``HistoryAction/redo`` would change the state.
    public var canRedo: Bool { position < steps - 1 }
}

/// Undo, redo and time travel for one store; get one from ``Store/recordHistory(limit:)``.
///
/// Moves are dispatched like actions: they queue behind what was dispatched before, and
/// ``Store/currentState()`` afterwards reflects them.
public final class StoreHistory<State: StateProtocol>: Sendable {
    /// The store whose states this history records.
    public let store: Store<State>
    /// The bounds of this history.
    public let limit: HistoryLimit
    let recorder: HistoryRecorder<State>

    init(store: Store<State>, limit: HistoryLimit) {
        self.store = store
        self.limit = limit
        recorder = HistoryRecorder(limit: limit)
    }

    /// Goes back one step; does nothing at the oldest step.
    public func undo() {
        store.dispatch(HistoryAction.undo)
    }

    /// Goes forward one step; does nothing at the newest step.
    public func redo() {
        store.dispatch(HistoryAction.redo)
    }

    /// Goes to a step: 0 is the oldest kept. A step the history does not have is reported with
    /// ``HistoryError/Kind/noSuchStep(_:)`` and changes nothing.
    public func jump(to step: Int) {
        store.dispatch(HistoryAction.jump(to: step))
    }

    /// Where the history stands, after every action and move dispatched before this call.
    public var status: HistoryStatus {
        _ = store.kernel.latestSnapshot()
        return recorder.status
    }
}

/// The history's middleware and its steps.
///
/// `@unchecked Sendable`: `encoder` and `decoder` are used only by the middleware, which runs on
/// the store's reducing thread one action at a time; `steps` is guarded by its lock.
final class HistoryRecorder<State: StateProtocol>: @unchecked Sendable {
    private let limit: HistoryLimit
    private let steps = LockedValue(HistorySteps())
    /// The store's snapshot encoder: it writes a struct's members in the order its `encode(to:)`
    /// does, so neighbouring steps differ only where the state did, and it throws on a cyclic or
    /// too deeply nested state where `JSONEncoder` would overflow the stack.
    private let encoder = SnapshotCoder.makeEncoder()
    private let decoder = SnapshotCoder.makeDecoder()

    init(limit: HistoryLimit) {
        self.limit = limit
    }

    var status: HistoryStatus {
        steps.withLock { HistoryStatus(steps: $0.count, position: $0.position, byteCount: $0.byteCount) }
    }

    func handle(_ action: any ActionProtocol, _ call: MiddlewareCall) throws {
        if let move = action as? HistoryAction {
            try travel(move, call)
            return
        }
        if steps.withLock({ $0.count == 0 }) { _ = record(call) }
        // Thrown after the action committed, the error leaves it committed and is reported with
        // it by `dispatchDidFail`, the way any middleware's error is.
        if case .committed = call.next(action), let error = record(call) { throw error }
    }

    /// Appends the live state as the newest step. A state that cannot be encoded empties the
    /// history, since no later undo may skip over it, and is returned as a ``SnapshotError``.
    private func record(_ call: MiddlewareCall) -> SnapshotError? {
        let encoded: Result<Data, SnapshotError>
        do {
            encoded = .success(try encoder.encode(call.state(as: State.self).pointee))
        } catch {
            encoded = .failure(SnapshotError(.encodingFailed, stateType: State.self, underlyingError: error))
        }
        return steps.withLock { steps in
            switch encoded {
            case .success(let data):
                steps.append(data, limit: limit)
                return nil
            case .failure(let error):
                steps = HistorySteps()
                return error
            }
        }
    }

    private func travel(_ move: HistoryAction, _ call: MiddlewareCall) throws {
        let (target, stepCount) = steps.withLock { steps -> (Int, Int) in
            switch move {
            case .undo: return (steps.position - 1, steps.count)
            case .redo: return (steps.position + 1, steps.count)
            case .jump(let step): return (step, steps.count)
            }
        }
        guard (0..<stepCount).contains(target) else {
            if case .jump(let step) = move { throw HistoryError(.noSuchStep(step), steps: stepCount) }
            return  // nothing to undo or redo
        }
        guard let data = steps.withLock({ $0.state(at: target) }) else { return }
        let restored: State
        do {
            restored = try decoder.decode(State.self, from: data)
        } catch {
            throw SnapshotError(.decodingFailed, stateType: State.self, underlyingError: error)
        }
        call.replaceState(with: restored)
        steps.withLock { $0.move(to: target, state: data) }
    }
}

/// The steps of a history: the encoded state at the current position, and between each two
/// neighbouring steps only the bytes that differ.
///
/// Neighbouring states usually differ in a small region of their JSON (one toggle changes four or
/// five bytes of a megabyte), so a step costs the size of its change, not of the state. Moving one
/// step rebuilds the neighbour's JSON from the current one in one copy.
struct HistorySteps {
    /// `deltas[i]` turns step `i` into step `i + 1` and back.
    private var deltas: [HistoryDelta] = []
    /// The JSON of the step at `position`; `nil` while empty.
    private var current: Data?
    private(set) var position = 0
    private(set) var byteCount = 0

    var count: Int { current == nil ? 0 : deltas.count + 1 }

    /// Adds `data` as the newest step after the current one, dropping the redo steps, then the
    /// oldest steps beyond `limit`.
    mutating func append(_ data: Data, limit: HistoryLimit) {
        guard let current else {
            self.current = data
            byteCount = data.count
            position = 0
            return
        }
        if position < deltas.count {
            byteCount -= deltas[position...].reduce(0) { $0 + $1.byteCount }
            deltas.removeSubrange(position...)
        }
        let delta = HistoryDelta(from: current, to: data)
        deltas.append(delta)
        byteCount += delta.byteCount - current.count + data.count
        self.current = data
        position = deltas.count
        while count > limit.steps || (byteCount > limit.bytes && count > 1) {
            byteCount -= deltas.removeFirst().byteCount
            position -= 1
        }
    }

    /// The JSON of step `target`, rebuilt from the current step.
    func state(at target: Int) -> Data? {
        guard var data = current, (0..<count).contains(target) else { return nil }
        var step = position
        while step > target {
            data = deltas[step - 1].older(from: data)
            step -= 1
        }
        while step < target {
            data = deltas[step].newer(from: data)
            step += 1
        }
        return data
    }

    /// Makes `target`, whose JSON is `data`, the current step.
    mutating func move(to target: Int, state data: Data) {
        guard let current else { return }
        byteCount += data.count - current.count
        self.current = data
        position = target
    }
}

/// The difference between two neighbouring steps: they share `prefix` leading and `suffix`
/// trailing bytes, and differ in the middle.
struct HistoryDelta {
    let prefix: Int
    let suffix: Int
    /// The older step's middle bytes.
    let olderMiddle: Data
    /// The newer step's middle bytes.
    let newerMiddle: Data

    /// What the delta keeps, counting its two lengths.
    var byteCount: Int { olderMiddle.count + newerMiddle.count + 2 * MemoryLayout<Int>.size }

    init(from older: Data, to newer: Data) {
        let (prefix, suffix) = older.withUnsafeBytes { older in
            newer.withUnsafeBytes { newer in HistoryDelta.commonEnds(older, newer) }
        }
        self.prefix = prefix
        self.suffix = suffix
        // Copies, so that a delta never keeps a whole state's buffer alive.
        olderMiddle = Data(older[(older.startIndex + prefix)..<(older.endIndex - suffix)])
        newerMiddle = Data(newer[(newer.startIndex + prefix)..<(newer.endIndex - suffix)])
    }

    func older(from newer: Data) -> Data { splice(newer, newerMiddle.count, olderMiddle) }

    func newer(from older: Data) -> Data { splice(older, olderMiddle.count, newerMiddle) }

    /// Replaces the middle of `data` (of `middleCount` bytes after the prefix) with `middle`.
    private func splice(_ data: Data, _ middleCount: Int, _ middle: Data) -> Data {
        var result = Data(capacity: prefix + middle.count + suffix)
        result.append(data[data.startIndex..<(data.startIndex + prefix)])
        result.append(middle)
        result.append(data[(data.startIndex + prefix + middleCount)..<data.endIndex])
        return result
    }

    /// The lengths of the common prefix and of the common suffix that does not overlap it.
    private static func commonEnds(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> (Int, Int) {
        let common = min(a.count, b.count)
        var prefix = 0
        while prefix < common, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < common - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        return (prefix, suffix)
    }
}

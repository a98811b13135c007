import Foundation

/// The history's middleware and its steps.
///
/// `@unchecked Sendable`: `encoder` and `decoder` are used only by the middleware and by
/// ``start(_:)``, which run on the thread that owns the store's state, one at a time; `steps` is
/// guarded by its lock.
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

    /// Records the first step: the state when the history's middleware joins the chain, in queue
    /// order. Recorded here rather than when the first action arrives, so that a transaction
    /// committed before that action is not part of step 0 (it goes to the reducers without
    /// middleware), and a first action that fails still finds the step to go back to. A state that
    /// cannot be encoded leaves the history empty; the next action then records its starting state.
    func start(_ state: StatePointer) -> (any ReductionJournal)? {
        _ = record(state.assuming(State.self).pointee)
        return nil
    }

    func handle(_ action: any ActionProtocol, _ call: MiddlewareCall) throws {
        if let move = action as? HistoryAction {
            try travel(move, call)
            return
        }
        // Only after a state that could not be encoded emptied the history.
        if steps.withLock({ $0.count == 0 }) { _ = record(call.state(as: State.self).pointee) }
        // Thrown after the action committed, the error leaves it committed and is reported with
        // it by `dispatchDidFail`, the way any middleware's error is.
        if case .committed = call.next(action), let error = record(call.state(as: State.self).pointee) {
            throw error
        }
    }

    /// Appends `state`, the live state, as the newest step. A state that cannot be encoded empties
    /// the history, since no later undo may skip over it, and is returned as a ``SnapshotError``.
    private func record(_ state: State) -> SnapshotError? {
        let encoded: Result<Data, SnapshotError>
        do {
            encoded = .success(try encoder.encode(state))
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

import Foundation

/// How much history a store keeps.
///
/// When either bound is passed, the oldest steps go first; once every step kept is undone, the
/// newest redo steps go. The actions between steps that make no step (a background refresh) count
/// towards ``actions`` too, since every move applies them again: an app whose actions are mostly
/// such actions keeps fewer steps, and gives ``actions`` more room.
public struct HistoryLimit: Sendable, Equatable {
    /// The most steps kept, at least 1 (the current state).
    public let steps: Int
    /// The most actions kept for the steps to re-apply: the actions that made them and the actions
    /// between them that made none. It bounds both what the history holds and what a move
    /// re-applies.
    public let actions: Int

    /// Creates a limit.
    ///
    /// ```swift
    /// let history = store.recordHistory(limit: HistoryLimit(steps: 200, actions: 5_000))
    /// ```
    ///
    /// - Parameters:
    ///   - steps: At least 1; a smaller number is a programming error, which stops the program.
    ///   - actions: The most actions kept from the oldest step on, at least 1; a smaller number is a
    ///     programming error, which stops the program.
    public init(steps: Int, actions: Int) {
        precondition(steps >= 1, "a history keeps at least one step")
        precondition(actions >= 1, "a history keeps at least one action")
        self.steps = steps
        self.actions = actions
    }

    /// 100 steps and 10,000 actions.
    public static let `default` = HistoryLimit(steps: 100, actions: 10_000)
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
    /// The actions kept to rebuild the steps from: at most ``HistoryLimit/actions`` from the
    /// oldest step on, and those before it that the history's oldest copy of the state does not
    /// hold yet. The history keeps a copy of the state every 64 actions, and at most 16 copies
    /// (past that, every other copy goes and copies are taken half as often), so those before
    /// the oldest step number at most 64 while the steps span up to about a thousand actions, and
    /// in a longer history up to about half the actions the steps span.
    public let actionCount: Int

    /// Whether ``HistoryAction/undo`` would change the state.
    public var canUndo: Bool { position > 0 }
    /// Whether ``HistoryAction/redo`` would change the state.
    public var canRedo: Bool { position < steps - 1 }
}

/// Undo, redo and time travel for one store; get one from ``Store/recordHistory(limit:makesStep:)``.
///
/// Moves are dispatched like actions: they queue behind what was dispatched before (from a reducer
/// or a middleware of the store, they come right after the action being handled), and
/// ``Store/currentState()`` afterwards reflects them.
public final class StoreHistory<State: StateProtocol>: Sendable {
    /// The store whose states this history records.
    public let store: Store<State>
    /// The bounds of this history.
    public let limit: HistoryLimit
    let recorder: HistoryRecorder<State>

    init(
        store: Store<State>, limit: HistoryLimit, makesStep: @escaping @Sendable (any ActionProtocol) -> Bool
    ) {
        self.store = store
        self.limit = limit
        recorder = HistoryRecorder(limit: limit, makesStep: makesStep)
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
    ///
    /// It waits for the store's queue to get there, as a read would, but reads no state: it never
    /// encodes the state, whatever its size. From inside a reducer it waits for nothing, like a
    /// read there, and a move that reducer dispatched comes only once its action commits.
    public var status: HistoryStatus {
        store.kernel.waitUntilReduced()
        return recorder.status
    }
}

import Foundation

extension Store {
    /// Starts recording the states this store goes through, for undo, redo and time travel.
    ///
    /// ```swift
    /// let history = store.recordHistory(limit: HistoryLimit(steps: 200, bytes: 16 << 20))
    /// store.dispatch(TodoAction.add("Milk"))
    /// history.undo()
    /// history.redo()
    /// history.jump(to: 0)  // the state when recording started
    /// ```
    ///
    /// The history is a middleware added at the end of the chain. Its first step, 0, is the state
    /// when it joins the chain, in order with dispatches: after every action dispatched before this
    /// call, and before any dispatched after it. Then each action that reaches it and commits adds
    /// one step (a batch adds one), encoded as the same JSON as ``currentState()``'s snapshots.
    /// Only the current step is kept whole; each other step keeps the bytes in which it differs
    /// from its neighbour, so a step costs about the size of its change.
    /// Undoing decodes a step and makes it the store's state, as one committed change announced
    /// with its ``HistoryAction``; rollbacks never go back across it. Steps beyond `limit` are
    /// dropped, oldest first.
    ///
    /// A state that cannot be encoded (a cyclic object graph, say) empties the history, since no
    /// later undo may skip over it; the action stays committed, and
    /// ``Foundation/NSNotification/Name/dispatchDidFail`` reports it with the ``SnapshotError``.
    ///
    /// Use one history per store: the first one in the chain handles every ``HistoryAction``.
    ///
    /// Moves are actions too, and travel the middleware chain to the history at its end. A
    /// middleware before it that drops the actions it does not know drops the moves as well, and
    /// nothing happens: pass ``HistoryAction`` on.
    ///
    /// The history sees what passes through the middleware chain. A ``StoreTransaction`` goes to
    /// the reducers directly, so it is not a step of its own: the next step includes it, and
    /// moving back to a step recorded before it restores a state without it, in this store only.
    public func recordHistory(limit: HistoryLimit = .default) -> StoreHistory<State> {
        let history = StoreHistory(store: self, limit: limit)
        register(
            middleware: [
                Middleware(name: "history", erased: history.recorder.handle, joined: history.recorder.start)
            ])
        return history
    }
}

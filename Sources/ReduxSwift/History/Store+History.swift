extension Store {
    /// Starts recording the states this store goes through, for undo, redo and time travel.
    ///
    /// ```swift
    /// let history = store.recordHistory(limit: HistoryLimit(steps: 200, actions: 5_000)) { action in
    ///     !(action is SyncAction)  // a background refresh is never what undo undoes
    /// }
    /// store.dispatch(TodoAction.add("Milk"))
    /// history.undo()
    /// history.redo()
    /// history.jump(to: 0)  // the state when recording started, with every refresh since
    /// ```
    ///
    /// The history keeps what reaches the reducers, after every middleware (whenever it was
    /// registered). Its first step, 0, is the state when it starts, in order with dispatches:
    /// after every action dispatched before this call, and before any dispatched after it. Then
    /// each dispatched action that commits and that `makesStep` accepts adds one step (a batch
    /// adds one, and `makesStep` receives the ``ActionBatch`` itself): what the reducers committed
    /// for it, whatever the middleware made of it. An action a middleware passes on later with
    /// ``Middleware/Context/nextLater()`` is a dispatched action of its own there.
    ///
    /// The history keeps the actions the reducers committed, not states: recording a step costs
    /// about as much as keeping the action, at any state size. Every 64 actions it keeps a copy of
    /// the state (at most 16 copies: past that, every other one goes and copies are taken half as
    /// often), which shares storage with the store's state, so the store's next change copies
    /// only the storage it touches, once. A move rebuilds the state of its step from the nearest
    /// copy by applying the kept actions again, with the reducers that saw them first (reducers
    /// registered later never see them), as a rollback does: reducers must be deterministic, and
    /// what they dispatch or register while re-applied is dropped. The new state is one
    /// committed change, announced with its ``HistoryAction``; rollbacks never go back across it.
    ///
    /// **Actions that make no step** (those `makesStep` refuses, and a ``StoreTransaction``) are
    /// never undone. Every move keeps them:
    /// the state of a step is the state the store would hold had the steps after it never been
    /// dispatched, every other action applied in the order it first was. So undoing the user's
    /// last step after a background refresh takes back that step and keeps the refresh's data,
    /// and redoing it applies it again before the refresh, as it happened. A kept action whose
    /// reducers throw in a state without the undone steps (an edit of an item that an undone step
    /// added, say) is left out of that state. Such actions do not drop the redo steps, as a new
    /// step does, but they count towards ``HistoryLimit/actions``: past it, steps go, oldest first
    /// (the newest redo steps once every step is undone).
    ///
    /// **Steps that change nothing.** Recording never compares states (keeping the state before
    /// each action to compare makes every action copy the storage it writes to). When the state
    /// is `Equatable`, undo and redo compare instead: a step whose undoing or redoing would leave
    /// the state equal to the current one (its action changed nothing, or what it changed was
    /// overwritten since) is forgotten, and the move goes on to the next step; an undo with no
    /// step left to change the state announces nothing. ``HistoryStatus/steps`` counts such a
    /// step until a move reaches it. A state that is not `Equatable` makes a step of every
    /// committed action `makesStep` accepts. ``StoreHistory/jump(to:)`` goes to the step it
    /// names without comparing.
    ///
    /// Steps beyond `limit` are dropped, oldest first. A rollback that drops actions that had
    /// committed (their reducers threw when re-applied, which only non-deterministic reducers
    /// do) restarts the history from the state it leaves: its states before cannot be rebuilt.
    ///
    /// Use one history per store: the first one started handles every ``HistoryAction``.
    ///
    /// An ``ActionLog`` recording the store records each move with the state it landed on, so
    /// that the recording replays to the same state (see ``ActionLog/replay(_:into:)``).
    ///
    /// Moves are actions too, and travel the whole middleware chain (a logger logs them) to the
    /// history in place of the reducers. A middleware that drops the actions it does not know
    /// drops the moves as well, and nothing happens: pass ``HistoryAction`` on. A move inside an
    /// ``ActionBatch`` or a ``StoreTransaction`` does nothing (the history sees the actions of
    /// neither one by one); dispatch moves on their own.
    ///
    /// - Parameters:
    ///   - limit: How many steps, and actions for them, the history keeps.
    ///   - makesStep: Whether a committed action is a step of its own; called on the store's
    ///     queue with the action as it was dispatched, before any middleware (a batch as one
    ///     ``ActionBatch``).
    ///     Every action by default.
    public func recordHistory(
        limit: HistoryLimit = .default,
        makesStep: @escaping @Sendable (any ActionProtocol) -> Bool = { _ in true }
    ) -> StoreHistory<State> {
        let history = StoreHistory(store: self, limit: limit, makesStep: makesStep)
        let entry = QueueEntry.command(StartHistoryRecorder(start: history.recorder.start))
        if let scope = StoreCodeScope.current, scope.reducingKernel === kernel {
            // Queued like a dispatch from here, as a registration is.
            if !scope.isReplaying { scope.deferDispatch(entry, to: .queue(kernel)) }
        } else {
            kernel.enqueue(entry)
        }
        return history
    }
}

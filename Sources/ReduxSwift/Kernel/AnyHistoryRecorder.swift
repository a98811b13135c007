/// A history recorder with the state type erased, as the pipeline calls it: it keeps what a
/// store's reducers committed, in order, to rebuild states from it later. The pipeline tells it
/// every committed entry with the reducers that saw it, where each dispatched action ends, and
/// every change of the state that re-applying those entries would not reproduce; the first
/// history recorder also handles every ``HistoryAction`` that reaches the reducers.
///
/// Called only by the holder of the store's live state, while it reduces, like the reducers.
protocol AnyHistoryRecorder: AnyObject {
    /// `entry` committed, applied by `reducers` in order; `state` is the live state after it.
    func committed(_ entry: QueueEntry, reducers: [ErasedReducer], state: StatePointer)
    /// The pipeline is done with `action`, a dispatched action or batch (or one a middleware passed
    /// on later): every entry committed since the last call was what the reducers made of it.
    func finished(_ action: any ActionProtocol)
    /// The entry reported last was undone: a transaction that did not commit. `state` is back to
    /// the state before it.
    func retractLast(state: StatePointer)
    /// The state became something re-applying the committed entries does not give (a middleware
    /// replaced it, or a rollback dropped actions whose reducers threw when re-applied).
    func diverged(state: StatePointer)
    /// Moves the state at `state` to another step; returns whether it replaced the state (a move
    /// with nothing to undo or redo does not).
    /// - Throws: ``HistoryError`` for a step that does not exist.
    func move(_ move: HistoryAction, state: StatePointer, scope: StoreCodeScope) throws -> Bool
}

/// Starts a history recorder on the live state, with the state type erased: it runs on the thread
/// that holds the state, after every entry queued before it and before every entry queued after it.
typealias HistoryRecorderStart = @Sendable (StatePointer) -> any AnyHistoryRecorder

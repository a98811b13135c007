/// Keeps what a store's reducers committed, in order, to rebuild states from it later (a history
/// does). The pipeline tells it every committed entry with the reducers that saw it, and every
/// change of the state that re-applying those entries would not reproduce.
///
/// Called only by the owner of the store's live state, while it reduces, like the reducers.
protocol ReductionJournal: AnyObject {
    /// `entry` committed, applied by `reducers` in order; `state` is the live state after it.
    func committed(_ entry: PendingEntry, reducers: [ErasedReducer], state: StatePointer)
    /// The entry reported last was undone: a transaction that did not commit. `state` is back to
    /// the state before it.
    func retractLast(state: StatePointer)
    /// The state became something re-applying the committed entries does not give (a middleware
    /// replaced it, or a rollback dropped actions whose reducers threw when re-applied).
    func diverged(state: StatePointer)
}

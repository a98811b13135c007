import Dispatch

/// One store's part of a transaction: its actions, and the two hand-overs between the store's
/// queue and the committing thread.
///
/// `@unchecked Sendable`: `error` is written before `prepared` is signalled and read after it is
/// waited for; `shouldCommit` likewise with `decided`.
final class TransactionParticipant: @unchecked Sendable {
    let batch: ActionBatch
    private let prepared = DispatchSemaphore(value: 0)
    private let decided = DispatchSemaphore(value: 0)
    private var error: (any Error)?
    private var shouldCommit = false

    init(batch: ActionBatch) {
        self.batch = batch
    }

    /// The store's queue: the actions were applied (`nil`) or a reducer threw.
    func reportPrepared(_ error: (any Error)?) {
        self.error = error
        prepared.signal()
    }

    /// The committing thread: waits for the store, and returns what its reducers threw.
    func waitUntilPrepared() -> (any Error)? {
        prepared.wait()
        return error
    }

    /// The committing thread: tells the store to commit or undo.
    func decide(commit: Bool) {
        shouldCommit = commit
        decided.signal()
    }

    /// The store's queue: waits for the decision.
    func awaitDecision() -> Bool {
        decided.wait()
        return shouldCommit
    }
}

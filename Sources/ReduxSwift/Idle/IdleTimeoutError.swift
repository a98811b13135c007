import Foundation

/// The error of ``Store/waitUntilIdle(timeout:)`` when the store was still busy at the deadline,
/// with what kept it busy then.
public struct IdleTimeoutError: Error, Sendable, CustomStringConvertible, Equatable {
    /// How long the wait lasted, in seconds.
    public let timeout: TimeInterval
    /// Entries still queued at the deadline: actions, batches and registrations not yet reduced.
    public let queuedEntries: Int
    /// Whether a dispatch lock held queued entries at the deadline, the wait's own place in the
    /// queue included (see ``DispatchLock``).
    public let heldByDispatchLock: Bool
    /// Asynchronous actions whose work was still running at the deadline.
    public let runningAsyncActions: Int

    init(timeout: TimeInterval, queuedEntries: Int, heldByDispatchLock: Bool, runningAsyncActions: Int) {
        self.timeout = timeout
        self.queuedEntries = queuedEntries
        self.heldByDispatchLock = heldByDispatchLock
        self.runningAsyncActions = runningAsyncActions
    }

    /// A sentence naming the deadline and what was still going on.
    public var description: String {
        var busy: [String] = []
        if queuedEntries > 0 {
            busy.append(
                "\(queuedEntries) queued \(queuedEntries == 1 ? "entry" : "entries")"
                    + (heldByDispatchLock ? ", held by a dispatch lock" : ""))
        } else if heldByDispatchLock {
            busy.append("held by a dispatch lock")
        }
        if runningAsyncActions > 0 {
            busy.append(
                "\(runningAsyncActions) asynchronous \(runningAsyncActions == 1 ? "action" : "actions") running"
            )
        }
        if busy.isEmpty {
            // A wait takes a moment even on an idle store: a timeout of 0 ends before it can tell.
            busy.append(
                timeout == 0
                    ? "a timeout of 0 ends before a wait can see the store idle" : "reducing or delivering")
        }
        return "the store was not idle after \(timeout) s: " + busy.joined(separator: "; ")
    }
}

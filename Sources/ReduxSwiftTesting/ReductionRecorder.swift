import Dispatch
import Foundation
import ReduxSwift

/// One change or failure of a ``TestStore``'s store, with the state it left.
struct Reduction<State: StateProtocol>: @unchecked Sendable {
    // `@unchecked Sendable`: a record is created on the store's queue and read by the test after
    // the recorder's lock hands it over; `State` values are copies nobody mutates.
    let action: any ActionProtocol
    let after: State
    let error: (any Error)?
    /// The send it came from, or `nil` for an action the test did not send.
    let sendID: Int?

    /// Whether the store reported this failure without an action (a dispatch lock freed without
    /// being released, a state that cannot round-trip): `action` is then a ``StoreFailure``.
    var isStoreFailure: Bool { action is StoreFailure }

    /// The action, and its error if it failed: how a failure's message lists it.
    var summary: String {
        guard let error else { return "\(action)" }
        return "\(action) (failed: \(error))"
    }
}

/// Stands for the action of a failure the store reported without one, so that such a failure is
/// recorded, listed and matched like the others.
struct StoreFailure: ActionProtocol, CustomStringConvertible {
    var description: String { "the store's own failure, with no action" }
}

/// What a ``TestStore``'s store announced: every change and failure, from the store's tap, each
/// tagged with the send it came from by a middleware first in the chain.
///
/// `@unchecked Sendable`: `currentSend` is used only by the middleware and the tap, on the store's
/// queue as the holder of its state, one action at a time; everything else is guarded by
/// `condition`.
final class ReductionRecorder<State: StateProtocol>: @unchecked Sendable {
    private let condition = NSCondition()
    private var records: [Reduction<State>] = []
    /// Records ever appended; a waiter that saw an older count returns at once.
    private var appended = 0
    private var waiters: [RecordWaiter] = []
    private var currentSend: Int?
    /// The state the store's last change left, for a failure that changes nothing.
    private var lastState: State

    init(state: State) {
        lastState = state
    }

    /// First in the chain: unwraps a sent action and remembers which send is being handled, so
    /// that what the store announces meanwhile is that send's.
    var sendTagger: Middleware<State> {
        Middleware("TestStore.send", handler: SendTagger(recorder: self))
    }

    /// Records every change and failure the store announces, with the state it left, whatever
    /// made it: the middleware chain, a transaction, a replay, a history move or async work.
    var tap: ReductionTap<State> {
        { [self] action, error, state in
            append(Reduction(action: action, after: state, error: error, sendID: currentSend))
        }
    }

    /// Records a failure the store reported without an action, from its store-failure tap.
    @Sendable func recordStoreFailure(_ error: any Error) {
        condition.lock()
        let state = lastState
        condition.unlock()
        append(Reduction(action: StoreFailure(), after: state, error: error, sendID: nil))
    }

    fileprivate func handleSent(_ action: any ActionProtocol, context: Middleware<State>.Context) {
        let sent = action as? TestStoreSend
        currentSend = sent?.id
        defer { currentSend = nil }
        context.next(sent?.action ?? action)
    }

    private func append(_ record: Reduction<State>) {
        condition.lock()
        records.append(record)
        lastState = record.after
        appended += 1
        let resumed = waiters
        waiters.removeAll()
        condition.unlock()
        for waiter in resumed { waiter.resume(true) }
    }

    /// Removes and returns the records of one send.
    func takeSent(id: Int) -> [Reduction<State>] {
        condition.lock()
        defer { condition.unlock() }
        let taken = records.filter { $0.sendID == id }
        records.removeAll { $0.sendID == id }
        return taken
    }

    /// Removes and returns every record the test did not send.
    func takeReceived() -> [Reduction<State>] {
        condition.lock()
        defer { condition.unlock() }
        let taken = records.filter { $0.sendID == nil }
        records.removeAll { $0.sendID == nil }
        return taken
    }

    /// Removes and returns the oldest record the test did not send, of the store's own failures
    /// or of the rest as `storeFailure` says, and how many records had been appended when it
    /// looked (for ``waitForRecord(after:until:)``). The store's own failures are conditions, not
    /// steps: when one is found among the actions depends on how the store grouped them.
    func takeFirstReceived(storeFailure: Bool) -> (record: Reduction<State>?, appended: Int) {
        condition.lock()
        defer { condition.unlock() }
        guard let index = records.firstIndex(where: { $0.sendID == nil && $0.isStoreFailure == storeFailure })
        else { return (nil, appended) }
        return (records.remove(at: index), appended)
    }

    /// Drops the leading received records of the kind `storeFailure` says that `shouldDrop` accepts.
    func dropReceived(storeFailure: Bool, while shouldDrop: (Reduction<State>) -> Bool) {
        condition.lock()
        defer { condition.unlock() }
        while let index = records.firstIndex(where: { $0.sendID == nil && $0.isStoreFailure == storeFailure }
        ),
            shouldDrop(records[index])
        {
            records.remove(at: index)
        }
    }

    /// Waits until more than `seen` records have been appended, or `deadline` passes; returns
    /// whether they were. Comparing counts under the lock means a record appended between the
    /// caller's look and this wait is not missed.
    nonisolated(nonsending) func waitForRecord(after seen: Int, until deadline: Date) async -> Bool {
        let waiter = RecordWaiter()
        return await withCheckedContinuation { continuation in
            waiter.set(continuation)
            condition.lock()
            guard appended == seen else {
                condition.unlock()
                waiter.resume(true)
                return
            }
            waiters.append(waiter)
            condition.unlock()
            let delay = max(0, deadline.timeIntervalSinceNow)
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { waiter.resume(false) }
        }
    }
}

/// A continuation resumed once, by whichever comes first: a record or the deadline.
final class RecordWaiter: @unchecked Sendable {
    // `@unchecked Sendable`: `continuation` is only touched while `lock` is held.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Bool, Never>?

    func set(_ continuation: CheckedContinuation<Bool, Never>) {
        lock.lock()
        self.continuation = continuation
        lock.unlock()
    }

    func resume(_ value: Bool) {
        lock.lock()
        let continuation = self.continuation
        self.continuation = nil
        lock.unlock()
        continuation?.resume(returning: value)
    }
}

private struct SendTagger<State: StateProtocol>: MiddlewareHandler {
    let recorder: ReductionRecorder<State>

    func handle(_ action: any ActionProtocol, context: Middleware<State>.Context) throws {
        recorder.handleSent(action, context: context)
    }
}

import Foundation

/// Pauses a store's reduction while held; get one from ``Store/lock(_:file:line:)``.
///
/// A lock is released once, with ``release()``. Every method may be called from any thread, and
/// from inside reducers and observers.
public final class DispatchLock: Sendable {
    /// The name given to ``Store/lock(_:file:line:)``.
    public let name: String
    /// Where the lock was taken.
    public let file: StaticString
    /// The line where the lock was taken.
    public let line: UInt
    /// The kernel of the store the lock holds.
    let kernel: StoreKernel
    /// The store, kept alive while the lock is: a lock abandoned by its deinitializer still
    /// announces the report from the store.
    private let store: any AnyObject & Sendable
    /// Which of the store's locks this is: the store holds each action until every lock taken
    /// before it is released.
    private let id: UInt64
    private let released = LockedValue(false)

    init(
        name: String, file: StaticString, line: UInt, id: UInt64, kernel: StoreKernel,
        store: any AnyObject & Sendable
    ) {
        self.name = name
        self.file = file
        self.line = line
        self.id = id
        self.kernel = kernel
        self.store = store
    }

    deinit {
        guard !isReleased else { return }
        let report = DispatchLock.ReleaseError(.abandoned(file: "\(file)", line: line), name: name)
        writeLineToStandardError("ReduxSwift: \(report)")
        kernel.abandonLock(id, report: report)
    }

    /// Whether ``release()`` was called.
    public var isReleased: Bool { released.withLock { $0 } }

    /// Releases the lock; the store then reduces what queued meanwhile, except the actions that a
    /// lock still held was taken before.
    /// - Throws: ``DispatchLock/ReleaseError/Kind/alreadyReleased`` if the lock was released before;
    ///   the store is not affected.
    public func release() throws(DispatchLock.ReleaseError) {
        let wasReleased = released.withLock { released in
            defer { released = true }
            return released
        }
        if wasReleased { throw DispatchLock.ReleaseError(.alreadyReleased, name: name) }
        kernel.unlock(id)
    }

    /// Dispatches an action that passes every lock: it is reduced ahead of what the locks hold,
    /// behind other actions dispatched through locks. From inside a reducer or a middleware, it is
    /// dispatched when the current action commits, like ``Store/dispatch(_:)``: from the locked
    /// store's own reducers, right after that action. Through a released lock, it is an ordinary
    /// dispatch.
    public func dispatch(_ action: any ActionProtocol) {
        let (entry, type) = QueueEntry.dispatched(action)
        if StoreCodeScope.deferIfReducing(entry, dispatchedAs: type, to: .passingLock(self)) { return }
        send(entry, dispatchedAs: type)
    }

    /// Decided while holding `released`, so that a concurrent ``release()`` cannot come between
    /// the check and the enqueue (the action would pass a lock already released).
    ///
    /// Through a lock still held, the entry never waits for room (a held lock keeps the queue from
    /// counting as full). Through a released lock it is an ordinary dispatch, which may wait for room:
    /// that happens after `released` is unlocked, since the drainer may need it meanwhile (to send a
    /// dispatch a reducer made through this lock).
    func send(_ entry: QueueEntry, dispatchedAs type: ObjectIdentifier? = nil) {
        let wasReleased = released.withLock { released in
            if !released { kernel.enqueue(entry, dispatchedAs: type, .passingLocks) }
            return released
        }
        if wasReleased { kernel.enqueue(entry, dispatchedAs: type) }
    }
}

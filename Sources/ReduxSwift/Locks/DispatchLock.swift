import Foundation

extension Store {
    /// Pauses the reduction of this store until the returned lock is released.
    ///
    /// Actions dispatched after this call keep queuing, in order, and are reduced when this lock
    /// and every lock taken before them are released; actions dispatched before it are still
    /// reduced, whatever locks are taken after them. Actions dispatched through the lock with
    /// ``DispatchLock/dispatch(_:)`` pass it:
    ///
    /// ```swift
    /// let lock = store.lock("sign-in")
    /// store.dispatch(TodoAction.add("Milk"))       // waits
    /// lock.dispatch(SessionAction.signIn(user))     // reduced now
    /// try lock.release()                            // "Milk" is reduced
    /// ```
    ///
    /// While the store is paused, ``currentState()`` does not wait for the actions the lock holds
    /// (they may be waiting for the very thread that reads), so it returns the state without them.
    /// Reducers and middleware registered while paused wait with those actions, so actions
    /// dispatched through the lock do not see them yet.
    ///
    /// Release every lock exactly once. Releasing one twice throws
    /// ``DispatchLockError/Kind/alreadyReleased``; a lock freed without being released is
    /// released then and reported with ``Foundation/NSNotification/Name/dispatchDidFail``
    /// (``DispatchLockError/Kind/abandoned(file:line:)``) and a line on standard error.
    ///
    /// - Parameters:
    ///   - name: Names the lock in errors and reports.
    ///   - file: Where the lock is taken, for the report of a lock never released.
    ///   - line: The line where the lock is taken.
    /// - Returns: The lock; the store stays paused until it and every other lock are released.
    public func lock(_ name: String = "DispatchLock", file: StaticString = #fileID, line: UInt = #line)
        -> DispatchLock
    {
        let id = core.lock()
        return DispatchLock(name: name, file: file, line: line, id: id, store: self)
    }

    /// Pauses this store like ``lock(_:file:line:)`` and lets one action through at once: it is
    /// reduced before everything the lock holds, as Flask's `lock(withMixer:)` does.
    ///
    /// ```swift
    /// let lock = store.lock("refresh", performing: RefreshAction.start)
    /// // ... later, when the refresh is done:
    /// try lock.release()
    /// ```
    public func lock(
        _ name: String = "DispatchLock", performing action: any ActionProtocol, file: StaticString = #fileID,
        line: UInt = #line
    ) -> DispatchLock {
        let lock = lock(name, file: file, line: line)
        lock.dispatch(action)
        return lock
    }

    /// How many dispatch locks hold this store now; `0` when it reduces freely.
    public var heldLockCount: Int { core.lockCount }
}

extension Store: LockableStore {
    func enqueueExclusive(_ entry: PendingEntry) {
        if core.enqueueExclusive(entry) { scheduleDrain() }
    }

    func unlock(_ id: UInt64) {
        if core.unlock(id) { scheduleDrain() }
    }

    func abandonLock(_ id: UInt64, report: DispatchLockError) {
        perform(core.abandonLock(id, report: report))
    }
}

/// A store's side of a dispatch lock, with no generic parameter.
protocol LockableStore: DeferredDispatchTarget {
    func enqueueExclusive(_ entry: PendingEntry)
    func unlock(_ id: UInt64)
    func abandonLock(_ id: UInt64, report: DispatchLockError)
}

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
    private let store: any LockableStore
    /// Which of the store's locks this is: the store holds each action until every lock taken
    /// before it is released.
    private let id: UInt64
    private let released = LockedValue(false)

    init(name: String, file: StaticString, line: UInt, id: UInt64, store: any LockableStore) {
        self.name = name
        self.file = file
        self.line = line
        self.id = id
        self.store = store
    }

    deinit {
        guard !isReleased else { return }
        let report = DispatchLockError(.abandoned(file: "\(file)", line: line), name: name)
        writeLineToStandardError("ReduxSwift: \(report)")
        store.abandonLock(id, report: report)
    }

    /// Whether ``release()`` was called.
    public var isReleased: Bool { released.withLock { $0 } }

    /// Releases the lock; the store then reduces what queued meanwhile, except the actions that a
    /// lock still held was taken before.
    /// - Throws: ``DispatchLockError/Kind/alreadyReleased`` if the lock was released before;
    ///   the store is not affected.
    public func release() throws(DispatchLockError) {
        let wasReleased = released.withLock { released in
            defer { released = true }
            return released
        }
        if wasReleased { throw DispatchLockError(.alreadyReleased, name: name) }
        store.unlock(id)
    }

    /// Dispatches an action that passes every lock: it is reduced ahead of what the locks hold,
    /// behind other actions dispatched through locks. From inside a reducer, it is queued when the
    /// current action commits, like ``Store/dispatch(_:)``. Through a released lock, it is an
    /// ordinary dispatch.
    public func dispatch(_ action: any ActionProtocol) {
        let entry = PendingEntry.entry(for: action)
        if ReducerContext.deferIfReducing(entry, to: ExclusiveTarget(store: store, lock: self)) { return }
        send(entry)
    }

    /// Decided while holding `released`, so that a concurrent ``release()`` cannot come between
    /// the check and the enqueue (the action would pass a lock already released).
    fileprivate func send(_ entry: PendingEntry) {
        released.withLock { released in
            if released {
                store.enqueueDeferred(entry)
            } else {
                store.enqueueExclusive(entry)
            }
        }
    }
}

/// Queues a deferred dispatch through a lock.
private final class ExclusiveTarget: DeferredDispatchTarget {
    let store: any LockableStore
    let lock: DispatchLock

    init(store: any LockableStore, lock: DispatchLock) {
        self.store = store
        self.lock = lock
    }

    func enqueueDeferred(_ entry: PendingEntry) {
        lock.send(entry)
    }
}

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
    /// Reducers registered while paused wait with those actions, so actions dispatched through the
    /// lock do not see them yet. Middleware registered or removed while paused affect exactly the
    /// actions dispatched after the call: those sent through the lock after it, and, of the actions
    /// the lock holds, those dispatched after it.
    ///
    /// Release every lock exactly once. Releasing one twice throws
    /// ``DispatchLock/ReleaseError/Kind/alreadyReleased``; a lock freed without being released is
    /// released then and reported with ``Foundation/NSNotification/Name/dispatchDidFail``
    /// (``DispatchLock/ReleaseError/Kind/abandoned(file:line:)``) and a line on standard error.
    ///
    /// - Parameters:
    ///   - name: Names the lock in errors and reports.
    ///   - file: Where the lock is taken, for the report of a lock never released.
    ///   - line: The line where the lock is taken.
    /// - Returns: The lock; the store stays paused until it and every other lock are released.
    public func lock(_ name: String = "DispatchLock", file: StaticString = #fileID, line: UInt = #line)
        -> DispatchLock
    {
        let id = kernel.lock()
        return DispatchLock(name: name, file: file, line: line, id: id, kernel: kernel, store: self)
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
    public var heldLockCount: Int { kernel.lockCount }
}

import Foundation

extension Store {
    /// A value derived from the state as an asynchronous sequence: its current value first, then
    /// each new value (when `Value` is `Equatable`, each value that differs from the previous one).
    ///
    /// ```swift
    /// for await count in store.values(of: \.todos.count) {
    ///     badge.text = "\(count)"
    /// }
    /// ```
    ///
    /// The store's queue selects each value from its live state, as for
    /// ``observe(_:queue:using:)-(_,DispatchQueue?,_)``, so a value costs what the selector reads,
    /// and iterating never blocks a thread. The first value reflects every action dispatched
    /// before this call. Values are coalesced, latest wins: a consumer that falls behind gets the
    /// newest value when it asks next, never a backlog, so a slow consumer neither blocks the store
    /// nor makes it buffer. Iterate the sequence once, from one task (a second iterator gets
    /// nothing); ending the loop, cancelling its task or releasing the sequence removes the
    /// observer. When the store is freed, the loop gets the value that waits, if any, and ends.
    public func values<Value: Sendable>(
        of select: @escaping @Sendable (State) -> Value
    ) -> AsyncStream<Value> {
        let observer = ValueObserver(
            kernel: kernel, select: select, isDuplicate: Equality.of(Value.self), target: .iterator,
            deliver: { _ in })
        observer.start(firstValueHere: false)
        // The sequence owns the token: releasing the sequence removes the observer.
        let token = ObserverToken(center: nil, observer: observer)
        return AsyncStream(
            unfolding: {
                _ = token
                return await observer.next()
            },
            onCancel: { token.cancelWithoutWaiting() })
    }

    /// This store's notifications as an asynchronous sequence.
    ///
    /// ```swift
    /// for await notification in store.notifications() {
    ///     for action in notification.actions { log(action.identifier) }
    /// }
    /// ```
    ///
    /// Notifications arrive in order, through the same mailbox as an observer's on a queue: change
    /// notifications that wait unread merge into one, which lists every action once, in order, so a
    /// consumer that falls behind gets one notification with all it missed, never a backlog.
    /// Notifications that cannot merge (failures, notifications posted by hand) wait up to
    /// `limit`; beyond it the oldest is dropped, so that a consumer that never reads cannot grow
    /// memory. Iterate the sequence once, from one task; ending the loop, cancelling its task or
    /// releasing the sequence removes the observer.
    ///
    /// - Parameters:
    ///   - name: Which notifications; ``Foundation/NSNotification/Name/stateDidChange`` by default.
    ///   - limit: How many unread notifications wait at most.
    public func notifications(
        named name: Notification.Name = .stateDidChange, bufferingNewest limit: Int = 256
    ) -> AsyncStream<StoreNotification> {
        let mailbox = Mailbox(target: .iterator, kernel: nil, contents: MergedNotifications(limit: limit))
        let token = notificationCenter.addObserver(forName: name, object: self, queue: nil) { notification in
            mailbox.offer(notification)
        }
        // The sequence owns the token: releasing the sequence removes the observer. A notification
        // offered after the mailbox is closed is dropped, so ending it need not wait for one.
        return AsyncStream(
            unfolding: {
                _ = token
                return await mailbox.next()
            },
            onCancel: { token.cancelWithoutWaiting() })
    }
}

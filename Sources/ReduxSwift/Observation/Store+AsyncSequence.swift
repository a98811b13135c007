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
        let observer = Observer(
            kernel: kernel, select: select, isDuplicate: Equality.of(Value.self), target: .iterator,
            deliver: { _ in })
        observer.start(firstValueHere: false)
        // The sequence owns the token: releasing the sequence removes the observer.
        let token = ObserverToken(center: nil, entry: observer)
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
    /// Unlike ``values(of:)``, every notification matters here, so they are buffered, up to `limit`;
    /// beyond it the oldest are dropped rather than let a consumer that never reads grow memory.
    ///
    /// - Parameters:
    ///   - name: Which notifications; ``Foundation/NSNotification/Name/stateDidChange`` by default.
    ///   - limit: How many unread notifications to keep at most.
    public func notifications(
        named name: Notification.Name = .stateDidChange, bufferingNewest limit: Int = 256
    ) -> AsyncStream<StoreNotification> {
        let (stream, continuation) = AsyncStream<StoreNotification>.makeStream(
            bufferingPolicy: .bufferingNewest(max(1, limit)))
        let token = notificationCenter.addObserver(forName: name, object: self, queue: nil) { notification in
            continuation.yield(notification)
        }
        // A notification yielded after the stream ends is dropped, so ending it need not wait for one.
        continuation.onTermination = { _ in token.cancelWithoutWaiting() }
        return stream
    }
}

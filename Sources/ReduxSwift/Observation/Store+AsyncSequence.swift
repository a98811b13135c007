import Foundation

extension Store {
    /// The store's states as an asynchronous sequence: the current one first, then the newest
    /// after each change.
    ///
    /// ```swift
    /// for await state in store.states {
    ///     render(state)
    /// }
    /// ```
    ///
    /// Changes are coalesced, latest wins: a consumer that falls behind gets the newest state when
    /// it asks next, never a backlog, so a slow consumer neither blocks the store nor makes it
    /// buffer. Each state is decoded when the consumer asks for it, as a deep copy like
    /// ``currentState()``. Ending the loop or cancelling its task removes the observer.
    public var states: StateSequence<State> {
        StateSequence(store: self, select: { $0 }, isDuplicate: { _, _ in false })
    }

    /// A value derived from the state as an asynchronous sequence: its current value first, then
    /// each new value, skipping repeats.
    ///
    /// ```swift
    /// for await count in store.values(of: \.todos.count) {
    ///     badge.text = "\(count)"
    /// }
    /// ```
    ///
    /// Coalesced like ``states``: a consumer that falls behind gets the newest value.
    public func values<Value: Equatable>(of select: @escaping @Sendable (State) -> Value) -> StateSequence<
        Value
    > {
        StateSequence(store: self, select: select, isDuplicate: { $0 == $1 })
    }

    /// This store's notifications as an asynchronous sequence.
    ///
    /// ```swift
    /// for await notification in store.notifications() {
    ///     for action in notification.actions { log(action.identifier) }
    /// }
    /// ```
    ///
    /// Unlike ``states``, every notification matters here, so they are buffered, up to `limit`;
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

/// States of a store, or values selected from them, as an asynchronous sequence; see
/// ``Store/states`` and ``Store/values(of:)``.
public struct StateSequence<Element>: AsyncSequence {
    private let subscribe: () -> (AsyncStream<Void>, ObserverToken)
    private let read: () -> Element
    private let isDuplicate: (Element, Element) -> Bool

    init<State: StateProtocol>(
        store: Store<State>,
        select: @escaping (State) -> Element,
        isDuplicate: @escaping (Element, Element) -> Bool
    ) {
        subscribe = {
            // One pending signal at most: a change that arrives while one waits changes nothing.
            let (signals, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            let token = store.observeChanges { _ in continuation.yield() }
            continuation.onTermination = { _ in token.cancelWithoutWaiting() }
            continuation.yield()  // the current state comes first
            return (signals, token)
        }
        read = { select(store.currentState()) }
        self.isDuplicate = isDuplicate
    }

    /// Starts observing the store.
    public func makeAsyncIterator() -> Iterator {
        let (signals, token) = subscribe()
        return Iterator(
            signals: signals.makeAsyncIterator(), token: token, read: read, isDuplicate: isDuplicate)
    }

    /// Waits for changes and reads the newest state when asked.
    public struct Iterator: AsyncIteratorProtocol {
        private var signals: AsyncStream<Void>.Iterator
        /// Kept so that the observer lives exactly as long as the iterator.
        private let token: ObserverToken
        private let read: () -> Element
        private let isDuplicate: (Element, Element) -> Bool
        private var last: Element?

        init(
            signals: AsyncStream<Void>.Iterator, token: ObserverToken, read: @escaping () -> Element,
            isDuplicate: @escaping (Element, Element) -> Bool
        ) {
            self.signals = signals
            self.token = token
            self.read = read
            self.isDuplicate = isDuplicate
        }

        /// The newest state (or value) after the next change; `nil` when the task is cancelled.
        public mutating func next() async -> Element? {
            while await signals.next() != nil {
                let value = read()
                if let last, isDuplicate(last, value) { continue }
                last = value
                return value
            }
            // The stream has ended, so a change yielded now is dropped: nothing to wait for.
            token.cancelWithoutWaiting()
            return nil
        }
    }
}

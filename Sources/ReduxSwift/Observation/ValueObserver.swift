import Dispatch
import Foundation

/// An observer a token can end: a value observer or a center observer (of notifications).
protocol CancellableObserver: AnyObject, Sendable {
    /// Every call of the user's code passes it; cancelling closes it.
    var gate: CallGate { get }
    /// Stops future calls; returns whether the observer was still active. Calls under way are not
    /// waited for.
    func deactivate() -> Bool
    /// Removes the observer from where it is kept, after ``deactivate()`` returned `true`.
    func remove(from center: StoreNotificationCenter?)
}

extension CancellableObserver {
    /// Ends the observer with the promise of ``ObserverToken/cancel()``: once this returns, no
    /// call of the user's code begins, and none is under way on another thread (with that
    /// method's exceptions: a call on this thread, and store code, which never waits).
    func cancel(removingFrom center: StoreNotificationCenter?) {
        if deactivate() { remove(from: center) }
        gate.waitForCallsOnOtherThreads()
    }
}

/// A state watcher: what the holder of a store's live state runs at a place in the queue, and after
/// each change while it asks to: a value observer, or a `PlaceInQueue` a thread waits for. Not
/// generic, so that the store's pipeline keeps a plain list of them.
protocol StateWatcher: AnyObject {
    /// Selects the first value from the live state, at the watcher's place in the queue; returns
    /// whether to go on selecting after each change.
    func activate(on state: StatePointer) -> Bool
    /// Selects from the live state after a pass that changed it, and offers the value; returns
    /// `false` once the observer is cancelled, so that the pipeline drops it.
    func select(from state: StatePointer) -> Bool
    /// The store is gone: no value will come any more.
    func storeDidEnd()
    /// Whether the observer has ended: it was cancelled, or its owner is gone (then it ends now),
    /// so that the pipeline may drop it before it selects again. Called by the holder of the
    /// state, while any thread may cancel.
    func hasEnded() -> Bool
}

/// The one value observer behind every observing form: `observe(_:)` with or without an
/// owner, `values(of:)` and `ObservedValue`.
///
/// **Selecting.** The holder of the store's live state (the drainer, on the store's queue) selects
/// each value from the live state itself, at the registration's place in the queue and then after
/// every pass that committed a change: no JSON, no copy of the state, a cost proportional to what
/// the selector reads. The value is `Sendable`, so nothing handed out shares mutable storage with
/// the live state; a selected array shares its buffer until the next mutation copies it, as any
/// Swift value does. When `Value` is `Equatable`, a value equal to the last one selected is not
/// offered at all, so an unrelated change costs one selection and one comparison.
///
/// **Delivering.** Through ``Mailbox``, the algorithm every observer shares, with a one-slot
/// mailbox where a newer value replaces an older one not yet delivered. The deliverer skips a value
/// equal to the last one delivered (an older value can come back after a newer one was replaced).
/// Every call of the user's block passes ``gate``, which gives ``ObserverToken/cancel()`` its
/// promise.
///
/// `@unchecked Sendable`: `closures` is a `LockedValue`; `lastOffered` is touched only by the
/// holder of the store's live state, which the store's mutex hands from thread to thread;
/// `lastDelivered` only by the deliverer, which the mailbox's lock hands over (for an iterator,
/// by the one task that iterates); `kernel` is a weak reference assigned once, in `init`; the
/// other properties are immutable and `Sendable`.
final class ValueObserver<State: StateProtocol, Value: Sendable>: StateWatcher, CancellableObserver,
    @unchecked Sendable
{
    /// The user's code, released when the observer is cancelled.
    /// A class, so that taking it out of its lock copies a reference: a closure taken out through
    /// the lock's generic result is re-wrapped, an allocation on every delivery.
    private final class Closures: Sendable {
        let select: @Sendable (State) -> Value
        let deliver: @Sendable (Value) -> Void

        init(select: @escaping @Sendable (State) -> Value, deliver: @escaping @Sendable (Value) -> Void) {
            self.select = select
            self.deliver = deliver
        }
    }

    private let isDuplicate: (@Sendable (Value, Value) -> Bool)?
    private weak var kernel: StoreKernel?
    /// The owner the observer lives with, if any: once it is freed, the observer ends at the
    /// store's next change, whether or not its value changed.
    private let owner: (any OwnerBinding)?
    private let closures: LockedValue<Closures?>
    private let mailbox: Mailbox<NewestValue<Value>>
    /// Signalled once the first value is offered, for a registering thread that delivers it.
    private let activated = DispatchSemaphore(value: 0)
    let gate = CallGate()
    private var lastOffered: Value?
    private var lastDelivered: Value?

    init(
        kernel: StoreKernel,
        select: @escaping @Sendable (State) -> Value,
        isDuplicate: (@Sendable (Value, Value) -> Bool)?,
        target: Mailbox<NewestValue<Value>>.Target,
        owner: (any OwnerBinding)? = nil,
        deliver: @escaping @Sendable (Value) -> Void
    ) {
        self.kernel = kernel
        self.owner = owner
        self.isDuplicate = isDuplicate
        closures = LockedValue(Closures(select: select, deliver: deliver))
        mailbox = Mailbox(target: target, kernel: kernel)
        // Weak: a delivery scheduled on a queue may outlive the observer.
        mailbox.onDelivery { [weak self] value in self?.deliverValue(value) }
        owner?.attach(self)
    }

    // MARK: Registering

    /// Registers with the store: the store's queue selects the first value after every entry
    /// queued before this call. With `firstValueHere`, a thread that may wait (not store code)
    /// waits for that value and delivers it before returning; values that come while it does go
    /// to the target, as later ones do.
    func start(firstValueHere: Bool) {
        guard let kernel else { return }
        let deliversFirst = firstValueHere && StoreCodeScope.current == nil
        if deliversFirst { mailbox.claim() }
        kernel.enqueue(.command(StartWatching(watcher: self)), .neverHeld)
        guard deliversFirst else { return }
        kernel.lendPriorityIfMainThread()
        activated.wait()
        mailbox.deliverFirst()
    }

    // MARK: Selecting (as the holder of the live state)

    func activate(on state: StatePointer) -> Bool {
        let isActive = select(from: state)
        activated.signal()
        return isActive
    }

    func hasEnded() -> Bool {
        guard gate.isOpen else { return true }
        guard let owner, !owner.isOwnerAlive else { return false }
        _ = deactivate()
        return true
    }

    func select(from state: StatePointer) -> Bool {
        guard gate.isOpen, let select = closures.withLock({ $0 })?.select else { return false }
        if let owner, !owner.isOwnerAlive {
            _ = deactivate()
            return false
        }
        let value = select(state.assuming(State.self).pointee)
        if let isDuplicate {
            if let lastOffered, isDuplicate(lastOffered, value) { return true }
            lastOffered = value
        }
        mailbox.offer(value)
        return true
    }

    // MARK: Delivering

    private func deliverValue(_ value: Value) {
        if let isDuplicate {
            if let lastDelivered, isDuplicate(lastDelivered, value) { return }
            lastDelivered = value
        }
        guard let deliver = closures.withLock({ $0 })?.deliver else { return }
        _ = gate.run { deliver(value) }
    }

    /// The next value for an asynchronous iterator: the first one, then each new one; `nil` once
    /// the task is cancelled or the observer is.
    func next() async -> Value? {
        while let value = await mailbox.next() {
            if let isDuplicate {
                if let lastDelivered, isDuplicate(lastDelivered, value) { continue }
                lastDelivered = value
            }
            return value
        }
        return nil
    }

    // MARK: Cancelling

    func deactivate() -> Bool {
        guard gate.close() else { return false }
        let released = closures.withLock { closures in
            defer { closures = nil }
            return closures
        }
        // Released after the lock: the user's closures may run user code in `deinit`.
        _ = released
        mailbox.close()
        return true
    }

    func remove(from center: StoreNotificationCenter?) {
        // The store's pipeline drops a closed observer at its next pass.
    }

    func storeDidEnd() {
        // A `values(of:)` loop gets the value that waits, if any, then ends.
        mailbox.finish()
    }
}

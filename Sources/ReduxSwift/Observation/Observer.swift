import Dispatch
import Foundation

/// A registration a token can end: an observer of values or of notifications.
protocol ObserverRegistration: AnyObject, Sendable {
    /// Every call of the user's code passes it; cancelling closes it.
    var gate: CallGate { get }
    /// Stops future calls; returns whether the registration was still active. Calls under way are
    /// not waited for.
    func deactivate() -> Bool
    /// Forgets the registration where it is registered, after ``deactivate()`` returned `true`.
    func remove(from center: StoreNotificationCenter?)
}

/// What the owner of a store's live state runs for each observer of values: not generic, so that
/// the store's pipeline keeps a plain list of them.
protocol LiveSelection: AnyObject {
    /// Selects the first value from the live state, at the registration's place in the queue.
    func activate(on state: StatePointer)
    /// Selects from the live state after a pass that changed it, and offers the value; returns
    /// `false` once the observer is cancelled, so that the pipeline drops it.
    func select(from state: StatePointer) -> Bool
}

/// Where an ``Observer`` delivers.
enum ObserverTarget {
    /// On the store's delivery thread; the first value on the registering thread when it may wait.
    case deliveryThread
    /// On a dispatch queue (the main queue for main-actor observers).
    case queue(DispatchQueue)
    /// To an asynchronous iterator, which pulls each value with ``Observer/next()``.
    case iterator
}

/// The one observer of values behind every observing form: `observe(_:)` with or without an
/// owner, `values(of:)` and `ObservedValue`.
///
/// **Selecting.** The owner of the store's live state (the drainer, on the store's queue) selects
/// each value from the live state itself, at the registration's place in the queue and then after
/// every pass that committed a change: no JSON, no copy of the state, a cost proportional to what
/// the selector reads. The value is `Sendable`, so nothing handed out shares mutable storage with
/// the live state; a selected array shares its buffer until the next mutation copies it, as any
/// Swift value does. A value equal to the last one selected is not offered at all (when there is a
/// test for "equal"), so an unrelated change costs one selection and one comparison.
///
/// **Delivering.** Values wait in a one-slot mailbox, where a newer value replaces an older one
/// that was not delivered yet (coalescing). One thread at a time delivers: the one that finds no
/// delivery under way schedules one on the target and the deliverer takes values until none is
/// left, so deliveries never overlap or go back to an older value. The deliverer skips a value
/// equal to the last one delivered. Every call of the user's block passes ``gate``, which gives
/// ``ObserverToken/cancel()`` its promise. No lock is held while user code runs.
///
/// `@unchecked Sendable`: `mailbox` and `closures` are `LockedValue`s; `lastOffered` is touched
/// only by the owner of the store's live state, which the store's lock hands from thread to
/// thread; `lastDelivered` only by the deliverer, which the mailbox's lock hands over (for an
/// iterator, by the one task that iterates); `kernel` is a weak reference assigned once, in
/// `init`; the other properties are immutable and `Sendable`.
final class Observer<State: StateProtocol, Value: Sendable>: LiveSelection, ObserverRegistration,
    @unchecked Sendable
{
    private struct Mailbox {
        /// The newest value offered and not yet taken.
        var pending: Value?
        /// Whether a deliverer is at work or scheduled; it takes `pending` until it is empty.
        var isDelivering = false
        /// An iterator waiting for the next value.
        var waiter: CheckedContinuation<Value?, Never>?
        /// Whether the iterator's sequence ended.
        var isFinished = false
    }

    /// The user's code, released when the observer is cancelled.
    private struct Closures {
        let select: @Sendable (State) -> Value
        let deliver: @Sendable (Value) -> Void
    }

    private let isDuplicate: (@Sendable (Value, Value) -> Bool)?
    private let target: ObserverTarget
    private weak var kernel: StoreKernel?
    private let closures: LockedValue<Closures?>
    private let mailbox = LockedValue(Mailbox())
    /// Signalled once the first value is offered, for a registering thread that delivers it.
    private let activated = DispatchSemaphore(value: 0)
    let gate = CallGate()
    private var lastOffered: Value?
    private var lastDelivered: Value?

    init(
        kernel: StoreKernel,
        select: @escaping @Sendable (State) -> Value,
        isDuplicate: (@Sendable (Value, Value) -> Bool)?,
        target: ObserverTarget,
        deliver: @escaping @Sendable (Value) -> Void
    ) {
        self.kernel = kernel
        self.isDuplicate = isDuplicate
        self.target = target
        closures = LockedValue(Closures(select: select, deliver: deliver))
    }

    // MARK: Registering

    /// Registers with the store: the store's queue selects the first value after every entry
    /// queued before this call. With `firstValueHere`, a thread that may wait (not store code)
    /// waits for that value and delivers it before returning, along with any newer one that comes
    /// meanwhile; later values go to the target. Returns whether this thread delivered.
    @discardableResult
    func start(firstValueHere: Bool) -> Bool {
        guard let kernel else { return false }
        let deliversFirst = firstValueHere && ReducerContext.current == nil
        if deliversFirst { mailbox.withLock { $0.isDelivering = true } }
        kernel.enqueue(.observe(self), .neverHeld)
        guard deliversFirst else { return false }
        kernel.lendPriorityIfMainThread()
        activated.wait()
        deliverPending()
        return true
    }

    // MARK: Selecting (as the owner of the live state)

    func activate(on state: StatePointer) {
        _ = select(from: state)
        activated.signal()
    }

    func select(from state: StatePointer) -> Bool {
        guard gate.isOpen, let select = closures.withLock({ $0?.select }) else { return false }
        offer(select(state.assuming(State.self).pointee))
        return true
    }

    /// Puts `value` in the mailbox, unless it equals the last value offered, and starts a delivery
    /// when none is under way.
    private func offer(_ value: Value) {
        if let isDuplicate {
            if let lastOffered, isDuplicate(lastOffered, value) { return }
            lastOffered = value
        }
        var replaced: Value?
        var waiter: CheckedContinuation<Value?, Never>?
        let mustSchedule = mailbox.withLock { mailbox -> Bool in
            if let waiting = mailbox.waiter {
                mailbox.waiter = nil
                waiter = waiting
                return false
            }
            replaced = mailbox.pending
            mailbox.pending = value
            if case .iterator = target { return false }
            guard !mailbox.isDelivering else { return false }
            mailbox.isDelivering = true
            return true
        }
        // Released after the lock: a value's `deinit` may be user code.
        _ = replaced
        waiter?.resume(returning: value)
        if mustSchedule { scheduleDelivery() }
    }

    private func scheduleDelivery() {
        switch target {
        case .deliveryThread:
            kernel?.onDeliveryThread { self.deliverPending() }
        case .queue(let queue):
            queue.async { self.deliverPending() }
        case .iterator:
            break
        }
    }

    // MARK: Delivering

    /// Delivers the values offered until none is left, then stops being the deliverer.
    private func deliverPending() {
        while let value = mailbox.withLock({ mailbox -> Value? in
            guard let value = mailbox.pending else {
                mailbox.isDelivering = false
                return nil
            }
            mailbox.pending = nil
            return value
        }) {
            if let isDuplicate {
                if let lastDelivered, isDuplicate(lastDelivered, value) { continue }
                lastDelivered = value
            }
            guard let deliver = closures.withLock({ $0?.deliver }) else { continue }
            _ = gate.run { deliver(value) }
        }
    }

    /// The next value for an asynchronous iterator: the first one, then each new one; `nil` once
    /// the task is cancelled or the observer is.
    func next() async -> Value? {
        while let value = await take() {
            if let isDuplicate {
                if let lastDelivered, isDuplicate(lastDelivered, value) { continue }
                lastDelivered = value
            }
            return value
        }
        return nil
    }

    private func take() async -> Value? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = mailbox.withLock { mailbox -> Value?? in
                    if mailbox.isFinished { return .some(nil) }
                    if let value = mailbox.pending {
                        mailbox.pending = nil
                        return .some(value)
                    }
                    mailbox.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    /// Ends the iterator: a waiting `next()` returns `nil`, and so does every later one.
    private func finish() {
        let waiter = mailbox.withLock { mailbox in
            mailbox.isFinished = true
            defer { mailbox.waiter = nil }
            return mailbox.waiter
        }
        waiter?.resume(returning: nil)
    }

    // MARK: Cancelling

    func deactivate() -> Bool {
        guard gate.close() else { return false }
        let released = closures.withLock { closures in
            defer { closures = nil }
            return closures
        }
        let dropped = mailbox.withLock { mailbox in
            defer { mailbox.pending = nil }
            return mailbox.pending
        }
        // Released after the locks: the user's closures and values may run user code in `deinit`.
        _ = (released, dropped)
        finish()
        return true
    }

    func remove(from center: StoreNotificationCenter?) {
        // The store's pipeline drops a closed observer at its next pass.
    }
}

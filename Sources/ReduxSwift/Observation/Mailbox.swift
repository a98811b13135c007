import Dispatch
import Foundation

#if canImport(Synchronization) && !canImport(Darwin)
import Synchronization
#endif

/// What waits in a mailbox for the observer's deliverer, and how a new item joins it: its policy
/// (``NewestValue`` or ``MergedNotifications``).
protocol MailboxContents: SendableMetatype {
    associatedtype Item: Sendable
    init()
    /// Adds an item; returns one it displaced, which the caller releases after the lock (its
    /// `deinit` may be user code).
    mutating func add(_ item: Item) -> Item?
    /// Takes the next item to deliver, oldest first.
    mutating func take() -> Item?
    /// Whether no item waits.
    var isEmpty: Bool { get }
    /// Whether a newer item replaces the one that waits: then the thread that starts a delivery
    /// hands it its item straight, and the deliverer drops that item if a newer one came first.
    static var newerReplaces: Bool { get }
}

/// The newest value offered and not yet delivered: a newer one replaces it (latest wins).
struct NewestValue<Value: Sendable>: MailboxContents {
    private var value: Value?

    init() {}

    mutating func add(_ item: Value) -> Value? {
        defer { value = item }
        return value
    }

    mutating func take() -> Value? {
        defer { value = nil }
        return value
    }

    var isEmpty: Bool { value == nil }

    static var newerReplaces: Bool { true }
}

/// Notifications not yet delivered, in order. A store's change notification that arrives while the
/// last waiting one is a change notification of the same store merges into it: one notification
/// listing the actions of both, in order. Other notifications (failures, notifications posted by
/// hand) keep their place between them. So an observer slower than the store gets one notification
/// per call it makes, never a backlog, and still hears every action exactly once.
///
/// At most `limit` notifications wait: beyond it the oldest is dropped, which only notifications
/// that cannot merge (failures, notifications posted by hand) can cause.
struct MergedNotifications: MailboxContents {
    private enum Waiting {
        case single(StoreNotification)
        /// A change notification and the runs of the ones merged into it.
        case merged(StoreNotification, [ActionRun])

        var notification: StoreNotification {
            switch self {
            case .single(let notification): return notification
            case .merged(let first, let runs): return runs.isEmpty ? first : first.merging(runs)
            }
        }
    }

    private var waiting: [Waiting] = []
    private let limit: Int

    init() { limit = .max }

    /// Keeps at most `limit` notifications waiting (at least one).
    init(limit: Int) { self.limit = max(1, limit) }

    mutating func add(_ notification: StoreNotification) -> StoreNotification? {
        let runs = notification.mergeableRuns
        if let runs, case .merged(let first, var merged)? = waiting.last, first.object === notification.object
        {
            waiting.removeLast()
            merged.append(contentsOf: runs)
            waiting.append(.merged(first, merged))
        } else if runs != nil {
            waiting.append(.merged(notification, []))
        } else {
            waiting.append(.single(notification))
        }
        return waiting.count > limit ? waiting.removeFirst().notification : nil
    }

    var isEmpty: Bool { waiting.isEmpty }

    static var newerReplaces: Bool { false }

    mutating func take() -> StoreNotification? {
        waiting.isEmpty ? nil : waiting.removeFirst().notification
    }
}

/// The one delivery algorithm of every observer, a mailbox: items wait in its `Contents` (the
/// newest value, or notifications merged in order), one thread at a time delivers them, in order,
/// and nothing is delivered once the observer is cancelled.
///
/// The thread that offers an item while no delivery is under way starts one on the target (a
/// dispatch queue, the store's delivery thread, or a waiting iterator); the deliverer takes items
/// until none is left, then stops. A thread that offers while a delivery is under way leaves its
/// item to that deliverer. So deliveries never overlap and never go out of order, and no lock is
/// held while the observer's code runs.
///
/// Where a newer item replaces the one that waits (``NewestValue``), the thread that starts a
/// delivery hands the deliverer its item rather than leaving it in the box, which saves the
/// deliverer a turn of the lock; the deliverer delivers it unless `newerCame` says that an item
/// was offered since, which replaces it as it would have in the box.
///
/// `@unchecked Sendable`: `box` is a `LockedValue`; `newerCame` is an atomic (or a `LockedValue`);
/// `kernel` is a weak reference assigned once, in `init`; `deliver` is touched only by the
/// deliverer, which the lock hands from thread to thread; `handedOver` is written under the lock
/// by the thread that starts a delivery, before it starts the deliverer, and read and cleared by
/// that deliverer before it ends (under the lock) the delivery, so one delivery's accesses are
/// ordered before the next one's by the lock and the start of the deliverer; the other
/// properties are immutable and `Sendable`.
final class Mailbox<Contents: MailboxContents>: @unchecked Sendable {
    /// Where deliveries run.
    enum Target {
        /// On a dispatch queue (the main queue for main-actor observers).
        case queue(DispatchQueue)
        /// On the store's delivery thread.
        case deliveryThread
        /// In the task of an asynchronous iterator, which pulls each item with ``next()``.
        case iterator
    }

    private struct Box {
        var items = Contents()
        /// Whether a deliverer is at work or scheduled; it takes items until none is left.
        var isDelivering = false
        /// An iterator waiting for the next item.
        var waiter: CheckedContinuation<Contents.Item?, Never>?
        /// Whether the observer is cancelled: nothing is kept or delivered any more.
        var isClosed = false
        /// Whether nothing more will be offered: an iterator gets what waits, then the end.
        var isFinished = false
        /// Whether the registering thread is the deliverer, for the first value only.
        var deliversFirstHere = false
        /// Whether an item waits for the delivery thread while the registering thread delivers the
        /// first value: the store counts it as a delivery to wait for, until the delivery thread
        /// takes over.
        var holdsDelivery = false
    }

    private let box: LockedValue<Box>
    #if canImport(Synchronization) && !canImport(Darwin)
    /// Whether an item was offered while a delivery was under way; set to `false` when a delivery
    /// starts with an item handed over. Written only under the box's lock, read by the deliverer
    /// without it. An atomic where the platform floor allows it (Linux); on Apple platforms
    /// `Atomic` needs macOS 15 and its peers, so there it is a `LockedValue`.
    private let newerCame = Atomic<Bool>(false)

    private func noteNewer(_ came: Bool) { newerCame.store(came, ordering: .releasing) }

    private var newerHasCome: Bool { newerCame.load(ordering: .acquiring) }
    #else
    private let newerCame = LockedValue(false)

    private func noteNewer(_ came: Bool) { newerCame.withLock { $0 = came } }

    private var newerHasCome: Bool { newerCame.withLock { $0 } }
    #endif
    private let target: Target
    private weak var kernel: StoreKernel?
    /// Delivers one item; set once, before the first offer.
    private var deliver: (Contents.Item) -> Void = { _ in }
    /// The item the thread that started a delivery handed the deliverer (see
    /// ``MailboxContents/newerReplaces``). A property rather than a capture, so that starting the
    /// deliverer on a queue allocates no more than it did without it.
    private var handedOver: Contents.Item?

    /// A mailbox that delivers to `target`; `contents` holds what waits, with the limits it keeps.
    init(target: Target, kernel: StoreKernel?, contents: Contents = Contents()) {
        box = LockedValue(Box(items: contents))
        self.target = target
        self.kernel = kernel
    }

    /// Sets what delivers one item; called once, before anything is offered.
    func onDelivery(_ deliver: @escaping (Contents.Item) -> Void) {
        self.deliver = deliver
    }

    /// Makes the calling thread the deliverer of the first value: offers wait for its
    /// ``deliverFirst()``.
    func claim() {
        box.withLock { box in
            box.isDelivering = true
            box.deliversFirstHere = true
        }
    }

    /// Delivers the first value on the thread that claimed the delivery, then hands what came
    /// meanwhile to the target: later values never come on the registering thread.
    func deliverFirst() {
        if let first = box.withLock({ $0.items.take() }) { deliver(first) }
        let (handsOver, releases) = box.withLock { box -> (Bool, Bool) in
            box.deliversFirstHere = false
            guard box.items.isEmpty else { return (true, false) }
            box.isDelivering = false
            defer { box.holdsDelivery = false }
            return (false, box.holdsDelivery)
        }
        if releases { kernel?.deliveryHeld(false) }
        if handsOver { schedule(takingOverHold: true) }
    }

    /// Offers an item: hands it to a waiting iterator, or leaves it for the deliverer under way,
    /// or starts a delivery on the target.
    func offer(_ item: Contents.Item) {
        var displaced: Contents.Item?
        var waiter: CheckedContinuation<Contents.Item?, Never>?
        let mustSchedule = box.withLock { box -> Bool in
            guard !box.isClosed else { return false }
            if let waiting = box.waiter {
                box.waiter = nil
                waiter = waiting
                return false
            }
            if case .iterator = target {
                displaced = box.items.add(item)
                return false
            }
            if box.isDelivering {
                displaced = box.items.add(item)
                if Contents.newerReplaces { noteNewer(true) }
                if box.deliversFirstHere, !box.holdsDelivery, case .deliveryThread = target {
                    // Under the lock, so that the hold is counted before the first value's
                    // deliverer can hand it over.
                    box.holdsDelivery = true
                    kernel?.deliveryHeld(true)
                }
                return false
            }
            box.isDelivering = true
            if Contents.newerReplaces, box.items.isEmpty {
                noteNewer(false)
                handedOver = item
            } else {
                displaced = box.items.add(item)
            }
            return true
        }
        _ = displaced
        if let waiter {
            waiter.resume(returning: item)
        } else if mustSchedule {
            schedule(takingOverHold: false)
        }
    }

    /// Starts the deliverer on the target. `takingOverHold`: the registering thread, which delivered
    /// the first value, hands over the delivery it may hold (see ``deliverFirst()``).
    private func schedule(takingOverHold: Bool) {
        switch target {
        case .queue(let queue):
            queue.async { self.deliverAll() }
        case .deliveryThread:
            guard let kernel else {
                // The store is gone: nothing will ever be delivered. The item handed over is
                // released after the lock, like any dropped item.
                let dropped = box.withLock { box -> Contents.Item? in
                    box.isDelivering = false
                    defer { handedOver = nil }
                    return handedOver
                }
                _ = dropped
                return
            }
            kernel.onDeliveryThread {
                // The delivery thread takes over what the registering thread held: a wait that
                // looks again now finds this delivery ahead of it.
                if takingOverHold,
                    self.box.withLock({ box in
                        defer { box.holdsDelivery = false }
                        return box.holdsDelivery
                    })
                {
                    kernel.deliveryHeld(false)
                }
                self.deliverAll()
            }
        case .iterator:
            break
        }
    }

    /// Delivers the item handed over by the offer that started this delivery, unless a newer item
    /// came since (it replaces it), then the waiting items, oldest first, until none is left; then
    /// stops being the deliverer. Only the deliverer calls it.
    private func deliverAll() {
        if let first = handedOver {
            handedOver = nil
            if !newerHasCome { deliver(first) }
        }
        while let item = box.withLock({ box -> Contents.Item? in
            guard let item = box.items.take() else {
                box.isDelivering = false
                return nil
            }
            return item
        }) {
            deliver(item)
        }
    }

    /// The next item for an asynchronous iterator; `nil` once its task is cancelled or the
    /// observer is.
    func next() async -> Contents.Item? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = box.withLock { box -> Contents.Item?? in
                    if box.isClosed { return .some(nil) }
                    if let item = box.items.take() { return .some(item) }
                    if box.isFinished { return .some(nil) }
                    box.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            close()
        }
    }

    /// Says that nothing more will be offered: what waits is still delivered, then a waiting
    /// iterator, and every later ``next()``, gets the end.
    func finish() {
        let waiter = box.withLock { box in
            box.isFinished = true
            guard box.items.isEmpty else { return nil as CheckedContinuation<Contents.Item?, Never>? }
            defer { box.waiter = nil }
            return box.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Stops every delivery: drops the waiting items (released after the lock), and ends a waiting
    /// iterator and every later ``next()``.
    func close() {
        let (dropped, waiter) = box.withLock { box in
            box.isClosed = true
            defer {
                box.items = Contents()
                box.waiter = nil
            }
            return (box.items, box.waiter)
        }
        _ = dropped
        waiter?.resume(returning: nil)
    }
}

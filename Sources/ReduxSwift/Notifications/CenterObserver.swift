import Dispatch
import Foundation

/// One observer of a ``StoreNotificationCenter``: its filter, where it is delivered, and the gate
/// its calls pass.
///
/// `@unchecked Sendable`: `bucket` is read and written only while the registry's lock is held, and
/// every other stored property is a `let` of a `Sendable` type.
final class CenterObserver: CallGate, CancellableObserver, @unchecked Sendable {
    let id: UInt64
    let name: Notification.Name?
    let objectID: ObjectIdentifier?
    /// The sender this observer listens to, shared by every observer of it.
    let sender: SenderBox?
    let queue: DispatchQueue?
    /// The gate that `block` itself passes around the call of the user's code only (selector and
    /// key-path observers, which wait for the store and decode before they call it); `nil` when
    /// the observer is the gate of its block's calls.
    private let sharedGate: CallGate?
    private let block: @Sendable (StoreNotification) -> Void
    /// Delivers on the observer's queue, merging the notifications that wait; `nil` without a
    /// queue.
    private let mailbox: Mailbox<MergedNotifications>?
    /// The bucket that holds this observer while it is registered, so removal needs no lookup. The
    /// cycle it forms with the bucket ends when the observer is removed, which every token does.
    /// Unchecked exclusivity: only touched under the registry's lock, which makes each access
    /// exclusive already.
    @exclusivity(unchecked) var bucket: ObserverBucket?

    init(
        id: UInt64,
        name: Notification.Name?,
        sender: SenderBox?,
        queue: DispatchQueue?,
        gate: CallGate?,
        block: @escaping @Sendable (StoreNotification) -> Void
    ) {
        self.id = id
        self.name = name
        self.objectID = sender?.id
        self.sender = sender
        self.queue = queue
        sharedGate = gate
        mailbox = queue.map { Mailbox(target: .queue($0), kernel: nil) }
        self.block = block
        super.init()
        // Weak: a delivery queued on the observer's queue may outlive the observer.
        mailbox?.onDelivery { [weak self] notification in self?.invoke(notification) }
    }

    /// Every call of the observer's code passes it; cancelling closes it.
    var gate: CallGate { sharedGate ?? self }

    var bucketKey: BucketKey { BucketKey(name: name, objectID: objectID) }

    /// Stops future calls and drops the notifications waiting for the queue; returns whether the
    /// observer was still active. Calls under way are not waited for.
    func deactivate() -> Bool {
        guard gate.close() else { return false }
        mailbox?.close()
        return true
    }

    func remove(from center: StoreNotificationCenter?) {
        center?.remove(self)
    }

    /// Delivers `notification` now (no queue) or on the observer's queue.
    ///
    /// `sender` is the box of the notification's object, or `nil` when that object has no
    /// observers of its own. An address can be reused after its object is freed, so an observer that
    /// filters on a sender matches by box, never by address.
    ///
    /// Each call passes the gate on the thread that makes it, so no call begins after the gate is
    /// closed, including calls already queued. With a queue, notifications go through the
    /// ``Mailbox`` every observer shares: one deliverer at a time, in order, and notifications
    /// that arrive while others wait merge into them (see ``MergedNotifications``). A
    /// notification that comes from a sender the observer does not observe is not its own.
    @inline(__always)
    func deliver(_ notification: StoreNotification, sender: SenderBox?) {
        if let observed = self.sender {
            guard observed === sender else { return }
        }
        if let mailbox {
            mailbox.offer(notification)
        } else {
            invoke(notification)
        }
    }

    /// Calls the block with `notification`, unless the observer was cancelled; a store's failure
    /// is heard once a block is called with it (see ``FailureHearing``).
    @inline(__always)
    private func invoke(_ notification: StoreNotification) {
        if let sharedGate {
            guard sharedGate.isOpen else { return }
            notification.hearing?.markHeard()
            block(notification)
        } else {
            run {
                notification.hearing?.markHeard()
                block(notification)
            }
        }
    }
}

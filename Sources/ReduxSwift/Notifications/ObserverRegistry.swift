import Dispatch
import Foundation

/// One registered observer: its filter, where it is delivered, and the gate its calls pass.
///
/// `@unchecked Sendable`: `bucket` is read and written only while the registry's lock is held, and
/// every other stored property is a `let` of a `Sendable` type.
final class ObserverEntry: CallGate, @unchecked Sendable {
    let id: UInt64
    let name: Notification.Name?
    let objectID: ObjectIdentifier?
    /// The sender this entry observes, shared by every entry that observes it.
    let sender: SenderBox?
    let queue: DispatchQueue?
    /// The gate that `block` itself passes around the call of the user's code only (selector and
    /// key-path observers, which wait for the store and decode before they call it); `nil` when
    /// the entry is the gate of its block's calls.
    private let sharedGate: CallGate?
    private let block: @Sendable (StoreNotification) -> Void
    /// Notifications waiting for the observer's queue; `nil` without a queue.
    private let mailbox: QueueMailbox?
    /// The bucket that holds this entry while it is registered, so removal needs no lookup. The
    /// cycle it forms with the bucket ends when the entry is removed, which every token does.
    /// Unchecked exclusivity: only touched under the registry's lock, which makes each access
    /// exclusive already.
    @exclusivity(unchecked) fileprivate var bucket: ObserverBucket?

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
        mailbox = queue == nil ? nil : QueueMailbox()
        self.block = block
        super.init()
    }

    /// Every call of the observer's code passes it; cancelling closes it.
    var gate: CallGate { sharedGate ?? self }

    var bucketKey: BucketKey { BucketKey(name: name, objectID: objectID) }

    /// Stops future calls and drops the notifications waiting for the queue; returns whether the
    /// entry was still active. Calls under way are not waited for.
    func deactivate() -> Bool {
        guard gate.close() else { return false }
        mailbox?.removeAll()
        return true
    }

    /// Delivers `notification` now (no queue) or on the observer's queue.
    ///
    /// `sender` is the box of the notification's object, or `nil` when that object has no
    /// observers of its own. An address can be reused after its object is freed, so an entry that
    /// filters on a sender matches by box, never by address.
    ///
    /// Each call passes the gate on the thread that makes it, so no call begins after the gate is
    /// closed, including calls already queued. With a queue, notifications wait in the mailbox and
    /// at most one block per observer is queued: notifications that arrive while it waits merge
    /// into it (see ``QueueMailbox``).
    @inline(__always)
    func deliver(_ notification: StoreNotification, sender: SenderBox?) {
        if let observed = self.sender {
            guard observed === sender else { return }
        }
        if let mailbox, let queue {
            if mailbox.add(notification) {
                queue.async { self.deliverQueued() }
            }
        } else {
            invoke(notification)
        }
    }

    private func deliverQueued() {
        guard let mailbox else { return }
        for notification in mailbox.takeAll() {
            invoke(notification)
        }
    }

    @inline(__always)
    private func invoke(_ notification: StoreNotification) {
        if let sharedGate {
            if sharedGate.isOpen { block(notification) }
        } else {
            run { block(notification) }
        }
    }
}

/// The notifications waiting for one observer's queue, and whether a block to deliver them is
/// queued.
///
/// At most one block per observer waits in its queue. A store's change notification that arrives
/// while the last waiting one is a change notification of the same store merges into it: one
/// notification listing the actions of both, in order. Other notifications (failures, notifications
/// posted by hand) keep their place between them. So an observer slower than the store gets
/// one notification per call it makes, never a backlog of queued blocks, and still hears every
/// action exactly once.
final class QueueMailbox: Sendable {
    private enum Item {
        case single(StoreNotification)
        /// A change notification and the runs of the ones merged into it.
        case merged(StoreNotification, [ActionRun])
    }

    private struct Contents {
        var items: [Item] = []
        var isScheduled = false
    }

    private let contents = LockedValue(Contents())

    /// Adds `notification`; returns whether the caller must queue a block to deliver it.
    func add(_ notification: StoreNotification) -> Bool {
        let runs = notification.mergeableRuns
        return contents.withLock { contents in
            if let runs, case .merged(let first, var merged)? = contents.items.last,
                first.object === notification.object
            {
                contents.items.removeLast()
                merged.append(contentsOf: runs)
                contents.items.append(.merged(first, merged))
            } else if runs != nil {
                contents.items.append(.merged(notification, []))
            } else {
                contents.items.append(.single(notification))
            }
            defer { contents.isScheduled = true }
            return !contents.isScheduled
        }
    }

    /// Takes the waiting notifications, merged; the next ``add(_:)`` queues a new block.
    func takeAll() -> [StoreNotification] {
        let items = contents.withLock { contents in
            defer { contents = Contents() }
            return contents.items
        }
        return items.map { item in
            switch item {
            case .single(let notification): notification
            case .merged(let first, let runs): runs.isEmpty ? first : first.merging(runs)
            }
        }
    }

    func removeAll() {
        contents.withLock { $0.items.removeAll() }
    }
}

/// One observed sender, shared by every entry that observes it, so that a post checks the sender
/// with one weak load instead of one per observer.
///
/// `@unchecked Sendable`: `object` is a weak reference written once in `init` (weak loads are atomic
/// in the Swift runtime), and `observers` is read and written only under the registry's lock.
final class SenderBox: @unchecked Sendable {
    let id: ObjectIdentifier
    private(set) weak var object: AnyObject?
    /// Registered entries that observe this sender. Unchecked exclusivity: only touched under the
    /// registry's lock, which already makes each access exclusive.
    @exclusivity(unchecked) var observers = 0

    init(_ object: any AnyObject & Sendable) {
        id = ObjectIdentifier(object)
        self.object = object
    }
}

/// The key observers are grouped by: the name and the sender they asked for (`nil` for any).
struct BucketKey: Hashable {
    let name: Notification.Name?
    let objectID: ObjectIdentifier?
}

/// Observers of one ``BucketKey``, in registration order.
///
/// Entries are appended with increasing ids, so `ids` stays sorted; a removal finds its slot by
/// binary search and leaves a `nil` tombstone (its id stays, so the search still works), and both
/// arrays are compacted when half the slots are tombstones. Adding and removing cost O(log n)
/// amortized, and a post iterates the slots in order without sorting.
///
/// A post walks ``snapshot`` after it has released the registry's lock, so storage that a post
/// was given is never written again: the first change after a snapshot moves the slots to storage
/// of their own (one copy per post at most, and none when nothing changes between posts). Writing
/// in place once the post has dropped its copy is not enough: the lock does not order the post's
/// reads before the write (they come after the post released it), only the array's reference
/// count would, and the thread sanitizer cannot see that.
///
/// A class so that entries can refer to their bucket. It is only used under the registry's lock,
/// which already makes every access exclusive, so its properties skip the runtime's dynamic
/// exclusivity checks (`@exclusivity(unchecked)`), which cost more than the work itself.
final class ObserverBucket {
    @exclusivity(unchecked) private var slots: [ObserverEntry?] = []
    /// Whether a post may be walking the storage of `slots`, which must then not be written.
    @exclusivity(unchecked) private var isShared = false
    /// The sender of the last entry added, so that a burst of additions finds its box without a lookup.
    @exclusivity(unchecked) private(set) var sender: SenderBox?
    @exclusivity(unchecked) private var ids: [UInt64] = []
    @exclusivity(unchecked) private var tombstones = 0

    var isEmpty: Bool { slots.count == tombstones }

    /// The slots, in registration order, for a post to walk after the lock is released.
    var snapshot: [ObserverEntry?] {
        isShared = true
        return slots
    }

    /// Gives `slots` storage of its own if a post was given the current one.
    @inline(__always)
    private func unshare(reservingExtra extra: Int) {
        guard isShared else { return }
        isShared = false
        var copy: [ObserverEntry?] = []
        copy.reserveCapacity(slots.count + extra)
        copy.append(contentsOf: slots)
        slots = copy
    }

    func append(_ entry: ObserverEntry) {
        unshare(reservingExtra: slots.count / 2 + 1)
        slots.append(entry)
        ids.append(entry.id)
        sender = entry.sender
    }

    /// Removes `entry`; returns whether the bucket is now empty.
    func remove(_ entry: ObserverEntry) -> Bool {
        var low = 0
        var high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < entry.id { low = middle + 1 } else { high = middle }
        }
        if low < ids.count, ids[low] == entry.id, slots[low] != nil {
            unshare(reservingExtra: 0)
            slots[low] = nil
            tombstones += 1
            compactIfSparse()
        }
        return isEmpty
    }

    private func compactIfSparse() {
        guard tombstones > 16, tombstones * 2 > slots.count else { return }
        slots.removeAll { $0 == nil }
        ids = slots.compactMap { $0?.id }
        tombstones = 0
    }
}

/// Every observer of one ``StoreNotificationCenter``, grouped by what they filter on.
struct ObserverRegistry {
    private var buckets: [BucketKey: ObserverBucket] = [:]
    /// The bucket of the last addition: a burst of additions to one bucket hashes nothing.
    private var lastAddition: (key: BucketKey, bucket: ObserverBucket)?
    /// The box of every sender that has observers, by address; a box whose object is gone is
    /// replaced when a new object at the same address gets an observer.
    private var senders: [ObjectIdentifier: SenderBox] = [:]
    private var nextID: UInt64 = 0
    /// Registered observers, for tests that check removal.
    private(set) var count = 0

    mutating func add(
        name: Notification.Name?,
        object: (any AnyObject & Sendable)?,
        queue: DispatchQueue?,
        gate: CallGate?,
        block: @escaping @Sendable (StoreNotification) -> Void
    ) -> ObserverEntry {
        nextID += 1
        var sender: SenderBox?
        if let object {
            sender = senderBox(for: object)
            sender?.observers += 1
        }
        let entry = ObserverEntry(
            id: nextID, name: name, sender: sender, queue: queue, gate: gate, block: block)
        let key = entry.bucketKey
        let bucket: ObserverBucket
        if let lastAddition, lastAddition.key == key {
            bucket = lastAddition.bucket
        } else if let existing = buckets[key] {
            bucket = existing
        } else {
            bucket = ObserverBucket()
            buckets[key] = bucket
        }
        lastAddition = (key, bucket)
        bucket.append(entry)
        entry.bucket = bucket
        count += 1
        return entry
    }

    mutating func remove(_ entry: ObserverEntry) {
        guard let bucket = entry.bucket else { return }
        entry.bucket = nil
        count -= 1
        if let sender = entry.sender {
            sender.observers -= 1
            if sender.observers == 0, senders[sender.id] === sender { senders[sender.id] = nil }
        }
        guard bucket.remove(entry) else { return }
        buckets[entry.bucketKey] = nil
        if lastAddition?.bucket === bucket { lastAddition = nil }
    }

    /// The box observers of `object` share, made on first use; the last box of a freed object at
    /// the same address is replaced, so its stale entries never match the new object.
    private mutating func senderBox(for object: any AnyObject & Sendable) -> SenderBox {
        let id = ObjectIdentifier(object)
        if let box = lastAddition?.bucket.sender, box.id == id, box.object === object { return box }
        if let box = senders[id], box.object === object { return box }
        let box = SenderBox(object)
        senders[id] = box
        return box
    }

    /// The box of a notification's sender, if it has observers and is the object they observe.
    func senderBox(of object: AnyObject) -> SenderBox? {
        guard let box = senders[ObjectIdentifier(object)], box.object === object else { return nil }
        return box
    }

    /// The observer lists that can match a notification, at most four (name and sender, name only,
    /// sender only, neither), each in registration order.
    func candidates(name: Notification.Name, objectID: ObjectIdentifier?) -> [[ObserverEntry?]] {
        var lists: [[ObserverEntry?]] = []
        lists.reserveCapacity(4)
        if let objectID, let bucket = buckets[BucketKey(name: name, objectID: objectID)] {
            lists.append(bucket.snapshot)
        }
        if let bucket = buckets[BucketKey(name: name, objectID: nil)] { lists.append(bucket.snapshot) }
        if let objectID, let bucket = buckets[BucketKey(name: nil, objectID: objectID)] {
            lists.append(bucket.snapshot)
        }
        if let bucket = buckets[BucketKey(name: nil, objectID: nil)] { lists.append(bucket.snapshot) }
        return lists
    }
}

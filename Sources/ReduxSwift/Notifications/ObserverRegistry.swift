import Dispatch
import Foundation

/// One observed sender, shared by every observer that observes it, so that a post checks the sender
/// with one weak load instead of one per observer.
///
/// `@unchecked Sendable`: `object` is a weak reference written once in `init` (weak loads are atomic
/// in the Swift runtime), and `observers` is read and written only under the registry's lock.
final class SenderBox: @unchecked Sendable {
    let id: ObjectIdentifier
    private(set) weak var object: AnyObject?
    /// The observers of this sender. Unchecked exclusivity: only touched under the
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
/// Observers are appended with increasing ids, so `ids` stays sorted; a removal finds its slot by
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
/// A class so that observers can refer to their bucket. It is only used under the registry's lock,
/// which already makes every access exclusive, so its properties skip the runtime's dynamic
/// exclusivity checks (`@exclusivity(unchecked)`), which cost more than the work itself.
final class ObserverBucket {
    @exclusivity(unchecked) private var slots: [CenterObserver?] = []
    /// Whether a post may be walking the storage of `slots`, which must then not be written.
    @exclusivity(unchecked) private var isShared = false
    /// The sender of the last observer added, so that a burst of additions finds its box without a lookup.
    @exclusivity(unchecked) private(set) var sender: SenderBox?
    @exclusivity(unchecked) private var ids: [UInt64] = []
    @exclusivity(unchecked) private var tombstones = 0

    var isEmpty: Bool { slots.count == tombstones }

    /// The slots, in the order the observers were added, shared with a post that walks them after the lock is released.
    var sharedSlots: [CenterObserver?] {
        isShared = true
        return slots
    }

    /// Gives `slots` storage of its own if a post was given the current one.
    @inline(__always)
    private func unshare(reservingExtra extra: Int) {
        guard isShared else { return }
        isShared = false
        var copy: [CenterObserver?] = []
        copy.reserveCapacity(slots.count + extra)
        copy.append(contentsOf: slots)
        slots = copy
    }

    func append(_ observer: CenterObserver) {
        unshare(reservingExtra: slots.count / 2 + 1)
        slots.append(observer)
        ids.append(observer.id)
        sender = observer.sender
    }

    /// Removes `observer`; returns whether the bucket is now empty.
    func remove(_ observer: CenterObserver) -> Bool {
        var low = 0
        var high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < observer.id { low = middle + 1 } else { high = middle }
        }
        if low < ids.count, ids[low] == observer.id, slots[low] != nil {
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
    ) -> CenterObserver {
        nextID += 1
        var sender: SenderBox?
        if let object {
            sender = senderBox(for: object)
            sender?.observers += 1
        }
        let observer = CenterObserver(
            id: nextID, name: name, sender: sender, queue: queue, gate: gate, block: block)
        let key = observer.bucketKey
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
        bucket.append(observer)
        observer.bucket = bucket
        count += 1
        return observer
    }

    /// Removes `observer`; returns whether it was registered (a second removal finds nothing).
    @discardableResult
    mutating func remove(_ observer: CenterObserver) -> Bool {
        guard let bucket = observer.bucket else { return false }
        observer.bucket = nil
        count -= 1
        if let sender = observer.sender {
            sender.observers -= 1
            if sender.observers == 0, senders[sender.id] === sender { senders[sender.id] = nil }
        }
        if bucket.remove(observer) {
            buckets[observer.bucketKey] = nil
            if lastAddition?.bucket === bucket { lastAddition = nil }
        }
        return true
    }

    /// The box observers of `object` share, made on first use; the last box of a freed object at
    /// the same address is replaced, so its stale observers never match the new object.
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
    func candidates(name: Notification.Name, objectID: ObjectIdentifier?) -> [[CenterObserver?]] {
        var lists: [[CenterObserver?]] = []
        lists.reserveCapacity(4)
        if let objectID, let bucket = buckets[BucketKey(name: name, objectID: objectID)] {
            lists.append(bucket.sharedSlots)
        }
        if let bucket = buckets[BucketKey(name: name, objectID: nil)] { lists.append(bucket.sharedSlots) }
        if let objectID, let bucket = buckets[BucketKey(name: nil, objectID: objectID)] {
            lists.append(bucket.sharedSlots)
        }
        if let bucket = buckets[BucketKey(name: nil, objectID: nil)] { lists.append(bucket.sharedSlots) }
        return lists
    }
}

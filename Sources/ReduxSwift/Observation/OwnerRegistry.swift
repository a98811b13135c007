/// The place in the code where an owner-bound observer is registered: what, with its owner, makes
/// a registration the same one again.
struct CodePlace: Hashable, Sendable {
    let fileID: String
    let line: UInt
    let column: UInt

    init(fileID: StaticString, line: UInt, column: UInt) {
        self.fileID = fileID.description
        self.line = line
        self.column = column
    }
}

/// A store's owner-bound observers, one per owner and place in the code, so that observing again
/// from the same place with the same owner replaces the earlier registration (as ReSwift replaces
/// the subscription of a subscriber that subscribes again).
///
/// Holds neither owners nor observers: a bound observer whose owner is freed or whose observer is
/// gone or cancelled is dead, and a sweep drops the dead ones whenever the table has doubled since the
/// last one, so the table stays within twice the live registrations (and at least
/// ``sweepThreshold``) however many owners come and go, at a constant cost per registration.
///
/// An address can be reused once its object is freed, so a bound observer found under a new
/// owner's identifier may be a dead owner's: its weak reference is `nil` then, and replacing it stops
/// nothing (that observer ends by itself at the store's next change, having no owner).
final class OwnerRegistry: Sendable {
    /// The smallest table that is swept.
    static let sweepThreshold = 64

    private struct Key: Hashable {
        let owner: ObjectIdentifier
        let place: CodePlace
    }

    private struct BoundObserver {
        weak var owner: AnyObject?
        weak var observer: (any CancellableObserver)?
    }

    private struct Table {
        var bound: [Key: BoundObserver] = [:]
        /// The size at which the next new observer sweeps the table first.
        var sweepAt = OwnerRegistry.sweepThreshold
    }

    private let table = LockedValue(Table())

    /// Makes `observer` the registration of `owner` at `place`; returns the earlier one it
    /// replaces, for the caller to cancel, or `nil` when there is none still tied to `owner`.
    func register(
        _ observer: any CancellableObserver, owner: AnyObject, at place: CodePlace
    ) -> (any CancellableObserver)? {
        let key = Key(owner: ObjectIdentifier(owner), place: place)
        // Strong references taken under the lock are released after it: dropping the last one
        // could run an owner's or an observer's `deinit`, which is user code.
        let (replaced, swept) = table.withLock { table -> ((any CancellableObserver)?, [AnyObject]) in
            let new = BoundObserver(owner: owner, observer: observer)
            if let earlier = table.bound.updateValue(new, forKey: key) {
                // The same identifier with a live owner is the same owner; a dead one was freed
                // and its address reused.
                guard earlier.owner === owner else { return (nil, []) }
                return (earlier.observer, [])
            }
            guard table.bound.count > table.sweepAt else { return (nil, []) }
            let swept = Self.sweep(&table)
            return (nil, swept)
        }
        _ = swept
        return replaced
    }

    /// Drops the dead bound observers and sets the size of the next sweep; returns the objects
    /// it held strongly while looking, for the caller to release after the lock.
    private static func sweep(_ table: inout Table) -> [AnyObject] {
        var held: [AnyObject] = []
        held.reserveCapacity(table.bound.count * 2)
        table.bound = table.bound.filter { _, bound in
            guard let owner = bound.owner, let observer = bound.observer else { return false }
            held.append(owner)
            held.append(observer)
            return observer.gate.isOpen
        }
        table.sweepAt = max(sweepThreshold, 2 * table.bound.count)
        return held
    }

    /// How many bound observers the table holds, dead ones not yet swept included (tests check its
    /// bound).
    var count: Int {
        table.withLock { $0.bound.count }
    }
}

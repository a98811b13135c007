import Dispatch
import Foundation

/// The part of an ``OwnerLink`` that does not depend on the owner's type.
protocol OwnerBinding: AnyObject, Sendable {
    /// Names the observer that lives with the owner; called once, by the observer's initializer.
    func attach(_ observer: any CancellableObserver)
    /// Whether the owner is still alive.
    var isOwnerAlive: Bool { get }
}

/// Ties a value observer to an owner without keeping the owner alive.
///
/// `@unchecked Sendable`: `owner` and `observer` are weak references; `observer` is written once
/// by `attach`, in the observer's initializer, before the store's queue or a deliverer can see the
/// observer (its registration is queued under the store's mutex, which orders the write first).
final class OwnerLink<Owner: AnyObject>: OwnerBinding, @unchecked Sendable {
    private(set) weak var owner: Owner?
    private weak var observer: (any CancellableObserver)?

    init(_ owner: Owner) {
        self.owner = owner
    }

    func attach(_ observer: any CancellableObserver) {
        self.observer = observer
    }

    var isOwnerAlive: Bool { owner != nil }

    /// Ends the observer once the owner is gone; the store drops it at its next pass.
    func detach() {
        _ = observer?.deactivate()
    }
}

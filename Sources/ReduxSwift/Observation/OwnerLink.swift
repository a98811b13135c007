import Dispatch
import Foundation

/// The part of an ``OwnerLink`` that does not depend on the owner's type.
protocol OwnerBinding: AnyObject, Sendable {
    func attach(_ entry: any ObserverRegistration, center: StoreNotificationCenter?)
    /// Whether the owner is still alive.
    var isOwnerAlive: Bool { get }
}

/// Ties a registration to an owner without keeping the owner alive.
///
/// `@unchecked Sendable`: `owner`, `entry` and `center` are weak references; `entry` and `center`
/// are written once by `attach`, before the registration can deliver anything that reads them
/// (the center's lock orders the write before every delivery).
final class OwnerLink<Owner: AnyObject>: OwnerBinding, @unchecked Sendable {
    private(set) weak var owner: Owner?
    private weak var entry: (any ObserverRegistration)?
    private weak var center: StoreNotificationCenter?

    init(_ owner: Owner) {
        self.owner = owner
    }

    func attach(_ entry: any ObserverRegistration, center: StoreNotificationCenter?) {
        self.entry = entry
        self.center = center
    }

    var isOwnerAlive: Bool { owner != nil }

    /// Removes the registration once the owner is gone.
    func detach() {
        if let entry, entry.deactivate() { entry.remove(from: center) }
    }
}

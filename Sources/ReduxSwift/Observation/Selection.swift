import Dispatch
import Foundation

/// What a store's observation helpers run on each change, named without the state's type so that
/// `@Sendable` blocks capture no generic metatype.
protocol ChangeHandler: AnyObject, Sendable {
    /// Reacts to a change of the store's state.
    func stateDidChange()
}

/// A selector observer, as its registration sees it.
protocol SelectionHandler: ChangeHandler {
    /// The gate every call of the user's block passes.
    var gate: CallGate { get }
    /// Makes the calling thread the one that delivers, until ``deliverFirstValue()`` returns.
    func becomeDeliverer()
    /// Delivers the current value on the calling thread, with any value that arrives meanwhile;
    /// the caller must have called ``becomeDeliverer()``.
    func deliverFirstValue()
}

/// A selector observer: reads the newest snapshot, selects, skips repeats, delivers.
///
/// Subclasses say what a repeat is. (A closure calling `==` would capture `Value`'s metatype, which
/// a `@Sendable` closure may not.)
///
/// No lock is held while waiting for the store, selecting, comparing or delivering, so the block
/// may post, dispatch, read or cancel, and a post from a reducer never waits for a delivery.
/// Deliveries still never overlap or go backwards: the thread that finds no delivery under way
/// becomes the deliverer and delivers the newest value offered until none is left; a thread that
/// finds one under way leaves its value to that deliverer (newer values replace older ones) and
/// returns.
///
/// `@unchecked Sendable`, because the compiler cannot check a class that is subclassed, nor
/// `lastValue`, which stays outside the lock so that comparing with it (user code, in a subclass)
/// holds none: `mailbox` is a `LockedValue`; `lastValue` is read and written only by the
/// deliverer, which the mailbox's lock hands from thread to thread; `store` is a weak reference
/// assigned once, in `init`; the other properties are immutable. `Value` need not be `Sendable`:
/// a value selected on one thread may be delivered by another, the mailbox's lock ordering the
/// hand-over, and is used by one thread at a time.
class Selection<State: StateProtocol, Value>: SelectionHandler, @unchecked Sendable {
    private struct Mailbox {
        /// The newest version offered.
        var newestVersion: UInt64?
        /// The newest value offered and not yet taken by the deliverer.
        var pending: Value?
        /// Whether a thread is delivering; it takes `pending` until it is empty.
        var isDelivering = false
    }

    private weak var store: Store<State>?
    private let select: @Sendable (State) -> Value
    private let deliver: (@Sendable (Value) -> Void)?
    let gate = CallGate()
    private let mailbox = LockedValue(Mailbox())
    /// The last value delivered (or skipped as a repeat); only the deliverer touches it.
    private var lastValue: Value?

    init(
        store: Store<State>,
        select: @escaping @Sendable (State) -> Value,
        deliver: (@Sendable (Value) -> Void)?
    ) {
        self.store = store
        self.select = select
        self.deliver = deliver
    }

    /// Hands a new value to the observer.
    func deliverValue(_ value: Value) {
        deliver?(value)
    }

    /// Whether `next` counts as `previous`, so it is not delivered.
    func isDuplicate(_ previous: Value, _ next: Value) -> Bool {
        false
    }

    func stateDidChange() {
        guard let (version, value) = selectNewest() else { return }
        if offer(value, version: version, asDeliverer: false).mustDeliver { deliverOffered() }
    }

    func becomeDeliverer() {
        mailbox.withLock { $0.isDelivering = true }
    }

    func deliverFirstValue() {
        if let (version, value) = selectNewest() {
            _ = offer(value, version: version, asDeliverer: true)
        }
        deliverOffered()
    }

    /// The value selected from the newest snapshot, unless the observer is cancelled, the version
    /// was already offered, or the state cannot round-trip (`snapshot()` reports why).
    private func selectNewest() -> (UInt64, Value)? {
        guard gate.isOpen, let store else { return nil }
        let snapshot = store.kernel.latestSnapshot()
        let isNew = mailbox.withLock { mailbox in
            mailbox.newestVersion.map { snapshot.version > $0 } ?? true
        }
        // Selector observers of one store that run on the same thread share one decoded state per
        // version: a thousand selectors cost one decode.
        guard isNew, let state = store.observationCache.decodedState(of: snapshot, in: store) else {
            return nil
        }
        return (snapshot.version, select(state))
    }

    /// Offers a value; returns whether the caller must deliver it (no delivery was under way), and
    /// the older value it replaced, which the caller releases after the lock: its `deinit` may be
    /// user code.
    private func offer(_ value: Value, version: UInt64, asDeliverer: Bool) -> (
        mustDeliver: Bool, replaced: Value?
    ) {
        mailbox.withLock { mailbox in
            if let newest = mailbox.newestVersion, version <= newest { return (false, nil) }
            mailbox.newestVersion = version
            let replaced = mailbox.pending
            mailbox.pending = value
            if mailbox.isDelivering && !asDeliverer { return (false, replaced) }
            mailbox.isDelivering = true
            return (true, replaced)
        }
    }

    /// Delivers offered values until none is left, then stops being the deliverer.
    private func deliverOffered() {
        while let value = mailbox.withLock({ mailbox -> Value? in
            guard let value = mailbox.pending else {
                mailbox.isDelivering = false
                return nil
            }
            mailbox.pending = nil
            return value
        }) {
            if let lastValue, isDuplicate(lastValue, value) { continue }
            lastValue = value
            gate.run { deliverValue(value) }
        }
    }
}

/// Skips values equal to the previous one.
class EquatableSelection<State: StateProtocol, Value: Equatable>: Selection<State, Value>, @unchecked Sendable
{
    // `@unchecked Sendable`: adds only immutable properties; `Selection`'s note covers the rest.
    override func isDuplicate(_ previous: Value, _ next: Value) -> Bool {
        previous == next
    }
}

/// Skips values the caller's closure calls duplicates.
final class CustomSelection<State: StateProtocol, Value>: Selection<State, Value>, @unchecked Sendable {
    // `@unchecked Sendable`: adds only immutable properties; `Selection`'s note covers the rest.
    private let duplicate: @Sendable (Value, Value) -> Bool

    init(
        store: Store<State>,
        select: @escaping @Sendable (State) -> Value,
        isDuplicate: @escaping @Sendable (Value, Value) -> Bool,
        deliver: @escaping @Sendable (Value) -> Void
    ) {
        duplicate = isDuplicate
        super.init(store: store, select: select, deliver: deliver)
    }

    override func isDuplicate(_ previous: Value, _ next: Value) -> Bool {
        duplicate(previous, next)
    }
}

/// Skips equal values and delivers to a block that takes the owner, while the owner lives.
final class OwnedSelection<State: StateProtocol, Value: Equatable, Owner: AnyObject>:
    EquatableSelection<State, Value>, @unchecked Sendable
{
    // `@unchecked Sendable`: adds only immutable properties; `Selection`'s note covers the rest.
    private let link: OwnerLink<Owner>
    private let ownedDeliver: @Sendable (Owner, Value) -> Void

    init(
        store: Store<State>,
        select: @escaping @Sendable (State) -> Value,
        link: OwnerLink<Owner>,
        deliver: @escaping @Sendable (Owner, Value) -> Void
    ) {
        self.link = link
        ownedDeliver = deliver
        super.init(store: store, select: select, deliver: nil)
    }

    override func deliverValue(_ value: Value) {
        guard let owner = link.owner else { return link.detach() }
        ownedDeliver(owner, value)
    }
}

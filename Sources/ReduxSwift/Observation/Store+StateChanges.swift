import Dispatch
import Foundation

extension Store {
    /// Observes which values of the state change, at the key paths you name.
    ///
    /// After each change that touches one of `paths` (a path such as `"todos.3.done"`, or a prefix
    /// such as `"todos"`), the block receives the changed values with their old and new JSON:
    ///
    /// ```swift
    /// let token = store.observeStateChanges(at: ["todos", "filter"]) { changes in
    ///     for change in changes { print(change) }  // "todos.3.done: false → true"
    /// }
    /// ```
    ///
    /// Paths follow the state's JSON: property names, then array indices, joined by `.`, with `.`
    /// and `\` inside a key escaped by a `\` (see ``StateChange/path``). Sets and dictionaries
    /// written as arrays change as a whole. Members whose names start with `_` are ignored. An
    /// empty `paths` means every change.
    ///
    /// ## Cost
    ///
    /// The changes are found by parsing the new snapshot and comparing it with the previous one,
    /// which costs time proportional to the size of the state, once per change however many
    /// key-path observers the store has (see the benchmarks). Stores without key-path observers
    /// pay nothing.
    ///
    /// - Parameters:
    ///   - paths: The paths and prefixes to watch.
    ///   - queue: Where to run `block`; `nil` runs it on the store's delivery thread.
    ///   - block: Receives the changes since the previous call, in no particular order.
    /// - Returns: A token that removes the observer when cancelled or released.
    @_disfavoredOverload  // so that `queue: .main`, which fits both, picks the main-actor overload
    public func observeStateChanges(
        at paths: [String],
        queue: DispatchQueue? = nil,
        using block: @escaping @Sendable ([StateChange]) -> Void
    ) -> ObserverToken {
        let observer = KeyPathObserver(store: self, paths: paths, deliver: block)
        observer.start()
        let entry = notificationCenter.register(
            forName: .stateDidChange, object: self, queue: queue, gate: observer.gate
        ) { [handler = observer as any ChangeHandler] _ in
            handler.stateDidChange()
        }
        return ObserverToken(center: notificationCenter, entry: entry)
    }

    /// Observes which values of the state change, at the key paths you name, on the main actor.
    ///
    /// Like ``observeStateChanges(at:queue:using:)-(_,DispatchQueue?,_)`` given `DispatchQueue.main`,
    /// with a block that is `@MainActor`:
    ///
    /// ```swift
    /// let token = store.observeStateChanges(at: ["todos"], queue: .main) { [weak self] changes in
    ///     self?.reload(changes)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - paths: The paths and prefixes to watch.
    ///   - queue: ``MainQueue/main``.
    ///   - block: Receives the changes since the previous call, on the main actor.
    /// - Returns: A token that removes the observer when cancelled or released.
    public func observeStateChanges(
        at paths: [String],
        queue: MainQueue,
        using block: @escaping @MainActor @Sendable ([StateChange]) -> Void
    ) -> ObserverToken {
        observeStateChanges(at: paths, queue: DispatchQueue.main, using: MainQueue.adapt(block))
    }
}

/// A key-path observer: keeps the tree it last saw and reports what differs in the newest one.
///
/// Like a selector observer (see `Selection`), it holds no lock while it waits for the store or
/// calls the block: the thread that finds no delivery under way becomes the deliverer and reports
/// the changes from the last tree it saw to the newest tree offered, until none is left; a thread
/// that finds one under way leaves its tree to that deliverer and returns.
final class KeyPathObserver<State: StateProtocol>: ChangeHandler, Sendable {
    /// A version of the state, parsed.
    private typealias Version = (version: UInt64, tree: SnapshotTree)

    private struct Mailbox {
        /// The store, weakly: an observer does not keep its store alive.
        weak var store: Store<State>?
        var newestVersion: UInt64 = 0
        var pending: Version?
        var isDelivering = false
        /// The tree the changes delivered last lead to; only the deliverer moves it on.
        var last: Version?
    }

    private let paths: [String]
    private let deliver: @Sendable ([StateChange]) -> Void
    /// The gate every call of `deliver` passes.
    let gate = CallGate()
    private let mailbox: LockedValue<Mailbox>

    init(store: Store<State>, paths: [String], deliver: @escaping @Sendable ([StateChange]) -> Void) {
        mailbox = LockedValue(Mailbox(store: store))
        self.paths = paths
        self.deliver = deliver
    }

    /// Records the current state as the one later changes are compared with.
    func start() {
        guard let store = mailbox.withLock({ $0.store }) else { return }
        let snapshot = store.kernel.latestSnapshot()
        guard let tree = store.observationCache.tree(for: snapshot) else { return }
        mailbox.withLock { mailbox in
            mailbox.last = (snapshot.version, tree)
            mailbox.newestVersion = snapshot.version
        }
    }

    func stateDidChange() {
        guard gate.isOpen, let store = mailbox.withLock({ $0.store }) else { return }
        let snapshot = store.kernel.latestSnapshot()
        guard mailbox.withLock({ snapshot.version > $0.newestVersion }),
            let tree = store.observationCache.tree(for: snapshot)
        else { return }
        let isDeliverer = mailbox.withLock { mailbox in
            guard snapshot.version > mailbox.newestVersion else { return false }
            mailbox.newestVersion = snapshot.version
            mailbox.pending = (snapshot.version, tree)
            defer { mailbox.isDelivering = true }
            return !mailbox.isDelivering
        }
        guard isDeliverer else { return }
        while let step = mailbox.withLock({ mailbox -> (previous: Version?, current: Version)? in
            guard let pending = mailbox.pending else {
                mailbox.isDelivering = false
                return nil
            }
            mailbox.pending = nil
            defer { mailbox.last = pending }
            return (mailbox.last, pending)
        }) {
            guard let previous = step.previous else { continue }
            let current = step.current
            let changes = store.observationCache.changes(from: previous, to: current)
            let matching = StateDiff.filter(changes, paths: paths, old: previous.tree, new: current.tree)
            if !matching.isEmpty { gate.run { deliver(matching) } }
        }
    }
}

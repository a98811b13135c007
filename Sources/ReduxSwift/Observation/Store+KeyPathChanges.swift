import Dispatch
import Foundation

extension Store {
    /// Observes which values of the state change, at the key paths you name.
    ///
    /// After each change that touches one of `paths` (a path such as `"todos.3.done"`, or a prefix
    /// such as `"todos"`), the block receives the changed values with their old and new JSON:
    ///
    /// ```swift
    /// let token = store.observeChanges(at: ["todos", "filter"]) { changes in
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
    public func observeChanges(
        at paths: [String],
        queue: DispatchQueue? = nil,
        using block: @escaping @Sendable ([StateChange]) -> Void
    ) -> ObserverToken {
        let observer = KeyPathObserver(store: self, paths: paths, deliver: block)
        observer.start()
        let entry = notificationCenter.register(forName: .stateDidChange, object: self, queue: queue) {
            [handler = observer as any ChangeHandler] _ in
            handler.stateDidChange()
        }
        return ObserverToken(center: notificationCenter, entry: entry)
    }
}

/// A key-path observer: keeps the tree it last saw and reports what differs in the newest one.
///
/// `@unchecked Sendable`: `last` is read and written only while `lock` is held; the other
/// properties are immutable.
final class KeyPathObserver<State: StateProtocol>: ChangeHandler, @unchecked Sendable {
    private weak var store: Store<State>?
    private let paths: [String]
    private let deliver: @Sendable ([StateChange]) -> Void
    /// Held while delivering, so deliveries never overlap or go backwards.
    private let lock = NSLock()
    private var last: (version: UInt64, tree: SnapshotTree)?

    init(store: Store<State>, paths: [String], deliver: @escaping @Sendable ([StateChange]) -> Void) {
        self.store = store
        self.paths = paths
        self.deliver = deliver
    }

    /// Records the current state as the one later changes are compared with.
    func start() {
        guard let store else { return }
        let snapshot = store.latestSnapshot()
        guard let tree = store.observationCache.tree(for: snapshot) else { return }
        lock.lock()
        last = (snapshot.version, tree)
        lock.unlock()
    }

    func stateDidChange() {
        guard let store else { return }
        lock.lock()
        defer { lock.unlock() }
        let snapshot = store.latestSnapshot()
        if let last, snapshot.version <= last.version { return }
        guard let tree = store.observationCache.tree(for: snapshot) else { return }
        let current = (version: snapshot.version, tree: tree)
        defer { last = current }
        guard let previous = last else { return }
        let changes = store.observationCache.changes(from: previous, to: current)
        let matching = StateDiff.filter(changes, paths: paths, old: previous.tree, new: tree)
        if !matching.isEmpty { deliver(matching) }
    }
}

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
    /// written as arrays change as a whole. Members whose names start with `_` are ignored unless
    /// a watched path names one; the `_0`, `_1`, … that synthesized `Codable` writes for an enum
    /// case's unlabeled payloads are never ignored, so `.playing(1)` → `.playing(2)` is reported
    /// as `player.playing._0`. An empty `paths` means every change.
    ///
    /// A path that no value of the state can have (a misspelled member, a member of a number, an
    /// array element named by something other than an index) is reported on standard error when
    /// observing starts, since the block would never hear of it.
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

    /// Records the current state as the one later changes are compared with, and reports on
    /// standard error each watched path that no change could ever reach (a misspelled member, say).
    func start() {
        guard let store = mailbox.withLock({ $0.store }) else { return }
        let snapshot = store.kernel.latestSnapshot()
        guard let tree = store.observationCache.tree(for: snapshot) else { return }
        let unreachable = Self.unreachablePaths(paths, in: tree.value) {
            guard case .success(let state) = store.decode(snapshot) else { return [] }
            return Set(Mirror(reflecting: state).children.compactMap(\.label))
        }
        for path in unreachable {
            writeLineToStandardError(
                "ReduxSwift: observeStateChanges(at:) watches \"\(path)\", which no value of "
                    + "\(State.self) has; the block will never hear of it")
        }
        mailbox.withLock { mailbox in
            mailbox.last = (snapshot.version, tree)
            mailbox.newestVersion = snapshot.version
        }
    }

    /// The paths of `paths` that no value of the state can have, judged from its JSON now: a first
    /// member that the JSON lacks and that is no stored property of the state either (it may be
    /// an optional that is `nil` now), a member of a number, string or boolean, or an array
    /// element named by something other than an index. Members deeper down may come and go (a
    /// dictionary's keys, an optional's members), so they are not judged.
    ///
    /// - Parameter storedProperties: The state's stored property names; asked only when a first
    ///   member is missing from the JSON.
    static func unreachablePaths(
        _ paths: [String], in root: JSONValue, storedProperties: () -> Set<String>
    ) -> [String] {
        var unreachable: [String] = []
        for path in paths
        where !path.isEmpty && !isReachable(path, in: root, storedProperties: storedProperties) {
            unreachable.append(path)
        }
        return unreachable
    }

    private static func isReachable(
        _ path: String, in root: JSONValue, storedProperties: () -> Set<String>
    ) -> Bool {
        var node = root
        for (depth, component) in StatePath.components(of: path).enumerated() {
            switch node {
            case .object(let members):
                guard let member = members[component] else {
                    return depth > 0 || storedProperties().contains(component)
                }
                node = member
            case .array(let elements):
                guard let index = Int(component), index >= 0 else { return false }
                guard index < elements.count else { return true }
                node = elements[index]
            case .bool, .number, .string:
                return false
            case .null:
                return true
            }
        }
        return true
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

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// What a store's observers share so that each state version is parsed, diffed or decoded once,
/// however many observers ask.
///
/// Every store has one; it stays empty, and costs nothing per action, until such observers use it.
final class ObservationCache: Sendable {
    private struct Trees {
        var latest: (version: UInt64, tree: SnapshotTree)?
        var diff: (from: UInt64, to: UInt64, changes: [StateChange])?
    }

    private let trees = LockedValue(Trees())
    /// The state decoded for the newest version, shared by selector observers that run on the same
    /// thread: a decoded state is handed out again only on the thread that decoded it.
    private let decoded = LockedValue<AnyObject?>(nil)

    /// The parsed JSON of `snapshot`, parsed at most once per version.
    func tree(for snapshot: Snapshot) -> SnapshotTree? {
        if let latest = trees.withLock({ $0.latest }), latest.version == snapshot.version {
            return latest.tree
        }
        guard case .success(let data) = snapshot.result,
            let tree = try? SnapshotTree(parsing: data, unorderedArrays: snapshot.unorderedArrays)
        else {
            return nil
        }
        trees.withLock { trees in
            if (trees.latest?.version ?? 0) <= snapshot.version { trees.latest = (snapshot.version, tree) }
        }
        return tree
    }

    /// The changes between two versions, computed at most once per pair.
    func changes(
        from old: (version: UInt64, tree: SnapshotTree), to new: (version: UInt64, tree: SnapshotTree)
    )
        -> [StateChange]
    {
        if let diff = trees.withLock({ $0.diff }), diff.from == old.version, diff.to == new.version {
            return diff.changes
        }
        // Every member: each key-path observer leaves out the internal ones its paths do not name.
        let changes = StateDiff.changes(from: old.tree, to: new.tree, ignoringUnderscored: false)
        trees.withLock { $0.diff = (old.version, new.version, changes) }
        return changes
    }

    /// The state of `snapshot`, decoded unless an observer already did on this thread.
    func decodedState<State>(of snapshot: Snapshot, in store: Store<State>) -> State? {
        let thread = pthread_self()
        if let cached = decoded.withLock({ $0 }) as? DecodedState<State>, cached.version == snapshot.version,
            pthread_equal(cached.thread, thread) != 0
        {
            return cached.state
        }
        guard case .success(let state) = store.decode(snapshot) else { return nil }
        decoded.withLock { $0 = DecodedState(version: snapshot.version, thread: thread, state: state) }
        return state
    }
}

/// One decoded version, boxed so that finding it again is a class cast, not an existential one.
private final class DecodedState<State> {
    let version: UInt64
    let thread: pthread_t
    let state: State

    init(version: UInt64, thread: pthread_t, state: State) {
        self.version = version
        self.thread = thread
        self.state = state
    }
}

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// Where an entry dispatched from store code goes once the action that dispatched it commits.
enum DispatchRoute {
    /// Into the store's queue, as an ordinary dispatch.
    case queue(StoreKernel)
    /// Through a dispatch lock, ahead of what the store's locks hold (see ``DispatchLock/dispatch(_:)``).
    case passingLock(DispatchLock)
    /// Into the store's queue as a change to its middleware chain (see
    /// ``StoreKernel/enqueueChainChange(_:)``).
    case chainChange(StoreKernel)

    /// Whether the entry goes to the store whose kernel is `kernel`: then it is that store's own
    /// follow-up, handled next (see ``StoreCodeScope/releaseDispatches()``).
    func leadsTo(_ kernel: StoreKernel?) -> Bool {
        switch self {
        case .queue(let target), .chainChange(let target): return target === kernel
        case .passingLock(let lock): return lock.kernel === kernel
        }
    }

    /// Queues `entry` as if it had been dispatched outside any store code.
    func send(_ entry: QueueEntry) {
        switch self {
        case .queue(let kernel): kernel.enqueue(entry)
        case .passingLock(let lock): lock.send(entry)
        case .chainChange(let kernel): kernel.enqueueChainChange(entry)
        }
    }
}

/// What the current thread is doing inside a store, so that re-entrant calls keep their promises.
///
/// A scope is installed on a thread for the duration of a drain pass (reducers run) or of a
/// snapshot encode (user `encode(to:)` runs). The rules it enables:
/// - `dispatch` from a reducer is deferred until that action commits, and dropped if it fails;
///   once it commits, a dispatch to the same store is that store's *follow-up*, which the pipeline
///   handles next, before any other queued entry; a dispatch to another store joins its queue;
/// - `dispatch` and `register` while an action is *replayed* for a rollback are ignored, because
///   their first run already took effect;
/// - `currentState()` never waits while a scope is installed, so no reducer or encoder can wait
///   for a store that is waiting for it.
///
/// Scopes are confined to the thread that installed them; they are never shared.
final class StoreCodeScope {
    /// The kernel of the store whose reducers run on this thread, or `nil` while only encoding.
    let reducingKernel: StoreKernel?
    /// The live state this thread holds (the drainer's, or a reader's that encodes an idle store),
    /// for debug builds' checks of who holds the state; `nil` for scopes that hold no state.
    let heldLiveState: AnyObject?
    // Unchecked exclusivity on the properties below: a scope is used by the one thread that
    // installed it, and none of its methods calls out while holding an access to a property
    // (`releaseDispatches` empties the list before it calls the targets), so the runtime's dynamic
    // check, which ran on every action, can never fire.

    /// True while the store re-applies the replay list to restore a checkpoint.
    @exclusivity(unchecked) var isReplaying = false
    /// True while an action passes through the middleware chain.
    @exclusivity(unchecked) var isPassingThroughMiddleware = false
    /// Async actions whose `nextLater()` functions went away during the current pass through the
    /// chain: they end after it unless something started them or holds them.
    @exclusivity(unchecked) var releasedAsyncActions: [any AsyncActionStarting] = []
    /// Dispatches made by the action being reduced, released when it commits.
    @exclusivity(unchecked) private var deferredDispatches: [(route: DispatchRoute, entry: QueueEntry)] = []
    /// What committed actions dispatched to this scope's own store, for the pipeline to handle
    /// next (see ``releaseDispatches()``).
    @exclusivity(unchecked) private var followUps: [QueueEntry] = []
    /// Reducer arrays registered by the action being reduced, added after it finishes.
    @exclusivity(unchecked) private var deferredRegistrations: [[ErasedReducer]] = []

    /// The scope selectors run in, made by the first pass that selects (see ``selecting``).
    @exclusivity(unchecked) private var selectingScope: StoreCodeScope?

    init(reducing kernel: StoreKernel?, holding liveState: AnyObject?) {
        reducingKernel = kernel
        heldLiveState = liveState
    }

    /// The scope selectors run in: the same live state held, no store reducing. Made once per
    /// scope, since selectors run after every pass that changes the state, and a scope that
    /// reduces nothing keeps nothing from one pass to the next.
    var selecting: StoreCodeScope {
        if let made = selectingScope { return made }
        let made = StoreCodeScope(reducing: nil, holding: heldLiveState)
        selectingScope = made
        return made
    }

    /// Defers `entry` until the current action commits; an action dispatched as `type` is told
    /// apart from an ``AsyncAction`` first (see ``ActionTypes``).
    func deferDispatch(
        _ entry: QueueEntry, dispatchedAs type: ObjectIdentifier? = nil, to route: DispatchRoute
    ) {
        var entry = entry
        if let type, let kernel = reducingKernel {
            kernel.holderActionTypes.mark(&entry, dispatchedAs: type)
        }
        deferredDispatches.append((route, entry))
    }

    /// Defers `entry` to `target` when called from inside a store's reducers or middleware, and
    /// returns `true`; the caller enqueues it itself when this returns `false`. The entry is queued
    /// when the current action commits, and dropped while a rollback re-applies actions (their
    /// first run already dispatched it).
    @inline(__always)
    static func deferIfReducing(
        _ entry: QueueEntry, dispatchedAs type: ObjectIdentifier? = nil,
        to route: @autoclosure () -> DispatchRoute
    ) -> Bool {
        guard let scope = current, scope.reducingKernel != nil else { return false }
        if scope.isReplaying {
            // Made again by an action applied again: its first run's dispatch stands.
            entry.endAsyncActions()
        } else {
            scope.deferDispatch(entry, dispatchedAs: type, to: route())
        }
        return true
    }

    /// How many dispatches are deferred so far; pass it to ``discardDispatches(from:)`` to drop
    /// only the ones made after this point.
    var deferredDispatchCount: Int { deferredDispatches.count }

    func deferRegistration(_ reducers: [ErasedReducer]) {
        deferredRegistrations.append(reducers)
    }

    var hasDeferredRegistrations: Bool { !deferredRegistrations.isEmpty }

    /// Hands over the registrations made during the last action; they stand whether it failed or not.
    func takeRegistrations() -> [[ErasedReducer]] {
        defer { deferredRegistrations.removeAll() }
        return deferredRegistrations
    }

    /// Releases the dispatches the committed action made, in the order it made them: those to
    /// other stores join their queues; those to the reducing store become its follow-ups, which the
    /// pipeline takes with ``takeFollowUps()`` and handles before anything else. Returns whether
    /// there are follow-ups.
    @inline(__always)
    func releaseDispatches() -> Bool {
        guard !deferredDispatches.isEmpty else { return false }
        return sendDeferredDispatches()
    }

    private func sendDeferredDispatches() -> Bool {
        let released = deferredDispatches
        deferredDispatches.removeAll()
        for (route, entry) in released {
            if route.leadsTo(reducingKernel) {
                followUps.append(entry)
            } else {
                route.send(entry)
            }
        }
        return !followUps.isEmpty
    }

    /// Whether released dispatches wait to be handled next.
    var hasFollowUps: Bool { !followUps.isEmpty }

    /// Hands over the follow-ups released so far, in the order they were dispatched.
    func takeFollowUps() -> [QueueEntry] {
        defer { followUps = [] }
        return followUps
    }

    /// Drops the dispatches a failed action made; the async actions among them end.
    func discardDispatches() {
        guard !deferredDispatches.isEmpty else { return }
        let dropped = deferredDispatches
        deferredDispatches.removeAll()
        for (_, entry) in dropped { entry.endAsyncActions() }
    }

    /// Drops the dispatches made since `mark` (a ``deferredDispatchCount``), keeping older ones
    /// and those in `kept` (ascending ranges of positions, made by actions that committed).
    func discardDispatches(from mark: Int, keeping kept: [Range<Int>] = []) {
        var survivors = Array(deferredDispatches[..<mark])
        for (position, (_, entry)) in deferredDispatches.enumerated().dropFirst(mark) {
            if kept.contains(where: { $0.contains(position) }) {
                survivors.append(deferredDispatches[position])
            } else {
                entry.endAsyncActions()
            }
        }
        deferredDispatches = survivors
    }

    // MARK: Thread-local installation

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let error = pthread_key_create(&key, nil)
        precondition(error == 0, "pthread_key_create failed with error \(error)")
        return key
    }()

    /// The scope installed on the calling thread, if any.
    static var current: StoreCodeScope? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<StoreCodeScope>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Runs `body` with `self` installed on the calling thread, restoring the previous scope after.
    func install<Result>(_ body: () throws -> Result) rethrows -> Result {
        let previous = pthread_getspecific(Self.key)
        pthread_setspecific(Self.key, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.key, previous) }
        return try body()
    }
}

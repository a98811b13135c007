import Dispatch
import Foundation

/// Holds an app's state, reduces the actions dispatched to it, and announces every change.
///
/// A store is created with an array of reducers and an initial state. ``dispatch(_:)`` returns at
/// once; the store reduces actions on its own queue, one at a time and in the order they were
/// dispatched, and posts ``Foundation/NSNotification/Name/stateDidChange`` to its
/// ``notificationCenter``. ``currentState()`` returns a deep copy that reflects every action
/// dispatched before the call.
///
/// ## Subclassing with a shared store
///
/// The recommended form, as in ReduxObjC, is one subclass with a shared singleton whose
/// initializer collects the reducer arrays and the initial state:
///
/// ```swift
/// final class AppStore: Store<AppState> {
///     static let shared = AppStore()
///
///     private init() {
///         super.init(reducers: CounterReducers.reducers, state: AppState())
///         register(TodoReducers.reducers)
///     }
/// }
///
/// AppStore.shared.dispatch(CounterAction.increment)
/// print(AppStore.shared.currentState().counter)  // 1
/// ```
///
/// ## Threading
///
/// Every method may be called from any thread at the same time, and from inside reducers and
/// observers: <doc:ThreadingModel> defines each case. In short, reducers run on the store's
/// queue, never on the dispatching thread; notifications are posted from the store's delivery
/// thread; and the store never holds a lock while it calls your code.
///
/// ## Cost
///
/// Dispatching costs a short critical section. Reducing costs the reducers' own work plus a small
/// constant per action: the state is mutated in place and never copied per action. JSON work
/// happens only when someone reads, once per state version however many readers ask, and each
/// reader decodes on its own thread.
///
/// ## Main-actor modules
///
/// `Store` is explicitly `nonisolated`, so a subclass is nonisolated too, even in a module whose
/// declarations are main-actor-isolated by default: its initializer overrides the store's, and
/// its shared instance can be read from any thread.
nonisolated open class Store<State: StateProtocol>: @unchecked Sendable {
    // `@unchecked Sendable`: every mutable property is either guarded by `core`'s lock or confined
    // to the owner of the live state (see `StoreMachine.Owner`); ownership changes hands under
    // `core`'s lock, which orders every access. The remaining properties are immutable.

    /// The center this store posts ``Foundation/NSNotification/Name/stateDidChange`` and
    /// ``Foundation/NSNotification/Name/dispatchDidFail`` to.
    public let notificationCenter: StoreNotificationCenter

    let core: StoreCore
    let engine: EngineBox<State>
    /// Parsed and decoded snapshots shared by selector and key-path observers.
    let observationCache = ObservationCache()
    /// Held by the transaction that uses this store, by the thread that commits it (see
    /// ``StoreTransaction``).
    let transactionGate = NSLock()
    /// Used only by the owner of the live state, like the state itself.
    let encoder: SnapshotEncoder
    /// Shared by every reader at once: once configured, a `JSONDecoder` keeps each `decode` call's
    /// state separate (the thread sanitizer runs the concurrent-reader tests against this).
    let decoder: JSONDecoder
    private let reduceQueue: DispatchQueue
    private let deliveryQueue: DispatchQueue

    /// Creates a store.
    ///
    /// The initializer encodes `state` once, so that readers inside reducers always have a committed
    /// snapshot to fall back on (see <doc:ThreadingModel>).
    ///
    /// - Parameters:
    ///   - reducers: The reducers that every action is applied to, in this order. Add more with
    ///     ``register(_:)``.
    ///   - state: The initial state. The store takes it over: do not mutate class instances inside
    ///     it afterwards.
    ///   - middleware: Functions that see every action before the reducers do, in this order (see
    ///     ``Middleware``). Add more with ``register(middleware:)``.
    ///   - notificationCenter: Where to post notifications; ``StoreNotificationCenter/default``
    ///     unless you pass another.
    public init(
        reducers: [Reducer<State>],
        state: State,
        middleware: [Middleware<State>] = [],
        notificationCenter: StoreNotificationCenter = .default
    ) {
        self.notificationCenter = notificationCenter
        let encoder = SnapshotCoder.makeEncoder()
        self.encoder = encoder
        decoder = SnapshotCoder.makeDecoder()
        let initialSnapshot = ReducerContext(reducingStore: nil).install {
            SnapshotCoder.encode(state, version: 0, with: encoder)
        }
        core = StoreCore(initialSnapshot: initialSnapshot)
        var engine = ReductionEngine(state: state, reducers: reducers)
        engine.register(middleware: middleware)
        self.engine = EngineBox(engine)
        let label = "ReduxSwift.Store<\(String(describing: State.self))>"
        reduceQueue = DispatchQueue(
            label: label + ".reduce", qos: .userInitiated, autoreleaseFrequency: .workItem)
        deliveryQueue = DispatchQueue(
            label: label + ".deliver", qos: .userInitiated, autoreleaseFrequency: .workItem)
    }

    // MARK: Dispatching

    /// Queues an action and returns at once.
    ///
    /// When 16,384 actions are already waiting, it returns once the store's queue takes them for
    /// its next pass, so that a tight loop cannot run ahead of the reducers without bound; never
    /// from a reducer, a middleware, an `encode(to:)`, an observer on the delivery thread or while
    /// a dispatch lock holds the store (see <doc:ThreadingModel>).
    ///
    /// The store passes the action and its state to every registered reducer, in registration
    /// order, on its own queue. Actions are reduced one at a time, in one order that keeps each
    /// thread's own dispatch order. After they are reduced, observers of
    /// ``Foundation/NSNotification/Name/stateDidChange`` hear about them.
    ///
    /// ```swift
    /// store.dispatch(CounterAction.increment)
    /// store.dispatch(Action("todos.add", payload: "Buy milk"))
    /// ```
    ///
    /// Called from inside a reducer (of any store), the action is queued when the action being
    /// reduced commits, behind the actions already queued; if that action fails, the actions it
    /// dispatched are discarded with its changes.
    public func dispatch<Action: ActionProtocol>(_ action: Action) {
        if ReducerContext.deferIfReducing(.entry(for: action), to: self) { return }
        enqueue(.entry(for: action))
    }

    /// Queues several actions as one transaction and returns at once.
    ///
    /// The actions are reduced in order with nothing in between, announced in one
    /// ``Foundation/NSNotification/Name/stateDidChange`` (as one ``ActionBatch``), and rolled back
    /// together if any reducer throws on any of them:
    ///
    /// ```swift
    /// store.dispatch(batch: [TodoAction.add("Milk"), TodoAction.add("Eggs")])
    /// ```
    ///
    /// From inside a reducer, the batch is queued when the action being reduced commits, like
    /// ``dispatch(_:)``.
    public func dispatch(batch actions: [any ActionProtocol]) {
        dispatch(ActionBatch(actions))
    }

    /// Adds reducers to the store; they see every action dispatched after this call returns.
    ///
    /// Use it at startup to collect the reducer arrays of each feature:
    ///
    /// ```swift
    /// store.register(TodoReducers.reducers)
    /// store.register(FilterReducers.reducers)
    /// ```
    ///
    /// Registration is ordered with dispatches: actions already queued are not affected. Called from
    /// inside one of this store's reducers, it takes effect from the next action reduced.
    public func register(_ reducers: [Reducer<State>]) {
        guard !reducers.isEmpty else { return }
        let erased = ReductionEngine<State>.erase(reducers)
        if let context = ReducerContext.current, context.reducingStore === self {
            guard !context.isReplaying else { return }
            context.deferRegistration(erased)
            return
        }
        enqueue(.register(erased))
    }

    /// Adds middleware to the end of the chain; they see every action dispatched after this call
    /// returns.
    ///
    /// ```swift
    /// store.register(middleware: [.logger()])
    /// ```
    ///
    /// Ordered with dispatches like ``register(_:)``. Called from inside a reducer or middleware of
    /// this store, it is queued like a dispatch from there: once the current action commits (and
    /// not at all if it fails), behind the actions already queued.
    public func register(middleware: [Middleware<State>]) {
        guard !middleware.isEmpty else { return }
        let entry = PendingEntry.registerMiddleware(middleware.map(\.erased))
        if let context = ReducerContext.current, context.reducingStore === self {
            guard !context.isReplaying else { return }
            context.deferDispatch(entry, to: self)
            return
        }
        enqueue(entry)
    }

    func enqueue(_ entry: PendingEntry) {
        let (mustScheduleDrain, isFull) = core.enqueue(entry)
        if mustScheduleDrain {
            scheduleDrain()
        }
        if isFull {
            waitForRoom()
        }
    }

    /// Back-pressure: a dispatcher that filled the queue waits until the drainer takes it, so that a
    /// tight loop cannot run ahead of the reducers without bound. Never where the drainer, or
    /// whatever it waits for, could be waiting for this thread: in store code (a reducer, a
    /// middleware, an `encode(to:)`, a drain releasing the dispatches of an action) or on a
    /// delivery thread (see <doc:ThreadingModel>). The entry is queued already; only the return waits.
    private func waitForRoom() {
        guard ReducerContext.current == nil, !DeliveryThread.isCurrent else { return }
        lendPriorityIfMainThread()
        core.waitUntilTaken()
    }

    /// Called by the main thread before it blocks until the reducing queue gets somewhere (a read,
    /// a full queue, a transaction): lends the main thread's priority to the work ahead of it.
    ///
    /// A semaphore donates no priority, so the main thread (user-interactive) would wait behind the
    /// store's user-initiated queue: a priority inversion. A block queued on a serial queue at a
    /// higher QoS than the blocks ahead of it raises the queue to that QoS until the block runs, so
    /// an empty one at the main thread's QoS does the lending. It runs on every platform (QoS has
    /// no effect on Linux), so the tests exercise the same path.
    func lendPriorityIfMainThread() {
        guard MainThread.isCurrent else { return }
        core.countPriorityLoan()
        reduceQueue.async(qos: .userInteractive, flags: .enforceQoS) {}
    }

    // MARK: Reducing (runs on `reduceQueue`, as the owner of the state)

    /// Runs `drain()` on the store's queue. The closure holds the store through a non-generic
    /// existential, so it captures no metatype of `State` (which need not be `Sendable`).
    func scheduleDrain() {
        let store: any QueueWork = self
        reduceQueue.async { store.drain() }
    }

    private func scheduleDelivery() {
        let store: any QueueWork = self
        deliveryQueue.async { store.deliver() }
    }

    func drain() {
        guard let (first, unblocked) = core.startDrain() else { return }
        for dispatcher in unblocked { dispatcher.unblock() }
        var batch = first
        let context = ReducerContext(reducingStore: self)
        context.install {
            while true {
                let reduced = engine.engine.reduce(batch, context: context)
                var (step, effects) = core.finishPass(
                    processed: batch.count, changes: reduced.changes, events: reduced.events)
                perform(effects)
                while case .encode(let version) = step {
                    let snapshot = encodeOwnedState(version: version)
                    (step, effects) = core.drainerDidEncode(snapshot)
                    perform(effects)
                }
                guard case .reduce(let next) = step else { return }
                batch = next
            }
        }
    }

    /// Encodes the live state; only the current owner may call this.
    func encodeOwnedState(version: UInt64) -> Snapshot {
        // A context without a reducing store: `encode(to:)` may read stores without waiting and
        // dispatch normally.
        let snapshot = ReducerContext(reducingStore: nil).install {
            SnapshotCoder.encode(engine.engine.state, version: version, with: encoder)
        }
        // Readers can now see this version; rollbacks must never re-apply actions across it.
        engine.engine.takeCheckpoint()
        return snapshot
    }

    func perform(_ effects: StoreCore.Machine.Effects) {
        if let snapshot = effects.snapshot {
            for waiter in effects.resumed { waiter.resume(with: snapshot) }
        }
        for dispatcher in effects.unblocked { dispatcher.unblock() }
        if effects.scheduleDrain { scheduleDrain() }
        if effects.scheduleDelivery { scheduleDelivery() }
    }

    // MARK: Delivering (runs on `deliveryQueue`)

    func deliver() {
        DeliveryThread.run { postEvents() }
    }

    private func postEvents() {
        let events = core.takeEvents()
        for event in events {
            switch event {
            case .changed(let runs):
                notificationCenter.post(
                    StoreNotification(
                        name: .stateDidChange, object: self, actions: ActionList(runs: runs), userInfo: [:]))
            case .failed(let action, let error):
                notificationCenter.post(
                    StoreNotification(
                        name: .dispatchDidFail, object: self, actions: ActionList([action]),
                        userInfo: [StoreNotification.actionKey: action, StoreNotification.errorKey: error]))
            case .lockAbandoned(let error):
                notificationCenter.post(
                    StoreNotification(
                        name: .dispatchDidFail, object: self, actions: ActionList(),
                        userInfo: [StoreNotification.errorKey: error]))
            }
        }
    }

    // MARK: Observing

    /// Observes this store's ``Foundation/NSNotification/Name/stateDidChange`` notifications.
    ///
    /// ```swift
    /// let token = store.observeChanges(queue: serviceQueue) { notification in
    ///     sync(store.currentState())
    /// }
    /// ```
    ///
    /// With `queue: .main`, the main-actor overload ``observeChanges(queue:using:)-(MainQueue,_)``
    /// is chosen instead.
    ///
    /// - Parameters:
    ///   - queue: Where to run `block`; `nil` runs it on the store's delivery thread.
    ///   - block: Receives each notification.
    /// - Returns: A token that removes the observer when cancelled or released.
    @_disfavoredOverload  // so that `queue: .main`, which fits both, picks the main-actor overload
    public func observeChanges(
        queue: DispatchQueue? = nil,
        using block: @escaping @Sendable (StoreNotification) -> Void
    ) -> ObserverToken {
        notificationCenter.addObserver(forName: .stateDidChange, object: self, queue: queue, using: block)
    }

    /// Observes this store's ``Foundation/NSNotification/Name/dispatchDidFail`` notifications.
    ///
    /// - Parameters:
    ///   - queue: Where to run `block`; `nil` runs it on the store's delivery thread.
    ///   - block: Receives each notification, with ``StoreNotification/failedAction`` and
    ///     ``StoreNotification/error``.
    /// - Returns: A token that removes the observer when cancelled or released.
    @_disfavoredOverload  // so that `queue: .main`, which fits both, picks the main-actor overload
    public func observeFailures(
        queue: DispatchQueue? = nil,
        using block: @escaping @Sendable (StoreNotification) -> Void
    ) -> ObserverToken {
        notificationCenter.addObserver(forName: .dispatchDidFail, object: self, queue: queue, using: block)
    }

    /// Observes this store's ``Foundation/NSNotification/Name/stateDidChange`` notifications on the
    /// main actor.
    ///
    /// A block delivered on the main queue runs on the main actor, so this block is `@MainActor`:
    /// main-actor code can observe the store the obvious way.
    ///
    /// ```swift
    /// @MainActor
    /// final class CounterViewModel {
    ///     private(set) var text = ""
    ///     private var token: ObserverToken?
    ///
    ///     func start() {
    ///         token = AppStore.shared.observeChanges(queue: .main) { [weak self] _ in
    ///             self?.render()
    ///         }
    ///     }
    ///
    ///     func render() {
    ///         text = "\(AppStore.shared.currentState().counter)"
    ///     }
    /// }
    /// ```
    ///
    /// It behaves like the `DispatchQueue` overload given `DispatchQueue.main`: notifications that
    /// arrive while a call waits in the main queue merge into it, and once the token is cancelled
    /// the block is not called again.
    ///
    /// - Parameters:
    ///   - queue: ``MainQueue/main``.
    ///   - block: Receives each notification, on the main actor.
    /// - Returns: A token that removes the observer when cancelled or released.
    public func observeChanges(
        queue: MainQueue,
        using block: @escaping @MainActor @Sendable (StoreNotification) -> Void
    ) -> ObserverToken {
        observeChanges(queue: DispatchQueue.main, using: MainQueue.adapt(block))
    }

    /// Observes this store's ``Foundation/NSNotification/Name/dispatchDidFail`` notifications on the
    /// main actor, as ``observeChanges(queue:using:)-(MainQueue,_)`` does changes.
    ///
    /// - Parameters:
    ///   - queue: ``MainQueue/main``.
    ///   - block: Receives each notification, with ``StoreNotification/failedAction`` and
    ///     ``StoreNotification/error``, on the main actor.
    /// - Returns: A token that removes the observer when cancelled or released.
    public func observeFailures(
        queue: MainQueue,
        using block: @escaping @MainActor @Sendable (StoreNotification) -> Void
    ) -> ObserverToken {
        observeFailures(queue: DispatchQueue.main, using: MainQueue.adapt(block))
    }
}

extension Store: DeferredDispatchTarget, QueueWork {
    func enqueueDeferred(_ entry: PendingEntry) {
        enqueue(entry)
    }
}

/// Whether the calling code runs on the main thread or the main queue: on Linux, the main queue can
/// be run by another thread (under `dispatchMain()`, or by Swift Testing's main actor).
enum MainThread {
    /// Set on the main queue once, the first time a waiter asks.
    private static let queueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isCurrent: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: queueKey) == true
    }
}

/// The work a store schedules on its own queues, behind a type that names no generic parameter.
protocol QueueWork: AnyObject, Sendable {
    /// Reduces queued entries until none are left (runs on the reducing queue).
    func drain()
    /// Posts undelivered notifications (runs on the delivery queue).
    func deliver()
}

/// The reduction engine, reachable only by the owner of the live state.
///
/// `@unchecked Sendable`: `engine` is read and written only by the store's current owner (its
/// drainer or a snapshotter, recorded in `StoreMachine.owner`), and ownership changes hands under the
/// store's lock, which orders every access.
final class EngineBox<State: StateProtocol>: @unchecked Sendable {
    var engine: ReductionEngine<State>

    init(_ engine: ReductionEngine<State>) {
        self.engine = engine
    }
}

/// A reader blocked until a snapshot that covers its target is published, or a dispatcher blocked
/// until the drainer takes the entries of a full queue (which uses only `unblock()` and
/// `waitUntilUnblocked()`).
///
/// `@unchecked Sendable`: `snapshot` is written once, before `semaphore.signal()`, and read only
/// after `semaphore.wait()` returns, which orders the two.
final class SnapshotWaiter: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private var snapshot: Snapshot?

    func resume(with snapshot: Snapshot) {
        self.snapshot = snapshot
        semaphore.signal()
    }

    func wait() -> Snapshot {
        semaphore.wait()
        guard let snapshot else { preconditionFailure("SnapshotWaiter resumed without a snapshot") }
        return snapshot
    }

    func unblock() {
        semaphore.signal()
    }

    func waitUntilUnblocked() {
        semaphore.wait()
    }
}

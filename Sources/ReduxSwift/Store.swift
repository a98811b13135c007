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
/// initializer collects the reducer arrays and the initial state. Swift asks a subclass of an
/// `@unchecked Sendable` class to restate the conformance; a subclass that adds no stored
/// properties is covered by the store's own guarantee:
///
/// ```swift
/// final class AppStore: Store<AppState>, @unchecked Sendable {
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
    // `@unchecked Sendable`: every stored property is immutable, and `Sendable` except the decoder,
    // which readers share safely once configured (see `decoder`). What changes lives in the kernel,
    // which answers for its own sendability.

    /// The center this store posts ``Foundation/NSNotification/Name/stateDidChange`` and
    /// ``Foundation/NSNotification/Name/dispatchDidFail`` to.
    public let notificationCenter: StoreNotificationCenter

    /// The non-generic part that queues, reduces and announces; see ``StoreKernel``.
    let kernel: StoreKernel
    /// Shared by every reader at once: once configured, a `JSONDecoder` keeps each `decode` call's
    /// state separate (the thread sanitizer runs the concurrent-reader tests against this).
    let decoder: JSONDecoder
    /// The decoder of snapshots that write no float as a string (see
    /// ``EncodedSnapshot/floatStrings``), shared as `decoder` is.
    let strictDecoder: JSONDecoder
    /// The owner-bound observers, one per owner and place in the code (see ``OwnerRegistry``).
    let ownerRegistry = OwnerRegistry()

    /// Creates a store.
    ///
    /// ```swift
    /// let store = Store(reducers: AppReducers.reducers, state: AppState(), middleware: [.logger()])
    /// ```
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
    ///     ``Middleware``), for the store's whole life. Add more with ``register(middleware:)``,
    ///     whose registration can remove the ones it added.
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
        decoder = SnapshotCoder.makeDecoder()
        strictDecoder = SnapshotCoder.makeDecoder(floatStrings: nil)
        let initialSnapshot = StoreCodeScope(reducing: nil, holding: nil).install {
            SnapshotCoder.encode(state, version: 0, with: encoder)
        }
        if case .failure(let error) = initialSnapshot.result { StoreKernel.warn(error) }
        kernel = StoreKernel(
            liveState: LiveState(
                state: state, reducers: reducers, middleware: middleware, encoder: encoder),
            initialSnapshot: initialSnapshot, notificationCenter: notificationCenter,
            label: "ReduxSwift.Store<\(String(describing: State.self))>")
        kernel.attach(sender: self)
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
    /// Called from inside a reducer or a middleware of this store, the action is handled right after
    /// the action being handled commits, ahead of everything else queued, as a nested synchronous
    /// dispatch would be: a read made after the outer dispatch sees it too. Several such
    /// dispatches keep their order, and each one's own dispatches come before its next sibling.
    /// From a reducer of another store, the action joins this store's queue when that store's
    /// action commits. Either way, if the action being reduced fails, what it dispatched is
    /// discarded with its changes.
    public func dispatch(_ action: some ActionProtocol) {
        kernel.dispatch(action: action)
    }

    /// Queues several actions as one unit, all or nothing, and returns at once.
    ///
    /// The actions are reduced in order with nothing in between, announced in one
    /// ``Foundation/NSNotification/Name/stateDidChange`` (as one ``ActionBatch``), and rolled back
    /// together if any reducer throws on any of them:
    ///
    /// ```swift
    /// store.dispatch(batch: [TodoAction.add("Milk"), TodoAction.add("Eggs")])
    /// ```
    ///
    /// From inside a reducer or a middleware, the batch is dispatched when the action being handled
    /// commits, like ``dispatch(_:)``.
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
        let erased = LiveState<State>.erase(reducers)
        if let scope = StoreCodeScope.current, scope.reducingKernel === kernel {
            guard !scope.isReplaying else { return }
            scope.deferRegistration(erased)
            return
        }
        kernel.enqueue(.command(RegisterReducers(reducers: erased)))
    }

    /// Adds middleware to the end of the chain; they see every action dispatched after this call
    /// returns, until the registration it returns removes them.
    ///
    /// ```swift
    /// let logging = store.register(middleware: [.logger()])
    /// logging.remove()
    /// ```
    ///
    /// Ordered with dispatches, as a dispatch made at the same place: the middleware see exactly the
    /// actions dispatched after this call returns, whatever order dispatch locks let them through
    /// in (an action sent through a lock afterwards passes them; one the lock held since before
    /// does not). Called from inside a reducer or middleware of this store, it is made like a
    /// dispatch from there: right after the current action commits, ahead of the actions already
    /// queued, and not at all if it fails. From a reducer or middleware of another store, it joins
    /// this store's queue when that store's action commits, in order with the dispatches made
    /// there, and is dropped if that action fails.
    ///
    /// - Returns: The registration whose ``MiddlewareRegistration/remove()`` takes these middleware
    ///   out of the chain again; discard it to keep them for the store's life.
    @discardableResult
    public func register(middleware: [Middleware<State>]) -> MiddlewareRegistration {
        let key = MiddlewareKey()
        guard !middleware.isEmpty else { return MiddlewareRegistration(kernel: nil, key: key) }
        kernel.queueChainChange(RegisterMiddleware(middleware: middleware.map(\.erased), key: key))
        return MiddlewareRegistration(kernel: kernel, key: key)
    }
}

/// A function that applies an action to the state, mutating it in place.
///
/// Every reducer registered with a ``Store`` sees every action, in registration order, and ignores
/// the actions it does not handle. Reducers run on the store's own queue, one action at a time.
///
/// ```swift
/// let counterReducer: Reducer<AppState> = { state, action in
///     switch action as? CounterAction {
///     case .increment?: state.counter += 1
///     case .add(let amount)?: state.counter += amount
///     case nil: break
///     }
/// }
/// ```
///
/// A reducer may throw to reject an action: the store then restores the state exactly as it was
/// before that action and posts ``Foundation/NSNotification/Name/dispatchDidFail``.
/// Keep reducers deterministic and free of side effects other than mutating `state` and
/// dispatching, and never block in them: see <doc:ThreadingModel>.
public typealias Reducer<State: StateProtocol> = @Sendable (inout State, any ActionProtocol) throws -> Void

/// A type that provides an array of reducers for one feature, in the style of ReduxObjC's `RDXReducer`.
///
/// ```swift
/// enum CounterReducers: ReducerProtocol {
///     static var reducers: [Reducer<AppState>] {
///         [
///             { state, action in if case CounterAction.increment = action { state.counter += 1 } },
///             { state, action in if case CounterAction.add(let n) = action { state.counter += n } },
///         ]
///     }
/// }
///
/// store.register(CounterReducers.reducers)
/// ```
///
/// The store reads ``reducers`` from its own threads, so a conformance is never isolated to an
/// actor (`SendableMetatype`), even in a module that is main-actor-isolated by default.
public protocol ReducerProtocol: SendableMetatype {
    /// The state these reducers change.
    associatedtype State: StateProtocol
    /// The reducers, in the order they should run.
    static var reducers: [Reducer<State>] { get }
}

extension ReducerProtocol {
    /// These reducers, run on one part of a larger state: how a feature's reducers join the app's
    /// one store.
    ///
    /// A feature keeps its own state type, and its reducers change only that. The app's state
    /// holds it as a member, and the app's store registers the feature's reducers at that member:
    ///
    /// ```swift
    /// struct AppState: StateProtocol {
    ///     var counter = 0
    ///     var wishlist = WishlistState()
    /// }
    ///
    /// final class AppStore: Store<AppState>, @unchecked Sendable {
    ///     static let shared = AppStore()
    ///
    ///     private init() {
    ///         super.init(reducers: CounterReducers.reducers, state: AppState())
    ///         register(WishlistReducers.reducers(at: \.wishlist))
    ///     }
    /// }
    /// ```
    ///
    /// Each reducer changes the part in place; a reducer that throws rejects the action for the
    /// whole state, which the store keeps exactly as it was, as with any other reducer. The part
    /// must always be there: a key path through an optional (`\.settings!`) or to an element
    /// (`\.screens[0]`) stops the program when it is absent, as any key path does.
    ///
    /// - Parameter part: Where the feature's state is in the app's state.
    /// - Returns: One reducer of the larger state for each of ``reducers``, in the same order.
    public static func reducers<Whole: StateProtocol>(at part: any WritableKeyPath<Whole, State> & Sendable)
        -> [Reducer<Whole>]
    {
        reducers.map { reducer in { whole, action in try reducer(&whole[keyPath: part], action) } }
    }
}

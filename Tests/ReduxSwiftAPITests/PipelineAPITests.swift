import Foundation
import ReduxSwift
import Testing

/// Counts the actions it passes on; a middleware as a type, usable from generic code.
struct CountingMiddleware<State: StateProtocol>: MiddlewareHandler {
    let seen: SeenActions

    func handle(_ action: any ActionProtocol, context: Middleware<State>.Context) throws {
        seen.add(action.identifier)
        context.next(action)
    }
}

/// A thread-safe list of identifiers.
final class SeenActions: @unchecked Sendable {
    // `@unchecked Sendable`: `identifiers` is only touched while `lock` is held.
    private let lock = NSLock()
    private var identifiers: [String] = []

    func add(_ identifier: String) {
        lock.lock()
        identifiers.append(identifier)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return identifiers
    }
}

/// Builds a store for any state with counting middleware: generic client code compiles cleanly.
func makeCountedStore<State: StateProtocol>(
    reducers: [Reducer<State>], state: State, seen: SeenActions
) -> Store<State> {
    Store(
        reducers: reducers, state: state,
        middleware: [
            Middleware("count", handler: CountingMiddleware<State>(seen: seen)), .logger(write: { _ in }),
        ],
        notificationCenter: StoreNotificationCenter())
}

/// The dispatch pipeline as apps see it: no `@testable import`.
@Suite(.offThePool) struct PipelineAPITests {
    @Test func middlewareLocksHistoryAndTransactionsWorkThroughThePublicAPI() throws {
        let seen = SeenActions()
        let store = makeCountedStore(reducers: CounterReducers.reducers, state: AppState(), seen: seen)
        let other = Store(
            reducers: CounterReducers.reducers, state: AppState(),
            notificationCenter: StoreNotificationCenter())
        let history = store.recordHistory()

        let lock: DispatchLock = store.lock("api", performing: CounterAction.add(10))
        store.dispatch(CounterAction.increment)
        #expect(store.currentState().counter == 10)
        try lock.release()
        #expect(store.currentState().counter == 11)

        history.undo()
        #expect(store.currentState().counter == 10)
        let status: HistoryStatus = history.status
        #expect(status.canRedo)

        var transaction = StoreTransaction()
        transaction.add(CounterAction.add(5), to: store)
        transaction.add(CounterAction.add(7), to: other)
        try transaction.commit()
        #expect(store.currentState().counter == 15)
        #expect(other.currentState().counter == 7)
        #expect(seen.all == ["CounterAction.add", "CounterAction.increment", "HistoryAction.undo"])
    }

    @Test func aKeptDispatchFunctionAndARemovableRegistrationWorkThroughThePublicAPI() {
        let store = Store(
            reducers: CounterReducers.reducers, state: AppState(),
            notificationCenter: StoreNotificationCenter())
        let registration: MiddlewareRegistration = store.register(middleware: [
            Middleware("follow adds with an increment") { action, context in
                let dispatch: @Sendable (any ActionProtocol) -> Void = context.dispatchLater()
                context.next(action)
                if case CounterAction.add = action { dispatch(CounterAction.increment) }
            }
        ])
        store.dispatch(CounterAction.add(1))
        store.dispatch(CounterAction.add(10))
        registration.remove()
        store.dispatch(CounterAction.add(100))
        // The increments are queued as the adds are handled: once a read has seen the adds, the
        // next one sees the increments too.
        _ = store.currentState()
        #expect(store.currentState().counter == 113)
    }

    @Test func anErrorIsReadThroughItsKindAndItsContext() throws {
        let store = Store(
            reducers: CounterReducers.reducers, state: AppState(),
            notificationCenter: StoreNotificationCenter())
        let lock = store.lock("api")
        #expect(store.heldLockCount == 1)
        try lock.release()
        let error = #expect(throws: DispatchLock.ReleaseError.self) { try lock.release() }
        #expect(error?.kind == .alreadyReleased)
        #expect(error?.name == "api")
        #expect(store.heldLockCount == 0)

        // An app's own archive backend reports its failures with the public initializer.
        let failure = PersistenceError(
            .system(call: "write", errno: 5, message: "Input/output error"), stage: .save, location: "memory")
        #expect(failure.kind == .system(call: "write", errno: 5, message: "Input/output error"))
        #expect(failure.stage == .save)
        #expect(failure.description == "Cannot save memory: write failed: Input/output error (errno 5).")
    }

    @Test func asyncActionsRunWithTheirDependency() async {
        let store = Store(
            reducers: CounterReducers.reducers, state: AppState(),
            middleware: [.asyncActions(dependencies: 42)], notificationCenter: StoreNotificationCenter())
        let work = AsyncAction<AppState, Int>("answer") { context in
            context.dispatch(CounterAction.add(context.dependencies))
        }
        store.dispatch(work)
        await work.finished()
        #expect(store.currentState().counter == 42)
    }
}

import Foundation
import Testing

@testable import ReduxSwift

/// Async work that records that it ran.
private func recordingWork(_ identifier: String, into runs: Recorder<String>) -> AsyncAction<TestState, Void>
{
    AsyncAction(identifier) { _ in runs.append(identifier) }
}

/// The error a store posts for an async action that reached its reducers.
private func unrun(_ identifier: String) -> AsyncActionError {
    AsyncActionError(.noAsyncActionsMiddleware, identifier: identifier)
}

/// An ``AsyncAction`` that no middleware runs reaches the reducers: it fails there, is reported,
/// and ends, so that `finished()` returns, however it was dispatched and whatever the store has.
@Suite(.offThePool) struct UnrunAsyncActionTests {
    @Test func anAsyncActionDispatchedToAStoreWithoutMiddlewareFailsAndEnds() async {
        let store = makeStore()
        let failures = Recorder<StoreNotification>()
        let token = store.observeFailures { failures.append($0) }
        let runs = Recorder<String>()
        let work = recordingWork("load", into: runs)
        store.dispatch(TestAction.increment)
        store.dispatch(work)
        store.dispatch(TestAction.increment)
        #expect(await finishes(work))
        #expect(failures.wait(forCount: 1))
        #expect(failures.values.first?.error as? AsyncActionError == unrun("load"))
        #expect(failures.values.first?.failedAction?.identifier == "load")
        #expect(store.currentState().counter == 2, "the actions around it are reduced")
        #expect(runs.count == 0)
        #expect(unrun("load").description.contains("asyncActions(dependencies:)"))
        withExtendedLifetime(token) {}
    }

    @Test func anAsyncActionFailsOnceItsMiddlewareIsRemoved() async {
        let store = makeStore()
        let runs = Recorder<String>()
        let registration = store.register(middleware: [.asyncActions()])
        let before = recordingWork("before", into: runs)
        store.dispatch(before)
        await before.finished()
        registration.remove()
        let failures = Recorder<StoreNotification>()
        let token = store.observeFailures { failures.append($0) }
        let after = recordingWork("after", into: runs)
        store.dispatch(after)
        #expect(await finishes(after))
        #expect(failures.wait(forCount: 1))
        #expect(failures.values.first?.error as? AsyncActionError == unrun("after"))
        #expect(runs.values == ["before"])
        withExtendedLifetime(token) {}
    }

    @Test func anAsyncActionPassedToTheReducersByAMiddlewareFailsAndTheMiddlewareLearnsIt() async {
        let outcomes = Recorder<String>()
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [
                Middleware("pass") { action, context in
                    if case .failed(let error) = context.next(action) {
                        outcomes.append("\(action.identifier): \(error)")
                    }
                }
            ], notificationCenter: StoreNotificationCenter())
        let runs = Recorder<String>()
        let work = recordingWork("through", into: runs)
        store.dispatch(work)
        #expect(await finishes(work))
        #expect(outcomes.wait(forCount: 1))
        #expect(outcomes.values == ["through: \(unrun("through"))"])
        #expect(runs.count == 0)
    }

    @Test func aBatchHoldingAnUnrunAsyncActionFailsAsAWholeAndEndsEveryAsyncActionInIt() async {
        let store = makeStore()
        let failures = Recorder<StoreNotification>()
        let token = store.observeFailures { failures.append($0) }
        let runs = Recorder<String>()
        let first = recordingWork("first", into: runs)
        let nested = recordingWork("nested", into: runs)
        store.dispatch(batch: [
            TestAction.increment, first, ActionBatch([TestAction.append("a"), nested]),
        ])
        #expect(await finishes(first))
        #expect(await finishes(nested))
        #expect(failures.wait(forCount: 1))
        #expect(failures.values.first?.failedAction is ActionBatch)
        #expect(failures.values.first?.error as? AsyncActionError == unrun("first"))
        #expect(store.currentState() == TestState(), "nothing of the batch is reduced")
        #expect(runs.count == 0)
        withExtendedLifetime(token) {}
    }

    @Test func anAsyncActionFailsHoweverItIsDispatched() async throws {
        let other = makeStore()
        let handle = StoreHandle()
        let kept = LockedBox<(@Sendable (any ActionProtocol) -> Void)?>(nil)
        let runs = Recorder<String>()
        let fromReducer = recordingWork("from a reducer", into: runs)
        let toOtherStore = recordingWork("to another store", into: runs)
        let fromMiddleware = recordingWork("from a middleware", into: runs)
        let store = Store(
            reducers: [
                testReducer,
                { _, action in
                    guard case .append("go")? = action as? TestAction else { return }
                    handle.store.dispatch(fromReducer)
                    other.dispatch(toOtherStore)
                },
            ], state: TestState(),
            middleware: [
                Middleware("dispatching") { action, context in
                    if case .append("go")? = action as? TestAction {
                        context.dispatch(fromMiddleware)
                        kept.value = context.dispatchLater()
                    }
                    context.next(action)
                }
            ], notificationCenter: StoreNotificationCenter())
        handle.store = store
        let failures = Recorder<String>()
        let tokens = [store, other].map { store in
            store.observeFailures { note in
                if let error = note.error as? AsyncActionError, error.kind == .noAsyncActionsMiddleware {
                    failures.append(error.identifier)
                }
            }
        }
        store.dispatch(TestAction.append("go"))
        let asExistential = recordingWork("as an existential", into: runs)
        let existential: any ActionProtocol = asExistential
        store.dispatch(existential)
        let throughKept = recordingWork("through a kept function", into: runs)
        _ = store.currentState()
        kept.value?(throughKept)
        let lock = store.lock()
        let throughLock = recordingWork("through a lock", into: runs)
        lock.dispatch(throughLock)
        try lock.release()
        for work in [fromReducer, toOtherStore, fromMiddleware, asExistential, throughKept, throughLock] {
            #expect(await finishes(work), "\(work.identifier)")
        }
        #expect(failures.wait(forCount: 6))
        #expect(
            Set(failures.values) == [
                "from a reducer", "to another store", "from a middleware", "as an existential",
                "through a kept function", "through a lock",
            ])
        #expect(runs.count == 0)
        withExtendedLifetime(tokens) {}
    }

    @Test func aStoreWithTheMiddlewareStillRunsItsAsyncActionsAfterManyPlainTypes() async {
        let runs = Recorder<String>()
        let store = Store(
            reducers: [testReducer], state: TestState(), middleware: [.asyncActions()],
            notificationCenter: StoreNotificationCenter())
        let plain = makeStore()
        // Each store learns these types as plain first; an async action still stands out after.
        for _ in 0..<3 {
            for target in [store, plain] {
                target.dispatch(TestAction.increment)
                target.dispatch(Action("named"))
                target.dispatch(batch: [TestAction.increment])
            }
        }
        let work = recordingWork("after plain types", into: runs)
        store.dispatch(work)
        await work.finished()
        #expect(runs.values == ["after plain types"])
        let unrunWork = recordingWork("unrun after plain types", into: runs)
        plain.dispatch(unrunWork)
        #expect(await finishes(unrunWork))
        #expect(runs.values == ["after plain types"])
    }

    @Test func anAsyncActionAMiddlewareDropsRejectsOrReplacesEndsWithoutRunning() async {
        let runs = Recorder<String>()
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [
                Middleware("gatekeeper") { action, context in
                    switch action.identifier {
                    case "dropped": return
                    case "rejected": throw TestFailure()
                    case "replaced": context.next(TestAction.increment)
                    default:
                        if let batch = action as? ActionBatch, batch.actions.count == 3 {
                            throw TestFailure()
                        }
                        context.next(action)
                    }
                },
                .asyncActions(),
            ], notificationCenter: StoreNotificationCenter())
        let dropped = recordingWork("dropped", into: runs)
        let rejected = recordingWork("rejected", into: runs)
        let replaced = recordingWork("replaced", into: runs)
        let inRejectedBatch = recordingWork("in a rejected batch", into: runs)
        let runsNormally = recordingWork("runs", into: runs)
        store.dispatch(dropped)
        store.dispatch(rejected)
        store.dispatch(replaced)
        store.dispatch(batch: [TestAction.increment, inRejectedBatch, TestAction.increment])
        store.dispatch(runsNormally)
        for work in [dropped, rejected, replaced, inRejectedBatch, runsNormally] {
            #expect(await finishes(work), "\(work.identifier)")
        }
        #expect(runs.values == ["runs"])
        #expect(store.currentState().counter == 1)
    }

    @Test func anAsyncActionHeldWithNextLaterEndsWhenTheFunctionGoesUncalledAndRunsWhenCalled() async {
        let runs = Recorder<String>()
        let held = LockedBox<[String: @Sendable (any ActionProtocol) -> Void]>([:])
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [
                Middleware("holding") { action, context in
                    guard action.identifier.hasPrefix("held") else {
                        context.next(action)
                        return
                    }
                    let next = context.nextLater()
                    held.update { $0[action.identifier] = next }
                },
                Middleware("dropping resumed") { action, context in
                    if action.identifier == "held, then dropped" { return }
                    context.next(action)
                },
                .asyncActions(),
            ], notificationCenter: StoreNotificationCenter())
        let forgotten = recordingWork("held, never passed on", into: runs)
        let passedOn = recordingWork("held, then passed on", into: runs)
        let droppedLater = recordingWork("held, then dropped", into: runs)
        for work in [forgotten, passedOn, droppedLater] { store.dispatch(work) }
        _ = store.currentState()
        let functions = held.value
        held.value = [:]
        // The function for `forgotten` goes away uncalled; the others are called.
        functions["held, then passed on"]?(passedOn)
        functions["held, then dropped"]?(droppedLater)
        #expect(await finishes(passedOn))
        #expect(await finishes(droppedLater))
        #expect(runs.values == ["held, then passed on"])
        withExtendedLifetime(functions["held, then passed on"]) {}
        _ = consume functions
        #expect(await finishes(forgotten))
        #expect(runs.values == ["held, then passed on"])
    }

    @Test func anAsyncActionPassedOnAfterItsNextLaterFunctionWentAwayRunsAndAReplacedOneEnds() async {
        let runs = Recorder<String>()
        let held = LockedBox<(@Sendable (any ActionProtocol) -> Void)?>(nil)
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [
                Middleware("holding") { action, context in
                    switch action.identifier {
                    case "function dropped, then passed on":
                        _ = context.nextLater()
                        context.next(action)
                    case "held, then replaced":
                        held.value = context.nextLater()
                    default:
                        context.next(action)
                    }
                },
                .asyncActions(),
            ], notificationCenter: StoreNotificationCenter())
        let passedOn = recordingWork("function dropped, then passed on", into: runs)
        let replaced = recordingWork("held, then replaced", into: runs)
        store.dispatch(passedOn)
        store.dispatch(replaced)
        _ = store.currentState()
        onThreads(1) { _ in held.value?(TestAction.append("instead")) }
        held.value = nil
        #expect(await finishes(passedOn))
        #expect(await finishes(replaced))
        #expect(runs.values == ["function dropped, then passed on"])
        #expect(store.currentState().log == ["instead"])
    }

    @Test func anAsyncActionDispatchedByStoreCodeWhoseDispatchesAreDroppedEnds() async throws {
        let runs = Recorder<String>()
        let made = LockedBox<[AsyncAction<TestState, Void>]>([])
        let make: @Sendable (String) -> AsyncAction<TestState, Void> = { identifier in
            let work = recordingWork(identifier, into: runs)
            made.update { $0.append(work) }
            return work
        }
        let handle = StoreHandle()
        let log = ActionLog()
        log.register(LoggedAction.self, name: "LoggedAction")
        func makeStore() -> Store<TestState> {
            Store(
                reducers: [
                    testReducer,
                    { _, action in
                        if case .append("reducer, then fail")? = action as? TestAction {
                            handle.store.dispatch(make("reducer, then fail"))
                            throw TestFailure()
                        }
                        if case .note("replayed")? = action as? LoggedAction {
                            handle.store.dispatch(make("from a replayed action"))
                        }
                    },
                ], state: TestState(),
                middleware: [
                    Middleware("throwing") { action, context in
                        if case .append("middleware, then throw")? = action as? TestAction {
                            context.dispatch(make("middleware, then throw"))
                            throw TestFailure()
                        }
                        context.next(action)
                    },
                    .asyncActions(),
                ], notificationCenter: StoreNotificationCenter())
        }
        let store = makeStore()
        handle.store = store
        store.dispatch(TestAction.append("reducer, then fail"))
        store.dispatch(TestAction.append("middleware, then throw"))
        let recording = log.record(store)
        store.dispatch(LoggedAction.note("replayed"))
        let lines = recording.stop()
        let fresh = makeStore()
        handle.store = fresh
        try log.replay(lines, into: fresh)
        let works = made.value
        #expect(works.count == 4)
        for work in works { #expect(await finishes(work), "\(work.identifier)") }
        #expect(runs.values == ["from a replayed action"], "only the original store's ran")
    }

    @Test func anAsyncActionRunsWhileAnyNextLaterFunctionStillHoldsItAndEndsOnceNoneDoes() async {
        let runs = Recorder<String>()
        let kept = LockedBox<[String: @Sendable (any ActionProtocol) -> Void]>([:])
        let handle = StoreHandle()
        let later = recordingWork("held by the second function", into: runs)
        let inner = recordingWork("inner, passed on below", into: runs)
        let first = recordingWork("first, its function replaced", into: runs)
        let second = recordingWork("second", into: runs)
        let store = Store(
            reducers: [
                testReducer,
                { _, action in
                    if case .append("go")? = action as? TestAction {
                        handle.store.dispatch(first)
                        handle.store.dispatch(second)
                    }
                },
            ], state: TestState(),
            middleware: [
                Middleware("holding") { action, context in
                    switch action.identifier {
                    case "held by the second function":
                        // Two functions; the one let go of must not end what the other holds.
                        let keep = context.nextLater()
                        _ = context.nextLater()
                        kept.update { $0["later"] = keep }
                        context.next(ActionBatch([TestAction.append("x"), inner]))
                    case "first, its function replaced", "second":
                        // Keeps the newest function only: the first one's goes away with the
                        // second's pass, and its action ends.
                        let next = context.nextLater()
                        kept.update { $0["newest"] = next }
                    default:
                        context.next(action)
                    }
                },
                Middleware("letting go") { action, context in
                    _ = context.nextLater()
                    context.next(action)
                },
                .asyncActions(),
            ], notificationCenter: StoreNotificationCenter())
        handle.store = store
        store.dispatch(later)
        store.dispatch(TestAction.append("go"))
        _ = store.currentState()
        #expect(await finishes(inner))
        #expect(await finishes(first))
        let functions = kept.value
        kept.value = [:]
        onThreads(1) { _ in functions["later"]?(later) }
        #expect(await finishes(later))
        #expect(runs.values.sorted() == ["held by the second function", "inner, passed on below"])
        _ = consume functions
        #expect(await finishes(second))
        #expect(runs.count == 2)
    }
}

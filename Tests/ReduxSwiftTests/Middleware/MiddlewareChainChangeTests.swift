import Foundation
import Testing

@testable import ReduxSwift

/// `register(middleware:)` and `MiddlewareRegistration.remove()` follow the rules of a dispatch
/// made at the same place.
@Suite(.offThePool) struct MiddlewareChainChangeTests {
    @Test func whileALockHoldsTheStoreAChangeAffectsExactlyTheActionsQueuedAfterIt() throws {
        let seen = Recorder<String>()
        let store = makeStore()
        let old = store.register(middleware: [entryRecordingMiddleware("old", into: seen)])
        let lock = store.lock()
        store.dispatch(TestAction.append("held before"))
        old.remove()
        store.register(middleware: [entryRecordingMiddleware("new", into: seen)])
        lock.dispatch(TestAction.append("through the lock"))
        store.dispatch(TestAction.append("held after"))
        #expect(store.currentState().log == ["through the lock"])
        try lock.release()
        #expect(store.currentState().log == ["through the lock", "held before", "held after"])
        #expect(seen.values == ["new:through the lock", "old:held before", "new:held after"])
    }

    @Test func aChangeMadeUnderOverlappingLocksHoldsAcrossAPartialRelease() throws {
        let seen = Recorder<String>()
        let store = makeStore()
        let old = store.register(middleware: [entryRecordingMiddleware("old", into: seen)])
        let older = store.lock()
        store.dispatch(TestAction.append("a"))
        let newer = store.lock()
        store.dispatch(TestAction.append("b"))
        old.remove()
        store.register(middleware: [entryRecordingMiddleware("new", into: seen)])
        store.dispatch(TestAction.append("c"))
        // Lets "a" through alone: it was queued before both changes.
        try older.release()
        newer.dispatch(TestAction.append("d"))
        #expect(store.currentState().log == ["a", "d"])
        try newer.release()
        #expect(store.currentState().log == ["a", "d", "b", "c"])
        #expect(seen.values == ["old:a", "new:d", "old:b", "new:c"])
        // Once nothing queued before them is held, the changes stand for good.
        store.dispatch(TestAction.append("e"))
        #expect(store.currentState().log.last == "e")
        #expect(Array(seen.values.dropFirst(4)) == ["new:e"])
    }

    @Test func aChangeFromAnotherStoresReducerIsMadeWhenItsActionCommitsAndInOrderWithItsDispatches() {
        let seen = Recorder<String>()
        let target = makeStore()
        let removable = target.register(middleware: [entryRecordingMiddleware("removed", into: seen)])
        let other = makeStore([
            testReducer,
            { _, action in
                guard case .append(let entry)? = action as? TestAction else { return }
                switch entry {
                case "register, then fail":
                    target.register(middleware: [entryRecordingMiddleware("lost", into: seen)])
                    throw TestFailure()
                case "remove, then fail":
                    removable.remove()
                    throw TestFailure()
                case "dispatch, then remove":
                    target.dispatch(TestAction.append("before the removal"))
                    removable.remove()
                case "dispatch, then register":
                    target.dispatch(TestAction.append("before the registration"))
                    target.register(middleware: [entryRecordingMiddleware("added", into: seen)])
                default:
                    break
                }
            },
        ])
        other.dispatch(TestAction.append("register, then fail"))
        other.dispatch(TestAction.append("remove, then fail"))
        _ = other.currentState()
        target.dispatch(TestAction.append("x"))
        other.dispatch(TestAction.append("dispatch, then remove"))
        _ = other.currentState()
        target.dispatch(TestAction.append("y"))
        other.dispatch(TestAction.append("dispatch, then register"))
        _ = other.currentState()
        target.dispatch(TestAction.append("z"))
        #expect(
            target.currentState().log == ["x", "before the removal", "y", "before the registration", "z"])
        #expect(seen.values == ["removed:x", "removed:before the removal", "added:z"])
    }

    @Test func aRegistrationFromAMiddlewareStandsWhenAReducerRejectsTheActionAndNotWhenItThrows() {
        let seen = Recorder<String>()
        let handle = StoreHandle()
        let registering = Middleware<TestState>("registers") { action, context in
            switch action as? TestAction {
            case .fail?:
                // Its own dispatches stand when a reducer rejects the action: so does this.
                handle.store.register(middleware: [entryRecordingMiddleware("kept", into: seen)])
                context.next(action)
            case .append("register, then throw")?:
                handle.store.register(middleware: [entryRecordingMiddleware("dropped", into: seen)])
                throw TestFailure()
            default:
                context.next(action)
            }
        }
        let store = Store(reducers: [testReducer], state: TestState(), middleware: [registering])
        handle.store = store
        store.dispatch(TestAction.fail)
        store.dispatch(TestAction.append("register, then throw"))
        store.dispatch(TestAction.append("after"))
        #expect(store.currentState().log == ["after"])
        // "register, then throw" never passed on: only "after" reaches the kept middleware.
        #expect(seen.values == ["kept:after"])
    }
}

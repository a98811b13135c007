import Foundation
import Testing

@testable import ReduxSwift

@Suite(.offThePool) struct MiddlewareRemovalTests {
    @Test func actionsQueuedBeforeTheRemovalPassThroughAndThoseQueuedAfterDoNot() {
        let seen = Recorder<String>()
        let store = makeStore()
        let registration = store.register(middleware: [entryRecordingMiddleware("m", into: seen)])
        let lock = store.lock()
        store.dispatch(TestAction.append("a"))
        store.dispatch(TestAction.append("b"))
        registration.remove()
        store.dispatch(TestAction.append("c"))
        try? lock.release()
        store.dispatch(TestAction.append("d"))
        #expect(store.currentState().log == ["a", "b", "c", "d"])
        #expect(seen.values == ["m:a", "m:b"])
    }

    @Test func aRemovalCutsEveryThreadsActionsInQueueOrder() {
        let seen = Recorder<String>()
        let store = makeStore()
        let registration = store.register(middleware: [entryRecordingMiddleware("m", into: seen)])
        let halfway = Recorder<Int>()
        let finished = Recorder<Int>()
        let removed = Gate()
        let streamed = LockedBox(0)
        let writers = 3
        onThreads(writers + 2) { thread in
            switch thread {
            case 0:
                // Removes once every writer has dispatched its first half.
                #expect(halfway.wait(forCount: writers))
                registration.remove()
                removed.open()
            case 1:
                // Dispatches all along, across the removal, until the writers are done.
                var count = 0
                while finished.count < writers {
                    store.dispatch(TestAction.append("s\(count)"))
                    count += 1
                }
                streamed.value = count
            default:
                for step in 0..<100 { store.dispatch(TestAction.append("w\(thread) \(step)")) }
                halfway.append(thread)
                #expect(removed.wait())
                for step in 100..<200 { store.dispatch(TestAction.append("w\(thread) \(step)")) }
                finished.append(thread)
            }
        }
        let log = store.currentState().log
        #expect(log.count == writers * 200 + streamed.value)
        // Whatever went through the middleware was reduced before whatever did not.
        let passed = seen.values.map { String($0.dropFirst(2)) }
        #expect(passed == Array(log.prefix(passed.count)))
        for thread in 2..<(writers + 2) {
            #expect(passed.filter { $0.hasPrefix("w\(thread) ") } == (0..<100).map { "w\(thread) \($0)" })
        }
    }

    @Test func removingARegistrationInTheMiddleKeepsTheOthersInOrder() {
        let seen = Recorder<String>()
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [entryRecordingMiddleware("1", into: seen)],
            notificationCenter: StoreNotificationCenter())
        store.register(middleware: [entryRecordingMiddleware("2", into: seen)])
        let middle = store.register(middleware: [
            entryRecordingMiddleware("3", into: seen), entryRecordingMiddleware("4", into: seen),
        ])
        store.register(middleware: [entryRecordingMiddleware("5", into: seen)])
        store.dispatch(TestAction.append("x"))
        middle.remove()
        store.dispatch(TestAction.append("y"))
        store.register(middleware: [entryRecordingMiddleware("6", into: seen)])
        store.dispatch(TestAction.append("z"))
        #expect(store.currentState().log == ["x", "y", "z"])
        #expect(
            seen.values == [
                "1:x", "2:x", "3:x", "4:x", "5:x", "1:y", "2:y", "5:y", "1:z", "2:z", "5:z", "6:z",
            ])
    }

    @Test func anActionHeldWithNextLaterContinuesAfterItsMiddlewareAcrossRemovals() {
        let seen = Recorder<String>()
        let held = LockedBox<[String: @Sendable (any ActionProtocol) -> Void]>([:])
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [entryRecordingMiddleware("first", into: seen)],
            notificationCenter: StoreNotificationCenter())
        let hold = store.register(middleware: [
            Middleware("hold") { action, context in
                guard case .append(let entry)? = action as? TestAction, entry.hasPrefix("held") else {
                    context.next(action)
                    return
                }
                seen.append("hold:\(entry)")
                let next = context.nextLater()
                held.value[entry] = next
            }
        ])
        let second = store.register(middleware: [entryRecordingMiddleware("second", into: seen)])
        let third = store.register(middleware: [entryRecordingMiddleware("third", into: seen)])
        store.dispatch(TestAction.append("held 1"))
        store.dispatch(TestAction.append("held 2"))
        // The middleware that held them leaves, with the one after it.
        hold.remove()
        second.remove()
        store.dispatch(TestAction.append("a"))
        _ = store.currentState()
        onThreads(1) { _ in held.value["held 1"]?(TestAction.append("held 1")) }
        // Nothing is left after the place the holder had: the next one goes to the reducers.
        third.remove()
        _ = store.currentState()
        onThreads(1) { _ in held.value["held 2"]?(TestAction.append("held 2")) }
        // A middleware registered now comes after that place too: a later action reaches it.
        store.register(middleware: [entryRecordingMiddleware("fourth", into: seen)])
        _ = store.currentState()
        onThreads(1) { _ in held.value["held 2"]?(TestAction.append("held 3")) }
        #expect(store.currentState().log == ["a", "held 1", "held 2", "held 3"])
        #expect(
            seen.values == [
                "first:held 1", "hold:held 1", "first:held 2", "hold:held 2", "first:a", "third:a",
                "third:held 1", "fourth:held 3",
            ])
    }

    @Test func removingEveryMiddlewareBringsBackPlainReduction() {
        let seen = Recorder<String>()
        let store = makeStore()
        let history = store.recordHistory()
        let registrations = [
            store.register(middleware: [entryRecordingMiddleware("1", into: seen)]),
            store.register(middleware: [
                Middleware("double adds") { action, context in
                    if case .add(let amount)? = action as? TestAction {
                        context.next(TestAction.add(amount * 2))
                    } else {
                        context.next(action)
                    }
                }
            ]),
        ]
        store.dispatch(TestAction.add(1))
        for registration in registrations.reversed() { registration.remove() }
        store.dispatch(TestAction.add(1))
        store.dispatch(batch: [TestAction.append("a"), TestAction.add(10)])
        store.dispatch(TestAction.fail)
        store.dispatch(TestAction.append("b"))
        #expect(store.currentState() == TestState(counter: 13, log: ["a", "b"]))
        #expect(seen.values == ["1:TestAction.add"])
        history.undo()
        history.undo()
        #expect(store.currentState() == TestState(counter: 3))
        history.redo()
        #expect(store.currentState() == TestState(counter: 13, log: ["a"]))
    }

    @Test func withNoMiddlewareLeftThePipelineReducesInRunsAgain() {
        let liveState = LiveState(
            state: TestState(), reducers: [testReducer],
            middleware: [Middleware("kept") { action, context in context.next(action) }])
        let first = MiddlewareKey()
        let second = MiddlewareKey()
        let passThrough = Middleware<TestState>("pass") { action, context in context.next(action) }.erased
        let scope = StoreCodeScope(reducing: nil, holding: liveState)
        _ = liveState.reduce(
            [
                .command(RegisterMiddleware(middleware: [passThrough, passThrough], key: first)),
                .command(RegisterMiddleware(middleware: [passThrough], key: second)),
            ], scope: scope)
        #expect(liveState.middlewareCount == 4)
        _ = liveState.reduce(
            [.command(RemoveMiddleware(key: first)), .command(RemoveMiddleware(key: first))], scope: scope
        )
        #expect(liveState.middlewareCount == 2, "the store's own middleware stay")

        // Without the store's own middleware, removing the last registration in the middle of a
        // pass sends the actions after it to the reducers in one run, as if there had never been any.
        let plain = LiveState(state: TestState(), reducers: [testReducer])
        let reduced = plain.reduce(
            [
                .command(RegisterMiddleware(middleware: [passThrough], key: first)),
                .command(RemoveMiddleware(key: first)),
                .action(TestAction.increment), .action(TestAction.append("a")),
            ], scope: StoreCodeScope(reducing: nil, holding: plain))
        #expect(plain.middlewareCount == 0)
        #expect(plain.state == TestState(counter: 1, log: ["a"]))
        guard reduced.events.count == 1, case .changed(let runs) = reduced.events[0] else {
            Issue.record("expected one change, got \(reduced.events)")
            return
        }
        #expect(runs.map(\.range) == [2..<4])
    }

    @Test func aMiddlewareOrAReducerCanRemoveAMiddlewareOnceItsActionIsHandled() {
        let seen = Recorder<String>()
        let own = LockedBox<MiddlewareRegistration?>(nil)
        let other = LockedBox<MiddlewareRegistration?>(nil)
        let store = Store(
            reducers: [
                testReducer,
                { _, action in
                    if case .append("remove other")? = action as? TestAction { other.value?.remove() }
                },
            ], state: TestState(), notificationCenter: StoreNotificationCenter())
        own.value = store.register(middleware: [
            Middleware("once") { action, context in
                let entry = (action as? TestAction).flatMap {
                    if case .append(let entry) = $0 { entry } else { nil }
                }
                seen.append("once:\(entry ?? action.identifier)")
                if entry == "remove, then throw" {
                    own.value?.remove()
                    throw TestFailure()
                }
                if entry == "remove" { own.value?.remove() }
                context.next(action)
            }
        ])
        other.value = store.register(middleware: [entryRecordingMiddleware("other", into: seen)])
        let lock = store.lock()
        // A middleware that throws loses its removal, like its dispatches.
        store.dispatch(TestAction.append("remove, then throw"))
        // Takes effect right after its action, ahead of "a", queued before it was made.
        store.dispatch(TestAction.append("remove"))
        store.dispatch(TestAction.append("a"))
        // A reducer's removal is lost if its action fails, and waits for it to commit otherwise.
        store.dispatch(batch: [TestAction.append("remove other"), TestAction.fail])
        store.dispatch(TestAction.append("b"))
        store.dispatch(TestAction.append("remove other"))
        store.dispatch(TestAction.append("c"))
        try? lock.release()
        let settled = Recorder<Int>()
        let token = store.observeChanges { _ in settled.append(0) }
        #expect(settled.wait(timeout: 10) { _ in store.currentState().log.last == "c" })
        // Both removals were queued before this read: it waits for them.
        _ = store.currentState()
        store.dispatch(TestAction.append("remove, then throw"))
        store.dispatch(TestAction.append("d"))
        #expect(
            store.currentState().log == ["remove", "a", "b", "remove other", "c", "remove, then throw", "d"])
        #expect(
            seen.values == [
                "once:remove, then throw", "once:remove", "other:remove", "other:a", "other:ActionBatch",
                "other:b", "other:remove other",
            ])
        withExtendedLifetime(token) {}
    }

    @Test func aBatchQueuedBeforeTheRemovalPassesThroughAndOneQueuedAfterDoesNot() {
        let seen = Recorder<String>()
        let store = makeStore()
        let registration = store.register(middleware: [entryRecordingMiddleware("m", into: seen)])
        let lock = store.lock()
        store.dispatch(batch: [TestAction.append("a"), TestAction.increment])
        registration.remove()
        store.dispatch(batch: [TestAction.append("b"), TestAction.increment])
        store.dispatch(batch: [TestAction.append("lost"), TestAction.fail])
        try? lock.release()
        #expect(store.currentState() == TestState(counter: 2, log: ["a", "b"]))
        #expect(seen.values == ["m:ActionBatch"])
    }

    @Test func asyncWorkStartedBeforeItsMiddlewareIsRemovedFinishesAndLaterWorkNeverStarts() async {
        let service = FakeService(answer: 5)
        let store = makeStore()
        let registration = store.register(middleware: [.asyncActions(dependencies: service)])
        let started = AsyncGate()
        let early = AsyncAction<TestState, FakeService>("early") { context in
            started.open()
            context.dispatch(TestAction.add(await context.dependencies.fetch()))
        }
        let ranLate = LockedBox(false)
        let late = AsyncAction<TestState, FakeService>("late") { _ in ranLate.value = true }
        store.dispatch(early)
        await started.opened()
        registration.remove()
        store.dispatch(late)
        store.dispatch(TestAction.append("after"))
        service.gate.open()
        #expect(await finishes(early))
        let state = await onOwnThread { () -> TestState in
            let settled = Recorder<Int>()
            let token = store.observeChanges { _ in settled.append(0) }
            settled.wait(timeout: 10) { _ in store.currentState().counter == 5 }
            return withExtendedLifetime(token) { store.currentState() }
        }
        #expect(state == TestState(counter: 5, log: ["after"]))
        #expect(!ranLate.value)
    }

    @Test func removingTwiceOrOnceTheStoreIsGoneDoesNothing() {
        let seen = Recorder<String>()
        let store = makeStore()
        let first = store.register(middleware: [entryRecordingMiddleware("first", into: seen)])
        store.register(middleware: [entryRecordingMiddleware("second", into: seen)])
        let copy = first
        first.remove()
        first.remove()
        copy.remove()
        store.register(middleware: []).remove()
        store.dispatch(TestAction.append("a"))
        #expect(store.currentState().log == ["a"])
        #expect(seen.values == ["second:a"])

        let freed = Gate()
        var registration: MiddlewareRegistration?
        do {
            let store = FreedStore(freed: freed, middleware: [])
            registration = store.register(middleware: [entryRecordingMiddleware("gone", into: seen)])
            store.dispatch(TestAction.increment)
            _ = store.currentState()
        }
        #expect(freed.wait(), "a registration does not keep its store alive")
        registration?.remove()
        registration?.remove()
    }
}

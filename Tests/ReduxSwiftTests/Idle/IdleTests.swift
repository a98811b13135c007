import Foundation
import Testing

@testable import ReduxSwift

/// A middleware that answers every `.add` with a follow-up `.append`, dispatched from the middleware.
private let followUp = Middleware<TestState>("follow-up") { action, context in
    context.next(action)
    if case .add(let amount)? = action as? TestAction {
        context.dispatch(TestAction.append("after \(amount)"))
    }
}

@Suite(.offThePool) struct IdleTests {
    @Test func aMiddlewaresFollowUpIsReducedWhenTheWaitReturns() async throws {
        for run in 0..<2_000 {
            let store = Store(reducers: [testReducer], state: TestState(), middleware: [followUp])
            store.dispatch(TestAction.add(run))
            try await store.waitUntilIdle(timeout: 60)
            #expect(store.currentState().log == ["after \(run)"], "run \(run)")
        }
    }

    @Test func whatAReducerDispatchesAndWhatThatDispatchesIsReduced() async throws {
        let store = makeStore()
        store.register([
            { state, action in
                // A chain of three dispatches, each made by the reducer of the one before.
                if case .add(let amount)? = action as? TestAction, amount < 3 {
                    store.dispatch(TestAction.add(amount + 1))
                }
            }
        ])
        store.dispatch(TestAction.add(1))
        try await store.waitUntilIdle(timeout: 60)
        #expect(store.currentState().counter == 1 + 2 + 3)
    }

    @Test func anAsyncActionsWorkAndItsDispatchesAreWaitedFor() async throws {
        let service = FakeService(answer: 7)
        let store = makeAsyncStore(service: service)
        let load = AsyncAction<TestState, FakeService>("load") { context in
            let answer = await context.dependencies.fetch()
            context.dispatch(TestAction.add(answer))
            await Task.yield()
            context.dispatch(TestAction.append("loaded"))
        }
        store.dispatch(load)
        let waiter = Task { try await store.waitUntilIdle(timeout: 60) }
        // The work is blocked on the service: the store is not idle, whatever the queue holds.
        await #expect(throws: IdleTimeoutError.self) { try await store.waitUntilIdle(timeout: 0.2) }
        service.gate.open()
        try await waiter.value
        #expect(store.currentState() == TestState(counter: 7, log: ["loaded"]))
    }

    @Test func aTimedOutWaitNamesTheRunningAsyncAction() async throws {
        let service = FakeService(answer: 1)
        let store = makeAsyncStore(service: service)
        // Signalled without blocking a thread of the cooperative pool: on a loaded machine the
        // action may start later than the short wait below would allow.
        let (started, signal) = AsyncStream<Void>.makeStream()
        let load = AsyncAction<TestState, FakeService>("load") { context in
            signal.yield()
            _ = await context.dependencies.fetch()
        }
        store.dispatch(load)
        for await _ in started { break }
        let error = await #expect(throws: IdleTimeoutError.self) {
            try await store.waitUntilIdle(timeout: 0.2)
        }
        #expect(error?.runningAsyncActions == 1)
        #expect(error?.queuedEntries == 0)
        #expect(error?.description == "the store was not idle after 0.2 s: 1 asynchronous action running")
        service.gate.open()
        try await store.waitUntilIdle(timeout: 60)
    }

    @Test func anAsyncActionCanWaitForItsOwnStoreWithoutWaitingForItself() async throws {
        let service = FakeService(answer: 1)
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [.asyncActions(dependencies: service), followUp])
        let saw = LockedBox<[String]>([])
        let work = AsyncAction<TestState, FakeService>("waits for its store") { context in
            context.dispatch(TestAction.add(1))
            try await context.store.waitUntilIdle(timeout: 60)
            saw.value = context.store.currentState().log
        }
        store.dispatch(work)
        #expect(await finishes(work))
        #expect(saw.value == ["after 1"], "the follow-up of its own dispatch was reduced")
    }

    @Test func asyncActionsThatEachWaitForTheirStoreDoNotWaitForEachOther() async throws {
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [.asyncActions(dependencies: FakeService(answer: 0))])
        // "Save" tapped twice, a parent and a child: each waits for the store, then dispatches.
        let waitsThenAdds: @Sendable (Int) -> AsyncAction<TestState, FakeService> = { amount in
            AsyncAction("save") { context in
                try await context.store.waitUntilIdle(timeout: 60)
                context.dispatch(TestAction.add(amount))
            }
        }
        let parent = AsyncAction<TestState, FakeService>("parent") { context in
            context.dispatch(waitsThenAdds(100))
            try await context.store.waitUntilIdle(timeout: 60)
            context.dispatch(TestAction.add(1000))
        }
        store.dispatch(waitsThenAdds(1))
        store.dispatch(waitsThenAdds(10))
        store.dispatch(parent)
        try await store.waitUntilIdle(timeout: 60)
        #expect(
            store.currentState().counter == 1111, "a wait from outside waited for what they dispatched after")
    }

    @Test func observersOnTheDeliveryThreadHaveHadEveryCallAndTheirDispatchesAreReduced() async throws {
        let store = makeStore()
        let heard = Recorder<Int>()
        let changes = store.observeChanges { _ in heard.append(1) }
        let values = Recorder<Int>()
        let counter = store.observe({ $0.counter }, using: { values.append($0) })
        // An observer that dispatches in turn: its dispatch is part of what the wait waits for.
        let echo = store.observe(
            { $0.counter },
            using: { counter in
                if counter == 5 { store.dispatch(TestAction.append("echo")) }
            })
        for _ in 0..<5 { store.dispatch(TestAction.increment) }
        try await store.waitUntilIdle(timeout: 60)
        #expect(values.values.last == 5)
        #expect(store.currentState().log == ["echo"])
        #expect(!heard.values.isEmpty)
        let heardBefore = heard.values.count
        try await store.waitUntilIdle(timeout: 60)
        #expect(heard.values.count == heardBefore, "nothing was still on its way")
        changes.cancel()
        counter.cancel()
        echo.cancel()
    }

    @Test func actionsHeldByADispatchLockKeepTheStoreBusyUntilReleased() async throws {
        let store = makeStore()
        let lock = store.lock()
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.increment)
        for _ in 0..<2 {
            // The second wait finds the first one's mark still queued: it is no entry of the app's.
            let error = await #expect(throws: IdleTimeoutError.self) {
                try await store.waitUntilIdle(timeout: 0.2)
            }
            #expect(error?.heldByDispatchLock == true)
            #expect(error?.queuedEntries == 2)
            #expect(
                error?.description
                    == "the store was not idle after 0.2 s: 2 queued entries, held by a dispatch lock")
        }
        try lock.release()
        try await store.waitUntilIdle(timeout: 60)
        #expect(store.currentState().counter == 2)
    }

    @Test func aWaitThatTimedOutStopsMarkingTheQueue() async throws {
        let store = makeStore()
        let lock = store.lock()
        store.dispatch(TestAction.increment)
        await #expect(throws: IdleTimeoutError.self) { try await store.waitUntilIdle(timeout: 0.1) }
        try lock.release()
        _ = store.currentState()
        let before = store.kernel.inspect { $0.enqueuedCount }
        for _ in 0..<100 {
            store.dispatch(TestAction.increment)
            _ = store.currentState()
        }
        let marks = store.kernel.inspect { $0.enqueuedCount } - before - 100
        #expect(marks <= 1, "the abandoned wait marked the queue \(marks) more times")
        #expect(store.currentState().counter == 101)
    }

    @Test func dispatchesFromManyThreadsAreAllReducedOnceTheThreadsAreDone() async throws {
        let store = Store(reducers: [testReducer], state: TestState(), middleware: [followUp])
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    await onOwnThread {
                        for _ in 0..<2_500 { store.dispatch(TestAction.add(1)) }
                    }
                }
            }
        }
        try await store.waitUntilIdle(timeout: 60)
        let state = store.currentState()
        #expect(state.counter == 10_000)
        #expect(state.log.count == 10_000, "every follow-up too")
    }

    @Test func manyWaitsAtOnceAllReturn() async throws {
        let store = Store(reducers: [testReducer], state: TestState(), middleware: [followUp])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask {
                    store.dispatch(TestAction.add(index))
                    try await store.waitUntilIdle(timeout: 60)
                    #expect(store.currentState().log.contains("after \(index)"))
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func anIdleStoreAndAFreshStoreAreIdleAtOnce() async throws {
        let store = makeStore()
        try await store.waitUntilIdle(timeout: 60)
        store.dispatch(TestAction.increment)
        try await store.waitUntilIdle(timeout: 60)
        try await store.waitUntilIdle(timeout: 60)
        #expect(store.currentState().counter == 1)
    }

    @Test func aCancelledWaitThrowsOrReturnsAtOnce() async throws {
        let service = FakeService(answer: 1)
        let store = makeAsyncStore(service: service)
        let load = AsyncAction<TestState, FakeService>("never answered") { context in
            _ = await context.dependencies.fetch()
        }
        store.dispatch(load)
        let throwing = Task { try await store.waitUntilIdle(timeout: 600) }
        let plain = Task { await store.waitUntilIdle() }
        throwing.cancel()
        plain.cancel()
        await #expect(throws: CancellationError.self) { try await throwing.value }
        await plain.value
        // Cancelled before it starts waiting: the same.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await store.waitUntilIdle(timeout: 600)
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        service.gate.open()
        try await store.waitUntilIdle(timeout: 60)
    }

    @Test func aBatchHoldingAnAsyncActionIsWaitedForWhole() async throws {
        let service = FakeService(answer: 3)
        let store = makeAsyncStore(service: service)
        let load = AsyncAction<TestState, FakeService>("load") { context in
            context.dispatch(TestAction.add(await context.dependencies.fetch()))
        }
        store.dispatch(batch: [TestAction.increment, load, TestAction.append("batched")])
        service.gate.open()
        try await store.waitUntilIdle(timeout: 60)
        #expect(store.currentState() == TestState(counter: 4, log: ["batched"]))
    }
}

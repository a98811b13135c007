import Foundation
import Testing

@testable import ReduxSwift

/// Work that dispatches `add(1)` once `released` resolves, or after `seconds` if nothing resolves
/// it (a last resort, so that a failing test ends): a request still under way while the work of
/// another action waits until idle.
private func slowWork(
    released: FirstOutcome, seconds: Double = 60
) -> AsyncAction<TestState, FakeService> {
    AsyncAction("slow") { context in
        Task {
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            released.resolve(false)
        }
        _ = await released.value()
        context.dispatch(TestAction.add(1))
    }
}

/// Resolves `released`, which lets ``slowWork(released:seconds:)`` dispatch, once `count` waits until
/// idle of `store` have parked (found the work running, so they wait for what it dispatches), or once
/// the test resolved it (a wait returned without waiting for the work). Returns whether either
/// came in time.
private func release(
    _ released: FirstOutcome, onceParked count: Int, in store: Store<TestState>
) async -> Bool {
    let parked = await onOwnThread {
        waitUntil(timeout: 60) { released.isResolved || store.kernel.idleWaitsKept.parked >= count }
    }
    released.resolve(false)
    return parked
}

/// Counts the `Tracker`s alive: one in every store's live state, one in every copy read.
private let liveTrackers = LockedBox(0)

/// A member of a state that counts itself alive, encoded as nothing.
private final class Tracker: Codable, Sendable {
    init() { liveTrackers.update { $0 += 1 } }
    init(from decoder: any Decoder) throws { liveTrackers.update { $0 += 1 } }
    func encode(to encoder: any Encoder) throws {}
    deinit { liveTrackers.update { $0 -= 1 } }
}

private struct TrackedState: StateProtocol {
    var counter = 0
    var tracker = Tracker()
}

private enum TrackedBump: ActionProtocol { case one }

private let trackedReducer: Reducer<TrackedState> = { state, action in
    if action is TrackedBump { state.counter += 1 }
}

@Suite(.offThePool) struct IdleWaitEdgeTests {
    @Test func twoWaitsOpenAtOnceInOneWorkWaitForAnotherActionsWork() async throws {
        let store = makeAsyncStore(service: FakeService(answer: 0))
        let returned = FirstOutcome()
        let saw = LockedBox<Int?>(nil)
        let waits = AsyncAction<TestState, FakeService>("two waits") { context in
            async let first: Void = context.store.waitUntilIdle()
            async let second: Void = context.store.waitUntilIdle()
            _ = await (first, second)
            saw.value = context.store.currentState().counter
            returned.resolve(true)
        }
        store.dispatch(slowWork(released: returned))
        store.dispatch(waits)
        #expect(await release(returned, onceParked: 2, in: store))
        #expect(await finishes(waits, within: 60))
        #expect(saw.value == 1, "both waits waited for the slow action's dispatch")
    }

    @Test func aWaitFromATaskTheWorkLeftBehindWaitsForAnotherActionsWork() async throws {
        let store = makeAsyncStore(service: FakeService(answer: 0))
        let returned = FirstOutcome()
        let saw = Recorder<Int>()
        let leaves = AsyncAction<TestState, FakeService>("leaves a task behind") { context in
            Task {
                try? await context.store.waitUntilIdle(timeout: 60)
                saw.append(context.store.currentState().counter)
                returned.resolve(true)
            }
        }
        store.dispatch(slowWork(released: returned))
        store.dispatch(leaves)
        #expect(await release(returned, onceParked: 1, in: store))
        #expect(await saw.waitOffThePool(timeout: 60) { !$0.isEmpty })
        #expect(saw.values == [1], "the left-behind wait waited for the slow action's dispatch")
    }

    @Test func aParentAwaitingItsChildThatWaitsUntilIdleFinishes() async throws {
        let store = makeAsyncStore(service: FakeService(answer: 0))
        let saw = LockedBox<Int?>(nil)
        let returned = FirstOutcome()
        let child = AsyncAction<TestState, FakeService>("child") { context in
            context.dispatch(TestAction.add(10))
            try await context.store.waitUntilIdle(timeout: 40)
            saw.value = context.store.currentState().counter
            returned.resolve(true)
        }
        let parent = AsyncAction<TestState, FakeService>("parent") { context in
            context.dispatch(child)
            await child.finished()
            context.dispatch(TestAction.add(100))
        }
        // Still running when the child waits: the child's wait waits for it, not for its parent.
        store.dispatch(slowWork(released: returned))
        store.dispatch(parent)
        #expect(await release(returned, onceParked: 1, in: store))
        #expect(await finishes(parent, within: 20))
        try await store.waitUntilIdle(timeout: 60)
        #expect(saw.value == 11, "the child's wait waited for the slow action, not for its parent")
        #expect(store.currentState().counter == 111)
    }

    @Test func laterValuesOfAnObserverWithoutAQueueComeOnTheDeliveryThreadAndAreWaitedFor() async throws {
        let store = makeStore()
        let firstRunning = Gate()
        let releaseFirst = Gate()
        // Each value and whether it came on the delivery thread.
        let heard = Recorder<(value: Int, onDeliveryThread: Bool)>()
        let token = LockedBox<ObserverToken?>(nil)
        let registered = Gate()
        // Registered on a thread of its own, which `observe` holds while it delivers the first value.
        Thread {
            token.value = store.observe(\.counter, queue: nil) { counter in
                heard.append((counter, DeliveringThreadFlag.isCurrent))
                guard counter == 0 else { return }
                firstRunning.open()
                // A slow first value: released once the wait below has parked or returned.
                releaseFirst.wait(timeout: 60)
            }
            registered.open()
        }.start()
        #expect(await onOwnThread { firstRunning.wait(timeout: 60) })
        store.dispatch(TestAction.add(3))
        let returned = LockedFlag()
        let wait = Task {
            defer { returned.set() }
            try await store.waitUntilIdle(timeout: 60)
            return heard.values.map(\.value)
        }
        // The wait parks once it finds the value held behind the first, or returns without it.
        let parkedOrReturned = await onOwnThread {
            waitUntil(timeout: 60) { returned.isSet || store.kernel.idleWaitsKept.parked > 0 }
        }
        #expect(parkedOrReturned)
        releaseFirst.open()
        let heardWhenIdle = try await wait.value
        #expect(heardWhenIdle == [0, 3], "the wait waited for the value that came during the first")
        #expect(await heard.waitOffThePool { $0.count >= 2 })
        #expect(heard.values.map(\.onDeliveryThread) == [false, true])
        #expect(await onOwnThread { registered.wait(timeout: 60) })
        token.value?.cancel()
    }

    @Test func waitsKeepNoStateAliveAfterTheyReturn() async throws {
        let before = liveTrackers.value
        for _ in 0..<1_000 {
            let store = Store(reducers: [trackedReducer], state: TrackedState())
            store.dispatch(TrackedBump.one)
            await store.waitUntilIdle()
        }
        #expect(await noneLeft(above: before), "after untimed waits: \(liveTrackers.value - before) states")
        for _ in 0..<1_000 {
            let store = Store(reducers: [trackedReducer], state: TrackedState())
            store.dispatch(TrackedBump.one)
            try await store.waitUntilIdle(timeout: 60)
            #expect(store.currentState().counter == 1)
        }
        #expect(await noneLeft(above: before), "after timed waits: \(liveTrackers.value - before) states")
        for _ in 0..<1_000 {
            let store = Store(reducers: [trackedReducer], state: TrackedState())
            store.dispatch(TrackedBump.one)
            await #expect(throws: IdleTimeoutError.self) { try await store.waitUntilIdle(timeout: 0) }
        }
        #expect(await noneLeft(above: before), "after timed-out waits: \(liveTrackers.value - before) states")
    }

    @Test func aWaitTimedOutByAHeldDispatchLockSaysSo() async throws {
        let store = makeStore()
        let lock = store.lock()
        let error = await #expect(throws: IdleTimeoutError.self) {
            try await store.waitUntilIdle(timeout: 0.2)
        }
        #expect(error?.heldByDispatchLock == true)
        #expect(error?.queuedEntries == 0)
        #expect(error?.description == "the store was not idle after 0.2 s: held by a dispatch lock")
        try lock.release()
        try await store.waitUntilIdle(timeout: 60)
    }

    @Test func waitsThatEndWhileALockHoldsTheStoreLeaveNothingBehind() async throws {
        let store = makeStore()
        let lock = store.lock()
        store.dispatch(TestAction.increment)
        for _ in 0..<1_000 {
            await #expect(throws: IdleTimeoutError.self) { try await store.waitUntilIdle(timeout: 0.0001) }
        }
        for _ in 0..<200 {
            let wait = Task { await store.waitUntilIdle() }
            wait.cancel()
            await wait.value
        }
        var kept = store.kernel.idleWaitsKept
        #expect(kept.marks <= 1, "waits while nothing else was queued share one mark")
        #expect(kept.waits == 0 && kept.parked == 0 && kept.markedWaits == 0, "\(kept)")
        // With an action queued between waits, each leaves only its place in the queue, behind it.
        for _ in 0..<3_000 {
            store.dispatch(TestAction.increment)
            await #expect(throws: IdleTimeoutError.self) { try await store.waitUntilIdle(timeout: 0.0001) }
        }
        kept = store.kernel.idleWaitsKept
        #expect(kept.marks <= 3_001)
        #expect(kept.waits == 0 && kept.parked == 0 && kept.markedWaits == 0, "\(kept)")
        try lock.release()
        try await store.waitUntilIdle(timeout: 60)
        #expect(store.currentState().counter == 3_001)
        #expect(store.kernel.idleWaitsKept.marks == 0)
    }

    @Test func waitsThatEndWhileWorkRunsLeaveNothingBehind() async throws {
        let store = makeAsyncStore(service: FakeService(answer: 0))
        let released = FirstOutcome()
        let work = slowWork(released: released, seconds: 60)
        store.dispatch(work)
        for _ in 0..<500 {
            await #expect(throws: IdleTimeoutError.self) { try await store.waitUntilIdle(timeout: 0.0001) }
        }
        let kept = store.kernel.idleWaitsKept
        #expect(kept.waits == 0 && kept.parked == 0 && kept.markedWaits == 0, "\(kept)")
        released.resolve(true)
        try await store.waitUntilIdle(timeout: 60)
        #expect(store.currentState().counter == 1)
    }

    @Test func aTimeoutOfZeroOnAnIdleStoreSaysWhyItThrew() async throws {
        let store = makeStore()
        try await store.waitUntilIdle(timeout: 60)
        let error = await #expect(throws: IdleTimeoutError.self) { try await store.waitUntilIdle(timeout: 0) }
        #expect(
            error?.description
                == "the store was not idle after 0.0 s: a timeout of 0 ends before a wait can see the store idle"
        )
    }

    /// Whether the live `Tracker`s come back down to `count` within 20 seconds: the stores' queues
    /// may still be finishing work they had when their last wait returned.
    private func noneLeft(above count: Int) async -> Bool {
        await onOwnThread {
            let deadline = Date(timeIntervalSinceNow: 20)
            while liveTrackers.value > count {
                if Date() > deadline { return false }
                Thread.sleep(forTimeInterval: 0.001)
            }
            return true
        }
    }
}

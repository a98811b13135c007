import Foundation
import Testing

@testable import ReduxSwift

@Suite(.offThePool) struct DispatchLockTests {
    @Test func actionsQueueWhileLockedAndAreReducedInOrderOnRelease() throws {
        let store = makeStore()
        store.dispatch(TestAction.append("before"))
        let lock = store.lock("test")
        #expect(store.heldLockCount == 1)
        for entry in ["a", "b", "c"] { store.dispatch(TestAction.append(entry)) }
        // Readers do not wait for what the lock holds.
        #expect(store.currentState().log == ["before"])
        try lock.release()
        #expect(store.heldLockCount == 0)
        #expect(store.currentState().log == ["before", "a", "b", "c"])
    }

    @Test func anActionDispatchedThroughTheLockPassesItAheadOfTheQueue() throws {
        let store = makeStore()
        let lock = store.lock("sign-in", performing: TestAction.append("exclusive 1"))
        store.dispatch(TestAction.append("queued"))
        lock.dispatch(TestAction.append("exclusive 2"))
        #expect(store.currentState().log == ["exclusive 1", "exclusive 2"])
        try lock.release()
        #expect(store.currentState().log == ["exclusive 1", "exclusive 2", "queued"])
    }

    @Test func theStoreResumesOnlyWhenEveryLockIsReleased() throws {
        let store = makeStore()
        let first = store.lock("first")
        let second = store.lock("second")
        store.dispatch(TestAction.increment)
        try first.release()
        #expect(store.currentState().counter == 0)
        #expect(store.heldLockCount == 1)
        try second.release()
        #expect(store.currentState().counter == 1)
    }

    @Test func anActionDispatchedBeforeALockIsNotHeldByIt() throws {
        let store = makeStore()
        let first = store.lock("first")
        store.dispatch(TestAction.append("before second"))
        let second = store.lock("second")
        store.dispatch(TestAction.append("after second"))
        try first.release()
        // "before second" was dispatched before `second` was taken: only `first` held it. A
        // holder of `second` that reads waits for it rather than forever.
        #expect(store.currentState().log == ["before second"])
        #expect(store.heldLockCount == 1)
        try second.release()
        #expect(store.currentState().log == ["before second", "after second"])
    }

    @Test func eachActionWaitsOnlyForTheLocksTakenBeforeIt() throws {
        let store = makeStore()
        let first = store.lock("first")
        store.dispatch(TestAction.append("x"))
        let second = store.lock("second")
        store.dispatch(TestAction.append("y"))
        let third = store.lock("third")
        store.dispatch(TestAction.append("z"))
        // `first` still holds all three.
        try second.release()
        #expect(store.currentState().log == [])
        // x and y were dispatched before `third`; z waits for it.
        try first.release()
        #expect(store.currentState().log == ["x", "y"])
        try third.release()
        #expect(store.currentState().log == ["x", "y", "z"])
    }

    @Test func releasingTheNewestLockFirstKeepsWhatTheOldestHolds() throws {
        let store = makeStore()
        let first = store.lock("first")
        store.dispatch(TestAction.append("x"))
        let second = store.lock("second")
        store.dispatch(TestAction.append("y"))
        try second.release()
        #expect(store.currentState().log == [])
        first.dispatch(TestAction.append("through"))
        #expect(store.currentState().log == ["through"])
        try first.release()
        #expect(store.currentState().log == ["through", "x", "y"])
    }

    @Test func anAbandonedOlderLockReleasesWhatOnlyItHeld() {
        let store = makeStore()
        var first: DispatchLock? = store.lock("first")
        store.dispatch(TestAction.append("x"))
        let second = store.lock("second")
        store.dispatch(TestAction.append("y"))
        first = nil
        #expect(store.currentState().log == ["x"])
        try? second.release()
        #expect(store.currentState().log == ["x", "y"])
        #expect(first == nil)
    }

    @Test func releasingALockTwiceThrowsAndLeavesOtherLocksHeld() throws {
        let store = makeStore()
        let first = store.lock("first")
        let second = store.lock("second")
        try first.release()
        #expect(throws: DispatchLock.ReleaseError(.alreadyReleased, name: "first")) { try first.release() }
        store.dispatch(TestAction.increment)
        #expect(store.currentState().counter == 0)
        #expect(store.heldLockCount == 1)
        try second.release()
        #expect(store.currentState().counter == 1)
        #expect(
            DispatchLock.ReleaseError(.alreadyReleased, name: "first").description
                == "the dispatch lock \"first\" was released twice")
    }

    @Test func aLockFreedWithoutReleaseIsReleasedAndReported() {
        let center = StoreNotificationCenter()
        let store = makeStore(center: center)
        let failures = Recorder<StoreNotification>()
        let token = store.observeFailures { failures.append($0) }
        var lock: DispatchLock? = store.lock("forgotten")
        store.dispatch(TestAction.increment)
        #expect(lock?.isReleased == false)
        lock = nil
        #expect(store.currentState().counter == 1)
        #expect(failures.wait(forCount: 1))
        let error = failures.values[0].error as? DispatchLock.ReleaseError
        guard let error, case .abandoned(let file, let line) = error.kind else {
            Issue.record("expected an abandoned-lock report, got \(String(describing: error))")
            return
        }
        #expect(error.name == "forgotten")
        #expect(file.hasSuffix("DispatchLockTests.swift"))
        #expect(line > 0)
        #expect(failures.values[0].failedAction == nil)
        #expect(error.description.contains("was never released"))
        withExtendedLifetime(token) {}
    }

    @Test func anObserverCanReleaseTheLockWhenTheExclusiveActionLands() {
        let store = makeStore()
        let locks = Recorder<DispatchLock>()
        let (announced, token) = recordAppends(announcedBy: store)
        let releaser = store.observeChanges { note in
            if note.actions.contains(where: { ($0 as? TestAction) == .append("refreshed") }) {
                try? locks.values.first?.release()
            }
        }
        let lock = store.lock("refresh")
        locks.append(lock)
        lock.dispatch(TestAction.append("refreshed"))
        store.dispatch(TestAction.append("after"))
        #expect(announced.wait(forCount: 2))
        #expect(announced.values == ["refreshed", "after"])
        #expect(store.heldLockCount == 0)
        withExtendedLifetime((token, releaser)) {}
    }

    @Test func aReducerCanTakeAndReleaseLocksWithoutDeadlock() {
        let handle = StoreHandle()
        let locks = Recorder<DispatchLock>()
        let store = makeStore([
            testReducer,
            { _, action in
                switch action as? TestAction {
                case .append("pause")?: locks.append(handle.store.lock("from a reducer"))
                case .append("resume")?: try? locks.values.first?.release()
                default: break
                }
            },
        ])
        handle.store = store
        store.dispatch(TestAction.append("pause"))
        #expect(locks.wait(forCount: 1))
        store.dispatch(TestAction.append("held"))
        #expect(store.currentState().log == ["pause"])
        let (announced, token) = recordAppends(announcedBy: store)
        locks.values[0].dispatch(TestAction.append("resume"))
        // The reducer releases the lock while it reduces "resume", before the change is announced.
        #expect(announced.wait { $0.contains("resume") })
        #expect(store.currentState().log == ["pause", "resume", "held"])
        withExtendedLifetime(token) {}
        #expect(store.heldLockCount == 0)
    }

    @Test func locksAreSafeUnderManyThreadsAndKeepEachThreadsOrder() throws {
        let store = makeStore()
        concurrently(6) { thread in
            for step in 0..<200 {
                if step % 20 == 0 {
                    let lock = store.lock("thread \(thread)")
                    store.dispatch(TestAction.append("\(thread):\(step)"))
                    lock.dispatch(TestAction.increment)
                    try? lock.release()
                } else {
                    store.dispatch(TestAction.append("\(thread):\(step)"))
                }
            }
        }
        let state = store.currentState()
        #expect(store.heldLockCount == 0)
        #expect(state.counter == 6 * 10)
        #expect(state.log.count == 6 * 200)
        for thread in 0..<6 {
            let steps = state.log.filter { $0.hasPrefix("\(thread):") }.map {
                Int($0.split(separator: ":")[1])!
            }
            #expect(steps == Array(0..<200))
        }
    }
}

@Suite(.offThePool) struct ReleasedLockTests {
    /// A thread dispatching through a released lock into a full queue waits for room; meanwhile a
    /// reducer of the same store dispatches through that lock. The drainer must be able to send
    /// the reducer's dispatch while the thread waits, or neither ever goes on.
    @Test func aDispatchThroughAReleasedLockWaitingForRoomDoesNotBlockTheDrainer() throws {
        let reducerMayDispatch = Gate()
        let reducerStarted = Gate()
        let lockBox = LockBox()
        let relay: Reducer<TestState> = { state, action in
            guard case TestAction.append("relay") = action else { return }
            reducerStarted.open()
            _ = reducerMayDispatch.wait()
            lockBox.lock?.dispatch(TestAction.add(100))
        }
        let store = makeStore([testReducer, relay])
        store.kernel.setHighWaterMark(1)
        let lock = store.lock("released")
        try lock.release()
        lockBox.lock = lock
        store.dispatch(TestAction.append("relay"))
        #expect(reducerStarted.wait())
        // Fill the queue: each of these waits for room, the second through the released lock.
        let plain = onNewThread { store.dispatch(TestAction.increment) }
        #expect(waitUntil { store.kernel.inspect(\.blockedDispatcherCount) == 1 })
        let throughLock = onNewThread { lock.dispatch(TestAction.increment) }
        #expect(waitUntil { store.kernel.inspect(\.blockedDispatcherCount) == 2 })
        reducerMayDispatch.open()
        // Reading the state would wait for a stuck drainer: check the dispatchers first.
        guard plain.wait(timeout: 10), throughLock.wait(timeout: 10) else {
            Issue.record("a dispatcher waiting for room was never let go: the drainer is stuck")
            return
        }
        #expect(store.currentState().counter == 102)
    }
}

/// Holds a dispatch lock for a reducer that is created before the lock.
///
/// `@unchecked Sendable`: `lock` is set once, before the action whose reducer reads it is
/// dispatched; the dispatch orders the write before the read.
final class LockBox: @unchecked Sendable {
    var lock: DispatchLock?
}

import Foundation
import Testing

@testable import ReduxSwift

@Suite struct DispatchLockTests {
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
        #expect(throws: DispatchLockError(.alreadyReleased, name: "first")) { try first.release() }
        store.dispatch(TestAction.increment)
        #expect(store.currentState().counter == 0)
        #expect(store.heldLockCount == 1)
        try second.release()
        #expect(store.currentState().counter == 1)
        #expect(
            DispatchLockError(.alreadyReleased, name: "first").description
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
        let error = failures.values[0].error as? DispatchLockError
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

@Suite struct StoreMachineLockTests {
    typealias Machine = StoreMachine<String, Int>

    @Test func aLockedMachineReducesOnlyExclusiveEntriesAndReadersSkipHeldOnes() {
        var machine = Machine(initialSnapshot: Snapshot(version: 0, result: .success(Data())))
        let lock = machine.lock()
        #expect(machine.enqueue("held") == false)
        #expect(machine.enqueueExclusive("passes") == true)
        #expect(machine.startDrain() == ["passes"])
        var waiterCount = 0
        let read = machine.beginRead(waiting: true) {
            waiterCount += 1
            return waiterCount
        }
        guard case .wait = read else {
            Issue.record("a reader must wait for the exclusive entry in progress")
            return
        }
        let (step, effects) = machine.finishPass(processed: 1, changes: 1, events: [])
        guard case .encode(let version) = step else {
            Issue.record("the drainer must encode for the reader, not reduce the held entry")
            return
        }
        #expect(version == 1)
        #expect(effects.resumed.isEmpty)
        let (next, published) = machine.drainerDidEncode(Snapshot(version: 1, result: .success(Data())))
        #expect(published.resumed == [1])
        guard case .finished = next else {
            Issue.record("the held entry must wait for the unlock")
            return
        }
        #expect(machine.unlock(lock) == true)
        #expect(machine.startDrain() == ["held"])
    }

    @Test func entriesQueuedBeforeTheFirstLockAreStillReduced() {
        var machine = Machine(initialSnapshot: Snapshot(version: 0, result: .success(Data())))
        #expect(machine.enqueue("before") == true)
        let lock = machine.lock()
        #expect(machine.enqueue("after") == false)
        #expect(machine.enqueueExclusive("through") == false)
        #expect(machine.startDrain() == ["before", "through"])
        _ = machine.finishPass(processed: 2, changes: 2, events: [])
        #expect(machine.unlock(lock) == true)
        #expect(machine.startDrain() == ["after"])
    }

    @Test func releasingAnOlderLockLetsThroughWhatOnlyItHeld() {
        var machine = Machine(initialSnapshot: Snapshot(version: 0, result: .success(Data())))
        let first = machine.lock()
        #expect(machine.enqueue("x") == false)
        let second = machine.lock()
        #expect(machine.enqueue("y") == false)
        let third = machine.lock()
        #expect(machine.enqueue("z") == false)
        #expect(machine.unlock(second) == false, "first still holds x, y and z")
        #expect(machine.unlock(first) == true)
        #expect(machine.lockCount == 1)
        #expect(machine.startDrain() == ["x", "y"])
        _ = machine.finishPass(processed: 2, changes: 2, events: [])
        #expect(machine.unlock(third) == true)
        #expect(machine.startDrain() == ["z"])
    }

    @Test(arguments: 0..<20)
    func randomOverlappingLocksMatchAModelWhereEachEntryWaitsOnlyForOlderLocks(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var machine = Machine(initialSnapshot: Snapshot(version: 0, result: .success(Data())))
        // The model: a plain entry may be reduced once every lock taken before it is released, and
        // must be then; an exclusive entry at once.
        var held: [(id: UInt64, takenAt: Int)] = []
        var waiting: [String: Int] = [:]
        var enqueued = 0
        func mayPass(_ index: Int) -> Bool { !held.contains { $0.takenAt <= index } }
        for step in 0..<300 {
            switch random.next() % 5 {
            case 0:
                held.append((machine.lock(), enqueued))
            case 1 where !held.isEmpty:
                let lock = held.remove(at: Int(random.next() % UInt64(held.count)))
                _ = machine.unlock(lock.id)
            case 2:
                _ = machine.enqueueExclusive("exclusive \(step)")
                waiting["exclusive \(step)"] = -1
            default:
                _ = machine.enqueue("plain \(step)")
                waiting["plain \(step)"] = enqueued
            }
            enqueued += 1
            var batch = machine.startDrain() ?? []
            while !batch.isEmpty {
                for entry in batch {
                    let index = waiting.removeValue(forKey: entry)
                    #expect(
                        index.map { $0 < 0 || mayPass($0) } == true, "seed \(seed): \(entry) passed a lock")
                }
                guard
                    case .reduce(let next) = machine.finishPass(
                        processed: batch.count, changes: batch.count, events: []
                    ).0
                else { break }
                batch = next
            }
            let stuck = waiting.filter { $0.value < 0 || mayPass($0.value) }.keys.sorted()
            guard stuck.isEmpty else {
                Issue.record("seed \(seed), step \(step): \(stuck) wait for no lock but were not reduced")
                return
            }
        }
    }
}

/// A small seeded generator (SplitMix64), so that a failing seed can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

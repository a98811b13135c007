import Foundation
import Testing

@testable import ReduxSwift

@Suite(.offThePool) struct StoreMachineTests {
    typealias Machine = StoreMachine<String, Int>

    static func snapshot(_ version: UInt64) -> Snapshot {
        Snapshot(version: version, result: .success(Data("\(version)".utf8)))
    }

    func makeMachine() -> Machine { Machine(initialSnapshot: Self.snapshot(0)) }

    /// A change event announcing one action.
    static func changed(_ action: TestAction) -> StoreEvent {
        .changed([ActionRun(entries: [.action(action)], range: 0..<1)])
    }

    @Test func onlyTheFirstEnqueueOfABurstSchedulesADrain() {
        var machine = makeMachine()
        let first = machine.enqueue("a").scheduleDrain
        let second = machine.enqueue("b").scheduleDrain
        #expect(first && !second)
        let pass = machine.startDrain().pass
        #expect(pass == ["a", "b"])
        #expect(machine.holder == .drainer)
        // While draining, the drainer picks up new entries itself.
        let third = machine.enqueue("c").scheduleDrain
        #expect(!third)
        let step = machine.finishPass(processed: 2, changes: 2, events: []).next
        guard case .reduce(let next) = step else {
            Issue.record("expected another pass, got \(step)")
            return
        }
        #expect(next == ["c"])
        let last = machine.finishPass(processed: 1, changes: 1, events: []).next
        guard case .nothing = last else {
            Issue.record("expected the drain to finish, got \(last)")
            return
        }
        #expect(machine.holder == .nobody)
        #expect(machine.processedCount == 3)
        #expect(machine.version == 3)
    }

    @Test func aReaderOfAnUnchangedStoreUsesThePublishedSnapshot() {
        var machine = makeMachine()
        guard case .read(let snapshot) = machine.beginRead(waiting: true, makeWaiter: { 1 }).next else {
            Issue.record("expected the published snapshot")
            return
        }
        #expect(snapshot.version == 0)
    }

    @Test func aReaderOfAnIdleChangedStoreEncodesItOnceAndOthersWaitForIt() {
        var machine = makeMachine()
        _ = machine.enqueue("a")
        _ = machine.startDrain()
        _ = machine.finishPass(processed: 1, changes: 1, events: [])
        guard case .encode(let version) = machine.beginRead(waiting: true, makeWaiter: { 1 }).next else {
            Issue.record("expected the reader to encode")
            return
        }
        #expect(version == 1)
        #expect(machine.holder == .snapshotter)
        guard case .waitForSnapshot(let waiter) = machine.beginRead(waiting: true, makeWaiter: { 2 }).next
        else {
            Issue.record("expected the second reader to wait")
            return
        }
        #expect(waiter == 2)
        let effects = machine.snapshotterDidEncode(Self.snapshot(1))
        #expect(effects.resumed == [2])
        #expect(effects.snapshot?.version == 1)
        #expect(machine.holder == .nobody)
    }

    @Test func aReaderWaitsForQueuedEntriesAndTheDrainerEncodesForIt() {
        var machine = makeMachine()
        _ = machine.enqueue("a")
        guard case .waitForSnapshot(let waiter) = machine.beginRead(waiting: true, makeWaiter: { 7 }).next
        else {
            Issue.record("expected the reader to wait for the queued entry")
            return
        }
        #expect(waiter == 7)
        _ = machine.startDrain()
        let effects = machine.finishPass(processed: 1, changes: 1, events: [])
        let step = effects.next
        #expect(effects.resumed.isEmpty)
        guard case .encode(let version) = step else {
            Issue.record("expected the drainer to encode for the waiting reader, got \(step)")
            return
        }
        let published = machine.drainerDidEncode(Self.snapshot(version))
        let after = published.next
        #expect(published.resumed == [7])
        #expect(published.snapshot?.version == 1)
        guard case .nothing = after else {
            Issue.record("expected the drain to finish, got \(after)")
            return
        }
    }

    @Test func aDrainerHandsALargeStateToTheWaitingReaderToEncodeAndTheReaderSchedulesWhatIsLeft() {
        var machine = Machine(initialSnapshot: Snapshot(version: 0, result: .success(Data(count: 64))))
        machine.readerEncodingThreshold = 64
        _ = machine.enqueue("a")
        guard case .waitForSnapshot(let waiter) = machine.beginRead(waiting: true, makeWaiter: { 7 }).next
        else {
            Issue.record("expected the reader to wait for the queued entry")
            return
        }
        #expect(waiter == 7)
        _ = machine.startDrain()
        let effects = machine.finishPass(processed: 1, changes: 1, events: [])
        guard case .nothing = effects.next else {
            Issue.record("expected the drainer to give the state up, got \(effects.next)")
            return
        }
        #expect(effects.handedOver?.reader == 7)
        #expect(effects.handedOver?.version == 1)
        #expect(effects.resumed.isEmpty)
        #expect(machine.holder == .snapshotter)

        // Another reader waits for the one that encodes; an entry queued meanwhile waits for it too.
        guard case .waitForSnapshot(let second) = machine.beginRead(waiting: true, makeWaiter: { 8 }).next
        else {
            Issue.record("expected the second reader to wait")
            return
        }
        #expect(second == 8)
        #expect(!machine.enqueue("b").scheduleDrain)
        let published = machine.snapshotterDidEncode(Self.snapshot(1))
        #expect(published.resumed == [8])
        #expect(published.snapshot?.version == 1)
        #expect(published.scheduleDrain)
        #expect(machine.holder == .nobody)
    }

    @Test func aReaderInsideAReducerNeverWaits() {
        var machine = makeMachine()
        _ = machine.enqueue("a")
        _ = machine.startDrain()
        guard case .read(let snapshot) = machine.beginRead(waiting: false, makeWaiter: { 1 }).next else {
            Issue.record("a non-waiting read must use the published snapshot")
            return
        }
        #expect(snapshot.version == 0)
    }

    @Test func aDrainScheduledWhileAReaderEncodesIsRescheduledWhenItFinishes() {
        var machine = makeMachine()
        _ = machine.enqueue("a")
        _ = machine.startDrain()
        _ = machine.finishPass(processed: 1, changes: 1, events: [])
        _ = machine.beginRead(waiting: true, makeWaiter: { 1 }).next  // becomes the snapshotter
        let scheduled = machine.enqueue("b").scheduleDrain
        #expect(!scheduled)  // no drain while a reader holds the state
        let effects = machine.snapshotterDidEncode(Self.snapshot(1))
        #expect(effects.scheduleDrain)
        let pass = machine.startDrain().pass
        #expect(pass == ["b"])
    }

    @Test func consecutiveChangesAreCoalescedButFailuresKeepTheirPlace() {
        var machine = makeMachine()
        _ = machine.enqueue("a")
        _ = machine.startDrain()
        let failure = StoreEvent.failed(TestAction.fail, TestFailure())
        let first = machine.finishPass(
            processed: 3, changes: 2, events: [Self.changed(.increment), failure, Self.changed(.add(1))])
        #expect(first.scheduleDelivery)
        _ = machine.enqueue("b")
        _ = machine.startDrain()
        let second = machine.finishPass(processed: 1, changes: 1, events: [Self.changed(.add(2))])
        #expect(!second.scheduleDelivery)  // one delivery is already scheduled
        let events = machine.takeEvents()
        #expect(events.count == 3)
        guard case .changed(let runs) = events[2] else {
            Issue.record("expected the last event to be a change")
            return
        }
        #expect(StoreNotification.ActionList(runs: runs).map { $0 as? TestAction } == [.add(1), .add(2)])
    }

    // MARK: Back-pressure

    @Test func aDispatcherThatFillsTheQueueWaitsUntilTheDrainerTakesIt() {
        var machine = makeMachine()
        machine.highWaterMark = 3
        _ = machine.enqueue("a")
        _ = machine.enqueue("b")
        #expect(!machine.isFull)
        _ = machine.enqueue("c")
        #expect(machine.isFull)
        #expect(machine.blockUntilTaken(makeWaiter: { 1 }).roomWaiter == 1)
        let drained = machine.startDrain()
        #expect(drained.pass == ["a", "b", "c"])
        #expect(drained.unblocked == [1])
        #expect(!machine.isFull)
        #expect(machine.blockUntilTaken(makeWaiter: { 2 }).roomWaiter == nil)
        // While the drainer reduces, the next pass's entries fill the queue again.
        for entry in ["d", "e", "f"] { _ = machine.enqueue(entry) }
        #expect(machine.blockUntilTaken(makeWaiter: { 3 }).roomWaiter == 3)
        let effects = machine.finishPass(processed: 3, changes: 3, events: [])
        let step = effects.next
        guard case .reduce(let next) = step else {
            Issue.record("expected another pass, got \(step)")
            return
        }
        #expect(next == ["d", "e", "f"])
        #expect(effects.unblocked == [3])
        #expect(machine.blockedDispatcherCount == 0)
    }

    @Test func aPausedQueueIsNeverFullAndItsBlockedDispatchersAreWokenWithTheEntriesBeforeTheLock() {
        var machine = makeMachine()
        machine.highWaterMark = 2
        _ = machine.enqueue("a")
        _ = machine.enqueue("b")
        #expect(machine.blockUntilTaken(makeWaiter: { 1 }).roomWaiter == 1)
        _ = machine.lock()
        // The entries before the lock are still reduced, and taking them wakes the dispatcher.
        let drained = machine.startDrain()
        #expect(drained.pass == ["a", "b"])
        #expect(drained.unblocked == [1])
        // Held entries could not drain however long a dispatcher waited.
        for entry in ["c", "d", "e"] { _ = machine.enqueue(entry) }
        #expect(!machine.isFull)
        #expect(machine.blockUntilTaken(makeWaiter: { 2 }).roomWaiter == nil)
    }

    @Test func aFinishedDrainReleasesTheBufferOfABurstButKeepsASmallOne() {
        var machine = makeMachine()
        let burst = Machine.retainedCapacity * 4
        for index in 0..<burst { _ = machine.enqueue("\(index)") }
        _ = machine.startDrain()
        #expect(machine.pendingCapacity >= burst)  // ready for a steady stream of the same size
        let step = machine.finishPass(processed: burst, changes: burst, events: []).next
        guard case .nothing = step else {
            Issue.record("expected the drain to finish, got \(step)")
            return
        }
        #expect(machine.pendingCapacity <= Machine.retainedCapacity)
        // A small queue keeps its buffer: no reallocation per pass for a steady trickle.
        for index in 0..<100 { _ = machine.enqueue("\(index)") }
        _ = machine.startDrain()
        _ = machine.finishPass(processed: 100, changes: 100, events: [])
        #expect(machine.pendingCapacity >= 100)
    }

    @Test func theQueueBufferKeptForTheNextPassNeverExceedsTheHighWaterMark() {
        var machine = makeMachine()
        machine.highWaterMark = 8
        let lock = machine.lock()
        for index in 0..<100 { _ = machine.enqueue("\(index)") }
        _ = machine.unlock(lock)
        #expect(machine.startDrain().pass?.count == 100)
        #expect(machine.pendingCapacity < 100)
    }
}

extension StoreMachine.Effects {
    /// The pass to reduce next, if the transition handed one over.
    var pass: [Entry]? {
        if case .reduce(let pass) = next { return pass }
        return nil
    }

    /// The waiter a dispatcher waits on for room, if the transition blocked it.
    var roomWaiter: Waiter? {
        if case .waitForRoom(let waiter) = next { return waiter }
        return nil
    }
}

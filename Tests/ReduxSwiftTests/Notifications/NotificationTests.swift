import Foundation
import Testing

@testable import ReduxSwift

/// Rule 5: coalesced change notifications that never lose the last change.
@Suite(.offThePool) struct NotificationTests {
    @Test func aBurstIsCoalescedAndEveryActionIsAnnouncedExactlyOnceInOrder() {
        let store = makeStore()
        let dispatched = Gate()
        let announced = Recorder<[Int]>()
        let token = store.observeChanges { note in
            // Hold the delivery thread until the burst is queued, so later changes pile up.
            dispatched.wait()
            announced.append(
                note.actions.map { action -> Int in
                    guard case .add(let amount) = action as? TestAction else { return -1 }
                    return amount
                })
        }
        let total = 2_000
        for amount in 1...total { store.dispatch(TestAction.add(amount)) }
        dispatched.open()
        #expect(announced.wait { $0.joined().count >= total })
        #expect(announced.count < total)
        #expect(Array(announced.values.joined()) == Array(1...total))
        token.cancel()
    }

    @Test func theLastNotificationOfABurstSeesTheFinalState() {
        let store = makeStore()
        let seen = Recorder<Int>()
        let token = store.observeChanges { _ in seen.append(store.currentState().counter) }
        for _ in 0..<5_000 { store.dispatch(TestAction.increment) }
        #expect(seen.wait { $0.last == 5_000 })
        // One read of what was seen: a notification that comes after the wait may add another 5000.
        let values = seen.values
        #expect(values == values.sorted())
        token.cancel()
    }

    @Test func aStateChangeNotificationNamesTheStoreAsItsObject() {
        let store = makeStore()
        let notes = Recorder<StoreNotification>()
        let token = store.notificationCenter.addObserver(forName: .stateDidChange, object: store, queue: nil)
        {
            notes.append($0)
        }
        store.dispatch(TestAction.increment)
        #expect(notes.wait(forCount: 1))
        #expect(notes.values[0].object === store)
        #expect(notes.values[0].actions.map { $0 as? TestAction } == [.increment])
        token.cancel()
    }

    @Test func aChangeNoObserverCanHearIsNotTakenToTheDeliveryThread() {
        let store = makeStore()
        #expect(!Self.goesToTheDeliveryThread(store, TestAction.increment), "nobody observes")
        let failures = store.observeFailures { _ in }
        #expect(!Self.goesToTheDeliveryThread(store, TestAction.increment), "only failures are observed")
        #expect(Self.goesToTheDeliveryThread(store, TestAction.fail), "a failure always goes")
        let heard = Recorder<Int>()
        let changes = store.observeChanges { note in heard.append(note.actions.count) }
        #expect(Self.goesToTheDeliveryThread(store, TestAction.increment), "a change observer hears it")
        #expect(heard.wait(forCount: 1))
        changes.cancel()
        #expect(!Self.goesToTheDeliveryThread(store, TestAction.increment), "its observer is gone")
        let anyName = store.notificationCenter.addObserver(forName: nil, object: nil, queue: nil) { _ in }
        #expect(Self.goesToTheDeliveryThread(store, TestAction.increment), "an observer of every name")
        anyName.cancel()
        failures.cancel()
        #expect(store.currentState().counter == 5)
    }

    /// Whether the store schedules a delivery for `action`: the delivery thread is held while the
    /// action is reduced, so a delivery it schedules is still pending when the read returns.
    private static func goesToTheDeliveryThread(_ store: Store<TestState>, _ action: TestAction) -> Bool {
        let holding = Gate()
        let released = Gate()
        store.kernel.onDeliveryThread {
            holding.open()
            released.wait()
        }
        holding.wait()
        store.dispatch(action)
        _ = store.currentState()
        let scheduled = store.kernel.inspect { $0.isDeliveryScheduled }
        released.open()
        return scheduled
    }
}

@Suite(.offThePool) struct ActionListTests {
    static func run(_ actions: [TestAction], range: Range<Int>? = nil) -> ActionRun {
        ActionRun(entries: actions.map { .action($0) }, range: range ?? actions.indices)
    }

    @Test func itIndexesAcrossRunsInOrder() {
        let list = StoreNotification.ActionList(runs: [
            Self.run([.add(0), .add(1), .add(2)], range: 1..<3), Self.run([.add(3)]),
            Self.run([.add(4), .add(5), .add(6)], range: 0..<2),
        ])
        #expect(list.count == 5)
        #expect(list.map { $0 as? TestAction } == [.add(1), .add(2), .add(3), .add(4), .add(5)])
        #expect(list[3] as? TestAction == .add(4))
        #expect(list.reversed().first as? TestAction == .add(5))
    }

    @Test func anEmptyListHasNoActions() {
        #expect(StoreNotification.ActionList().isEmpty)
        #expect(StoreNotification.ActionList(runs: []).isEmpty)
        #expect(StoreNotification(name: .stateDidChange).actions.isEmpty)
    }

    @Test func aNotificationPostedWithAnArrayOfActionsReadsBackAsAList() {
        let note = StoreNotification(
            name: .stateDidChange,
            userInfo: [StoreNotification.actionsKey: [TestAction.increment, TestAction.fail]])
        #expect(note.actions.map { $0 as? TestAction } == [.increment, .fail])
    }
}

@Suite(.offThePool) struct RemoveObserverTests {
    @Test func removingAnObserverThroughAnotherCenterLeavesItRegistered() {
        let first = StoreNotificationCenter()
        let second = StoreNotificationCenter()
        let calls = LockedCounter()
        let token = first.addObserver(forName: .stateDidChange, object: nil, queue: nil) { _ in
            calls.increment()
        }
        second.removeObserver(token)
        first.post(StoreNotification(name: .stateDidChange))
        #expect(calls.value == 1)
        first.removeObserver(token)
        first.post(StoreNotification(name: .stateDidChange))
        #expect(calls.value == 1)
    }
}

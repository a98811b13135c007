import Foundation
import Testing

@testable import ReduxSwift

/// "When actions arrive faster than observers consume notifications, the notifications merge",
/// per observer, also for observers with a queue.
@Suite(.offThePool) struct QueueCoalescingTests {
    /// Dispatches `count` increments, each announced on its own before the next is dispatched.
    func dispatchOneNotificationEach(_ count: Int, to store: Store<TestState>) {
        let announced = Recorder<Int>()
        let token = store.observeChanges { note in
            for _ in note.actions { announced.append(1) }
        }
        for index in 1...count {
            store.dispatch(TestAction.increment)
            announced.wait(forCount: index)
        }
        token.cancel()
    }

    @Test func aSlowQueueObserverGetsOneMergedNotificationNotABacklog() {
        let store = makeStore()
        let queue = DispatchQueue(label: "slow observer")
        let entered = Gate()
        let release = Gate()
        let calls = Recorder<Int>()
        let token = store.observeChanges(queue: queue) { note in
            entered.open()
            // Held while the test dispatches its actions one round trip at a time, which on a
            // loaded machine can outlast a gate's default wait.
            release.wait(timeout: 600)
            calls.append(note.actions.count)
        }
        dispatchOneNotificationEach(1, to: store)
        #expect(entered.wait())
        dispatchOneNotificationEach(999, to: store)
        // Every block queued for the observer so far runs before this marker.
        let beforeMarker = LockedCounter()
        let markerRan = Gate()
        queue.async {
            for _ in calls.values.dropFirst() { beforeMarker.increment() }
            markerRan.open()
        }
        release.open()
        #expect(markerRan.wait())
        #expect(beforeMarker.value <= 1, "\(beforeMarker.value) blocks were queued for one observer")
        #expect(calls.wait { $0.reduce(0, +) == 1_000 })
        queue.sync {}
        #expect(calls.values == [1, 999], "the 999 notifications that came during the call merge")
        withExtendedLifetime(token) {}
    }

    @Test func mergedNotificationsKeepEveryActionInOrderAndFailuresInTheirPlace() {
        let store = makeStore()
        let queue = DispatchQueue(label: "slow observer")
        let entered = Gate()
        let release = Gate()
        let heard = Recorder<(name: Notification.Name, entries: [String])>()
        let token = store.notificationCenter.addObserver(forName: nil, object: store, queue: queue) { note in
            entered.open()
            // Held while the test dispatches its actions one round trip at a time, which on a
            // loaded machine can outlast a gate's default wait.
            release.wait(timeout: 600)
            let entries = note.actions.compactMap { action -> String? in
                switch action as? TestAction {
                case .append(let entry): entry
                case .fail: "fail"
                default: nil
                }
            }
            heard.append((note.name, entries))
        }
        let posted = Recorder<Int>()
        let witness = store.notificationCenter.addObserver(forName: nil, object: store, queue: nil) { _ in
            posted.append(1)
        }
        let actions: [TestAction] = [
            .append("a"), .append("b"), .append("c"), .fail, .append("d"), .append("e"),
        ]
        for (index, action) in actions.enumerated() {
            store.dispatch(action)
            #expect(posted.wait(forCount: index + 1), "one notification per action")
            if index == 0 { #expect(entered.wait()) }
        }
        release.open()
        #expect(heard.wait { $0.last?.entries.last == "e" })
        queue.sync {}
        #expect(
            heard.values.map(\.name) == [.stateDidChange, .stateDidChange, .dispatchDidFail, .stateDidChange])
        #expect(heard.values.map(\.entries) == [["a"], ["b", "c"], ["fail"], ["d", "e"]])
        withExtendedLifetime((token, witness)) {}
    }
}

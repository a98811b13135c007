import Dispatch
import Foundation
import ReduxSwift
import Testing

/// Rule 6: where and when observers are called.
@Suite(.offThePool) struct DeliveryTests {
    @Test func observersWithoutAQueueRunOnTheStoresDeliveryThreadNotTheDispatchingOne() {
        let store = makeStore()
        let threads = Recorder<ObjectIdentifier>()
        let token = store.observeChanges { _ in threads.append(currentThreadID()) }
        for _ in 0..<10 { store.dispatch(TestAction.increment) }
        _ = store.currentState()
        #expect(threads.wait(forCount: 1))
        #expect(!threads.values.contains(currentThreadID()))
        token.cancel()
    }

    @Test func observersWithAQueueRunOnThatQueue() {
        let queue = DispatchQueue(label: "observer")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 42)
        let store = makeStore()
        let onQueue = Recorder<Bool>()
        let token = store.observeChanges(queue: queue) { _ in
            onQueue.append(DispatchQueue.getSpecific(key: key) == 42)
        }
        store.dispatch(TestAction.increment)
        #expect(onQueue.wait(forCount: 1))
        #expect(onQueue.values.allSatisfy { $0 })
        token.cancel()
    }

    @Test func anObserverOfNoParticularObjectHearsEveryStore() {
        let center = StoreNotificationCenter()
        let first = makeStore(center: center)
        let second = makeStore(center: center)
        let senders = Recorder<ObjectIdentifier>()
        let token = center.addObserver(forName: .stateDidChange, object: nil, queue: nil) { note in
            senders.append(ObjectIdentifier(note.object!))
        }
        first.dispatch(TestAction.increment)
        second.dispatch(TestAction.increment)
        #expect(senders.wait { Set($0).count == 2 })
        #expect(Set(senders.values) == [ObjectIdentifier(first), ObjectIdentifier(second)])
        token.cancel()
    }

    @Test func anObserverOfOneStoreDoesNotHearAnother() {
        let center = StoreNotificationCenter()
        let watched = makeStore(center: center)
        let other = makeStore(center: center)
        let heard = Recorder<Int>()
        let token = watched.observeChanges { note in heard.append(note.actions.count) }
        other.dispatch(TestAction.increment)
        _ = other.currentState()
        watched.dispatch(TestAction.increment)
        #expect(heard.wait(forCount: 1))
        #expect(heard.values == [1])
        token.cancel()
    }

    @Test func noQueuedCallbackRunsAfterCancelReturns() {
        let queue = DispatchQueue(label: "blocked observer queue")
        let unblock = Gate()
        queue.async { unblock.wait() }  // deliveries pile up behind this
        let store = makeStore()
        let calls = Recorder<Int>()
        let token = store.observeChanges(queue: queue) { _ in calls.append(1) }
        let delivered = Recorder<Int>()
        let witness = store.observeChanges { _ in delivered.append(1) }
        store.dispatch(TestAction.increment)
        #expect(delivered.wait(forCount: 1))  // so the blocked queue has a delivery waiting
        token.cancel()
        unblock.open()
        queue.sync {}
        #expect(calls.values.isEmpty)
        witness.cancel()
    }

    @Test func releasingTheTokenRemovesTheObserverToo() {
        let queue = DispatchQueue(label: "blocked observer queue")
        let unblock = Gate()
        queue.async { unblock.wait() }
        let store = makeStore()
        let calls = Recorder<Int>()
        var token: ObserverToken? = store.observeChanges(queue: queue) { _ in calls.append(1) }
        let delivered = Recorder<Int>()
        let witness = store.observeChanges { _ in delivered.append(1) }
        store.dispatch(TestAction.increment)
        #expect(delivered.wait(forCount: 1))
        #expect(token != nil)
        token = nil
        unblock.open()
        queue.sync {}
        store.dispatch(TestAction.increment)
        #expect(delivered.wait(forCount: 2))
        queue.sync {}
        #expect(calls.values.isEmpty)
        witness.cancel()
    }

    @Test func observersAreCalledInTheOrderTheyWereAdded() {
        let center = StoreNotificationCenter()
        let store = makeStore(center: center)
        let order = Recorder<String>()
        let name = Notification.Name.stateDidChange
        let tokens = [
            center.addObserver(forName: name, object: store, queue: nil) { _ in order.append("a") },
            center.addObserver(forName: nil, object: nil, queue: nil) { _ in order.append("b") },
            center.addObserver(forName: name, object: nil, queue: nil) { _ in order.append("c") },
            center.addObserver(forName: nil, object: store, queue: nil) { _ in order.append("d") },
            center.addObserver(forName: name, object: store, queue: nil) { _ in order.append("e") },
        ]
        tokens[2].cancel()
        store.dispatch(TestAction.increment)
        #expect(order.wait(forCount: 4))
        #expect(order.values == ["a", "b", "d", "e"])
        for token in tokens { token.cancel() }
    }
}

@Suite(.offThePool) struct SenderIdentityTests {
    final class Sender: Sendable {}

    @Test func anObserverOfAFreedSenderNeverHearsANewObjectAtTheSameAddress() throws {
        let center = StoreNotificationCenter()
        let heard = Recorder<String>()
        var sender: Sender? = Sender()
        let freedAddress = ObjectIdentifier(sender!)
        let stale = center.addObserver(forName: nil, object: sender, queue: nil) { _ in heard.append("stale")
        }
        sender = nil
        // Allocate until an object lands at the freed address, as allocators usually make one do.
        var reused: Sender?
        var keep: [Sender] = []
        for _ in 0..<10_000 {
            let candidate = Sender()
            if ObjectIdentifier(candidate) == freedAddress {
                reused = candidate
                break
            }
            keep.append(candidate)
        }
        let newcomer = try #require(reused, "no object reused the freed address")
        let fresh = center.addObserver(forName: nil, object: newcomer, queue: nil) { _ in
            heard.append("fresh")
        }
        center.post(StoreNotification(name: Notification.Name("ping"), object: newcomer))
        #expect(heard.values == ["fresh"])
        stale.cancel()
        fresh.cancel()
        #expect(keep.count < 10_000)
    }

    @Test func observersOfOneSenderStopMatchingOnceAllAreRemoved() {
        let center = StoreNotificationCenter()
        let sender = Sender()
        let heard = Recorder<Int>()
        let tokens = (0..<3).map { index in
            center.addObserver(forName: nil, object: sender, queue: nil) { _ in heard.append(index) }
        }
        center.post(StoreNotification(name: Notification.Name("ping"), object: sender))
        for token in tokens { token.cancel() }
        center.post(StoreNotification(name: Notification.Name("ping"), object: sender))
        let again = center.addObserver(forName: nil, object: sender, queue: nil) { _ in heard.append(9) }
        center.post(StoreNotification(name: Notification.Name("ping"), object: sender))
        #expect(heard.values == [0, 1, 2, 9])
        again.cancel()
    }
}

import Foundation
import Testing

@testable import ReduxSwift

@Suite(.offThePool) struct AsyncSequenceTests {
    @Test func theWholeStateStartsWithTheCurrentStateAndFollowsChanges() async {
        let store = makeStore(state: TestState(counter: 1))
        var iterator = store.values(of: { $0 }).makeAsyncIterator()
        #expect(await iterator.next()?.counter == 1)
        store.dispatch(TestAction.increment)
        var latest = await iterator.next()?.counter
        while latest != 2 { latest = await iterator.next()?.counter }
        #expect(latest == 2)
    }

    @Test func aConsumerThatFallsBehindGetsTheNewestStateNotABacklog() async {
        let store = makeStore()
        var iterator = store.values(of: { $0 }).makeAsyncIterator()
        _ = await iterator.next()
        for _ in 0..<10_000 { store.dispatch(TestAction.increment) }
        #expect(store.currentState().counter == 10_000)
        let (appends, token) = recordAppends(announcedBy: store)
        store.dispatch(TestAction.append("marker"))
        #expect(appends.wait(forCount: 1))
        // Every notification has been delivered; one read gets the newest state.
        let next = await iterator.next()
        #expect(next?.counter == 10_000)
        #expect(next?.log == ["marker"])
        withExtendedLifetime(token) {}
    }

    @Test func selectedValuesSkipRepeats() async {
        let store = makeStore()
        var iterator = store.values(of: \.counter).makeAsyncIterator()
        #expect(await iterator.next() == 0)
        store.dispatch(TestAction.append("no change to the counter"))
        _ = store.currentState()
        store.dispatch(TestAction.add(5))
        #expect(await iterator.next() == 5)
    }

    @Test func cancellingTheConsumingTaskRemovesTheObserver() async {
        let store = makeStore()
        let released = Gate()
        // Signalled without blocking a thread of the cooperative pool, which the task needs.
        let (started, signal) = AsyncStream<Void>.makeStream()
        let task = Task {
            var received = 0
            for await _ in store.values(of: witnessed(released) { $0 }) {
                received += 1
                signal.yield()
            }
            return received
        }
        for await _ in started { break }
        #expect(!released.wait(timeout: 0))
        task.cancel()
        #expect(await task.value >= 1, "the loop ends")
        #expect(await onOwnThread { released.wait() }, "the observer is removed")
    }

    @Test func changeNotificationsThatWaitUnreadMergeSoAConsumerThatFallsBehindMissesNoAction() async {
        let store = makeStore()
        let stream = store.notifications(bufferingNewest: 4)
        var iterator = stream.makeAsyncIterator()
        store.dispatch(TestAction.append("first"))
        let first = await iterator.next()
        #expect(first?.actions.compactMap { $0 as? TestAction } == [.append("first")])

        // Unread, a burst of separate notifications merges: every action once, in order, however
        // small the limit.
        let (appends, token) = recordAppends(announcedBy: store)
        for index in 0..<20 {
            store.dispatch(TestAction.append("\(index)"))
            _ = store.currentState()
            #expect(appends.wait(forCount: index + 1))
        }
        var kept: [String] = []
        var reads = 0
        while kept.last != "19", let notification = await iterator.next() {
            reads += 1
            for case .append(let entry)? in notification.actions.map({ $0 as? TestAction }) {
                kept.append(entry)
            }
        }
        #expect(kept == (0..<20).map { "\($0)" })
        #expect(reads == 1, "one notification with all that waited")
        withExtendedLifetime(token) {}
    }

    @Test func notificationsThatCannotMergeWaitUpToTheLimitAndTheOldestAreDropped() async {
        let store = makeStore()
        let name = Notification.Name("AsyncSequenceTests.posted")
        var iterator = store.notifications(named: name, bufferingNewest: 4).makeAsyncIterator()
        for index in 0..<20 {
            store.notificationCenter.post(
                StoreNotification(name: name, object: store, userInfo: ["index": index]))
        }
        var kept: [Int] = []
        for _ in 0..<4 {
            guard let notification = await iterator.next() else { break }
            kept.append(notification.userInfo["index"] as? Int ?? -1)
        }
        #expect(kept == [16, 17, 18, 19])
    }
}

#if canImport(Observation)
#endif

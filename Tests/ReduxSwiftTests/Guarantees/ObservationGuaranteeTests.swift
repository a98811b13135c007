import Foundation
import Testing

@testable import ReduxSwift

/// Records whether two calls of one observer ever run at the same time.
final class OverlapProbe: @unchecked Sendable {
    // `@unchecked Sendable`: `inside` and `overlapped` are only touched while `lock` is held.
    private let lock = NSLock()
    private var inside = 0
    private var overlapped = false

    func enter() {
        lock.withLock {
            inside += 1
            if inside > 1 { overlapped = true }
        }
    }

    func leave() {
        lock.withLock { inside -= 1 }
    }

    var didOverlap: Bool { lock.withLock { overlapped } }
}

/// Promises about notifications and observers that no other suite checks.
@Suite(.offThePool) struct ObservationGuaranteeTests {
    @Test func aSerialQueueObserverHearsChangesInPostingOrder() {
        let store = makeStore()
        let queue = DispatchQueue(label: "serial observer")
        let seen = Recorder<Int>()
        let token = store.observeChanges(queue: queue) { note in
            for case .add(let amount)? in note.actions.map({ $0 as? TestAction }) { seen.append(amount) }
        }
        for amount in 1...500 {
            store.dispatch(TestAction.add(amount))
            if amount.isMultiple(of: 25) { _ = store.currentState() }
        }
        #expect(seen.wait(forCount: 500))
        #expect(seen.values == Array(1...500))
        withExtendedLifetime(token) {}
    }

    @Test func failuresKeepTheirPlaceBetweenChanges() {
        let store = makeStore()
        let sequence = Recorder<String>()
        let dispatched = Gate()
        let token = store.notificationCenter.addObserver(forName: nil, object: store, queue: nil) { note in
            // Hold the delivery thread until everything is queued, so that changes could merge.
            dispatched.wait()
            let kind = note.name == .dispatchDidFail ? "failed" : "changed"
            for action in note.actions { sequence.append("\(kind) \(action)") }
        }
        for action in [TestAction.append("a"), .fail, .append("b"), .append("c"), .fail, .append("d")] {
            store.dispatch(action)
        }
        dispatched.open()
        #expect(sequence.wait(forCount: 6))
        #expect(
            sequence.values == [
                #"changed append("a")"#, "failed fail", #"changed append("b")"#, #"changed append("c")"#,
                "failed fail", #"changed append("d")"#,
            ])
        withExtendedLifetime(token) {}
    }

    @Test func observersAddedOrRemovedDuringAPostDoNotChangeWhoThatPostReaches() {
        let center = StoreNotificationCenter()
        let ping = StoreNotification(name: Notification.Name("ping"))
        let heard = Recorder<String>()
        let removed = TokenHandle()
        let added = Recorder<ObserverToken>()
        let first = center.addObserver(forName: ping.name, object: nil, queue: nil) { _ in
            heard.append("first")
            removed.token?.cancel()
            added.append(
                center.addObserver(forName: ping.name, object: nil, queue: nil) { _ in heard.append("added") }
            )
        }
        removed.token = center.addObserver(forName: ping.name, object: nil, queue: nil) { _ in
            heard.append("removed")
        }
        center.post(ping)
        #expect(heard.values == ["first"], "the removed observer is not called, the added one not yet")
        center.post(ping)
        #expect(heard.values == ["first", "first", "added"])
        withExtendedLifetime((first, added)) {}
    }

    @Test func deliveriesToASelectorNeverOverlapNorGoBackOnAConcurrentQueue() async throws {
        let store = makeStore()
        let probe = OverlapProbe()
        let values = Recorder<Int>()
        let firstEntered = Gate()
        let secondWaits = Gate()
        let token = store.observe(\.counter, queue: .global()) { value in
            probe.enter()
            if value == 0 {
                firstEntered.open()
                // Holds the first delivery until the next value waits for it, or a second delivery
                // begins beside it.
                secondWaits.wait()
            } else {
                secondWaits.open()
            }
            values.append(value)
            probe.leave()
        }
        #expect(await onOwnThread { firstEntered.wait() })
        store.dispatch(TestAction.increment)
        try await waitUntilTheSecondWaits(store, on: .global())
        secondWaits.open()
        #expect(await values.waitOffThePool { $0.last == 1 })
        #expect(!probe.didOverlap, "the second delivery began while the first was running")
        #expect(values.values == [0, 1])
        withExtendedLifetime(token) {}
    }

    @Test func notificationsToAnObserverNeverOverlapOnAConcurrentQueue() async throws {
        let store = makeStore()
        let probe = OverlapProbe()
        let counts = Recorder<Int>()
        let firstEntered = Gate()
        let secondWaits = Gate()
        let token = store.observeChanges(queue: .global()) { notification in
            probe.enter()
            if counts.values.isEmpty {
                firstEntered.open()
                // Holds the first delivery until the next notification waits for it, or a second
                // delivery begins beside it.
                secondWaits.wait()
            } else {
                secondWaits.open()
            }
            counts.append(notification.actions.count)
            probe.leave()
        }
        store.dispatch(TestAction.increment)
        #expect(await onOwnThread { firstEntered.wait() })
        store.dispatch(TestAction.increment)
        try await waitUntilTheSecondWaits(store, on: .global())
        secondWaits.open()
        #expect(await counts.waitOffThePool { $0.reduce(0, +) == 2 })
        #expect(!probe.didOverlap, "the second delivery began while the first was running")
        withExtendedLifetime(token) {}
    }

    /// Returns once what was dispatched so far is handed to the observers on `queue`, and every
    /// block queued on `queue` before has begun: a delivery the store started beside the one
    /// running has begun by then.
    private func waitUntilTheSecondWaits(_ store: Store<TestState>, on queue: DispatchQueue) async throws {
        // An idle store has handed its changes to the observers on queues.
        try await store.waitUntilIdle(timeout: 20)
        // A queue begins its blocks in the order they were queued, concurrent or not.
        await withCheckedContinuation { (begun: CheckedContinuation<Void, Never>) in
            queue.async { begun.resume() }
        }
    }

    @Test func aValuesLoopEndsWhenItsStoreIsFreed() async {
        let freed = Gate()
        let values: AsyncStream<Int>
        do {
            let store = LeakTests.TrackedStore(freed: freed)
            store.dispatch(TestAction.increment)
            values = store.values(of: \.counter)
        }
        #expect(await onOwnThread { freed.wait() }, "the store is freed while its loop is alive")
        let ended = Gate()
        let loop = Task {
            var seen: [Int] = []
            for await counter in values { seen.append(counter) }
            ended.open()
            return seen
        }
        #expect(await onOwnThread { ended.wait() }, "the loop is still waiting for its freed store")
        loop.cancel()  // ends a loop that did not end, so that the test does too
        // The first value was selected before the store went; then the loop ends.
        #expect(await loop.value == [1])
    }

    @Test func leavingAValuesLoopRemovesItsObserver() async {
        let store = makeStore(state: TestState(counter: 4))
        let released = Gate()
        func firstCounter() async -> Int? {
            for await counter in store.values(of: witnessed(released) { $0.counter }) { return counter }
            return nil
        }
        #expect(await firstCounter() == 4)
        #expect(await onOwnThread { released.wait() }, "the observer's selector is released")
    }
}

#if canImport(Observation)
import Observation

@Suite(.offThePool) struct ObservedModelGuaranteeTests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @MainActor
    @Test func anObservedValueKeepsItsStoreAliveAndStopsObservingWhenFreed() {
        weak var weakStore: Store<TestState>?
        var kept: ObservedValue<TestState, TestState>?
        do {
            let store = makeStore()
            weakStore = store
            kept = ObservedValue(store) { $0 }
        }
        #expect(kept != nil)
        #expect(weakStore != nil, "the model keeps its store")

        let store = makeStore()
        let released = Gate()
        var model: ObservedValue<TestState, Int>? = ObservedValue(
            store, select: witnessed(released) { $0.counter })
        #expect(model?.value == 0)
        model = nil
        kept = nil
        #expect(released.wait(timeout: 0), "freeing the model cancels its observer at once")
        #expect(weakStore == nil)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @MainActor
    @Test func anObservedValueChangesOnlyWhenTheSelectedValueChanges() async {
        let store = makeStore()
        let counter = ObservedValue(store) { $0.counter }
        // Observes the same store after `counter`; the main queue runs them in that order.
        let witness = ObservedValue(store) { $0.log }
        let changes = Recorder<Int>()
        withObservationTracking {
            _ = counter.value
        } onChange: {
            changes.append(1)
        }
        // The first read registers: `witness` now observes after `counter`.
        #expect(witness.value.isEmpty)

        store.dispatch(TestAction.append("elsewhere"))
        let deadline = Date(timeIntervalSinceNow: 20)
        while witness.value.isEmpty, Date() < deadline { await Task.yield() }
        #expect(witness.value == ["elsewhere"])
        #expect(changes.count == 0, "a change elsewhere in the state does not touch the value")

        store.dispatch(TestAction.increment)
        // A wait of its own: under load the first wait can use most of the first deadline.
        let secondDeadline = Date(timeIntervalSinceNow: 20)
        while counter.value != 1, Date() < secondDeadline { await Task.yield() }
        #expect(counter.value == 1)
        #expect(changes.count == 1)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @MainActor
    @Test func makingAnObservedValueRegistersNothingAndNeverWaitsForTheStore() {
        let entered = Gate()
        let release = Gate()
        let busy: Reducer<TestState> = { _, action in
            guard case .append("busy")? = action as? TestAction else { return }
            entered.open()
            release.wait()
        }
        let store = makeStore([testReducer, busy])
        store.dispatch(TestAction.append("busy"))
        #expect(entered.wait(), "the store's queue runs the reducer that keeps it busy")

        // The store's queue stays busy until the models are made, or for 10 seconds if making
        // one waits for it.
        let made = Gate()
        let madeInTime = Recorder<Bool>()
        Thread {
            madeInTime.append(made.wait(timeout: 10))
            release.open()
        }.start()
        let selections = Recorder<Int>()
        let models = (0..<100).map { _ in
            ObservedValue(store) { state in
                selections.append(1)
                return state.counter
            }
        }
        made.open()
        #expect(madeInTime.wait(forCount: 1))
        #expect(madeInTime.values == [true], "making a model waited for the store's queue")

        dispatchAndAwaitAnnouncement(TestAction.increment, to: store)
        #expect(selections.count == 0, "a model never read registered an observer")
        #expect(models[0].value == 1)
        #expect(selections.count == 1, "the first read registers one observer")
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @MainActor
    @Test func theFirstValueReflectsEveryActionDispatchedBeforeTheFirstRead() {
        let store = makeStore()
        store.dispatch(TestAction.increment)
        let model = ObservedValue(store) { $0.counter }
        for _ in 0..<3 { store.dispatch(TestAction.increment) }
        #expect(model.value == 4, "the actions dispatched after the model was made are in it")
        store.dispatch(TestAction.increment)
        #expect(model.value == 4, "a later read does not wait: the change comes on the main queue")
    }
}
#endif

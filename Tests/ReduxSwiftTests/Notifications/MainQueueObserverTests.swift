import Dispatch
import Foundation
import ReduxSwift
import Testing

/// Names recorded on the main actor: a block that calls ``record(_:)`` compiles only if it is
/// main-actor-isolated.
@MainActor
final class MainActorLog {
    private(set) var names: [String] = []

    func record(_ name: String) {
        names.append(name)
    }
}

/// A token that main-actor blocks can reach.
@MainActor
final class MainActorTokenBox {
    var token: ObserverToken?
}

/// An owner for owner-bound observers.
final class ObservingOwner: Sendable {}

/// The `queue: .main` overloads: their blocks are main-actor-isolated and run on the main queue,
/// with the guarantees of every queue observer. The tests run on the main actor, so the main queue
/// runs nothing while a test runs synchronously: deliveries wait there until the test awaits
/// `mainQueueDrained()`.
@Suite(.offThePool) struct MainQueueObserverTests {
    /// A key set on the main queue, for blocks to check that they run there.
    let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Returns once the main queue has run every block queued on it before the call.
    @MainActor
    func mainQueueDrained() async {
        await withCheckedContinuation { (drained: CheckedContinuation<Void, Never>) in
            DispatchQueue.main.async { drained.resume() }
        }
    }

    @MainActor
    @Test func everyMainActorOverloadRunsItsBlockOnTheMainQueue() async {
        let store = makeStore()
        let owner = ObservingOwner()
        let log = MainActorLog()
        let key = mainQueueKey
        // Each block calls a main-actor method without `await`, which compiles only in a
        // main-actor block, and records whether it runs on the main queue.
        func note(_ name: String) {
            log.record(DispatchQueue.getSpecific(key: key) == true ? name : "\(name) off the main queue")
        }
        let tokens: [ObserverToken] = [
            store.observeChanges(queue: .main) { _ in note("changes") },
            store.observeFailures(queue: .main) { _ in note("failures") },
            store.observe(\.counter, queue: .main) { _ in note("selector") },
            store.observe(
                { CounterReading(counter: $0.counter) }, queue: .main,
                using: { _ in
                    note("selector of a value that is not Equatable")
                }),
            store.observe(
                { Parity(counter: $0.counter) }, queue: .main, using: { _ in note("Equatable projection") }),
            store.observe({ $0 }, owner: owner, queue: .main, using: { _, _ in note("owner-bound state") }),
            store.observe(\.counter, owner: owner, queue: .main) { _, _ in note("owner-bound selector") },
            store.notificationCenter.addObserver(forName: .stateDidChange, object: store, queue: .main) { _ in
                note("center")
            },
        ]
        dispatchAndAwaitAnnouncement(TestAction.increment, to: store)
        dispatchAndAwaitAnnouncement(TestAction.fail, to: store)
        await mainQueueDrained()
        #expect(
            Set(log.names) == [
                "changes", "failures", "selector", "selector of a value that is not Equatable",
                "Equatable projection", "owner-bound state", "owner-bound selector", "center",
            ])
        for token in tokens { token.cancel() }
        withExtendedLifetime(owner) {}
    }

    @MainActor
    @Test func cancellingBeforeTheMainQueueRunsADeliveryMeansNoCall() async {
        let store = makeStore()
        let owner = ObservingOwner()
        let calls = Recorder<String>()
        let tokens: [ObserverToken] = [
            store.observeChanges(queue: .main) { _ in calls.append("changes") },
            store.observeFailures(queue: .main) { _ in calls.append("failures") },
            // The first values of selectors are queued already, before any change.
            store.observe(\.counter, queue: .main) { _ in calls.append("selector") },
            store.observe(
                { CounterReading(counter: $0.counter) }, queue: .main,
                using: { _ in
                    calls.append("selector of a value that is not Equatable")
                }),
            store.observe(
                { Parity(counter: $0.counter) }, queue: .main,
                using: { _ in
                    calls.append("Equatable projection")
                }),
            store.observe(
                { $0 }, owner: owner, queue: .main, using: { _, _ in calls.append("owner-bound state") }),
            store.observe(\.counter, owner: owner, queue: .main) { _, _ in
                calls.append("owner-bound selector")
            },
            store.notificationCenter.addObserver(forName: nil, object: store, queue: .main) { _ in
                calls.append("center")
            },
        ]
        dispatchAndAwaitAnnouncement(TestAction.increment, to: store)
        dispatchAndAwaitAnnouncement(TestAction.fail, to: store)
        for token in tokens { token.cancel() }
        await mainQueueDrained()
        #expect(calls.values.isEmpty)
        withExtendedLifetime(owner) {}
    }

    @MainActor
    @Test func aDeliveryQueuedOnTheMainQueueIsDroppedWhenAnEarlierBlockCancelsItsObserver() async {
        let store = makeStore()
        let later = MainActorTokenBox()
        let calls = Recorder<String>()
        // Both deliveries wait in the main queue, the first one's block runs first and cancels the
        // second observer: its delivery, already queued, must not call its block.
        let first = store.observeChanges(queue: .main) { _ in
            calls.append("first")
            later.token?.cancel()
        }
        later.token = store.observeChanges(queue: .main) { _ in calls.append("second") }
        dispatchAndAwaitAnnouncement(TestAction.increment, to: store)
        await mainQueueDrained()
        #expect(calls.values == ["first"])
        first.cancel()
    }

    @MainActor
    @Test func aBusyMainQueueGetsOneMergedNotificationNotABacklog() async {
        let store = makeStore()
        let calls = Recorder<Int>()
        let token = store.observeChanges(queue: .main) { note in calls.append(note.actions.count) }
        for _ in 0..<100 { dispatchAndAwaitAnnouncement(TestAction.increment, to: store) }
        await mainQueueDrained()
        #expect(calls.values == [100], "the 100 notifications that came while one waited merge into it")
        token.cancel()
    }

    @MainActor
    @Test func aSelectorsFirstValueComesOnTheMainQueueAfterObserveReturns() async {
        let store = makeStore(state: TestState(counter: 5))
        let key = mainQueueKey
        let seen = Recorder<String>()
        let token = store.observe(\.counter, queue: .main) { value in
            seen.append(
                DispatchQueue.getSpecific(key: key) == true ? "\(value)" : "\(value) off the main queue")
        }
        // An `Equatable` projection: a change elsewhere in the state is a repeat.
        struct Projection: Equatable, Sendable { var counter: Int }
        let deduplicated = store.observe(
            { Projection(counter: $0.counter) }, queue: .main,
            using: { value in
                seen.append(
                    DispatchQueue.getSpecific(key: key) == true
                        ? "d\(value.counter)" : "d\(value.counter) off the main queue")
            })
        #expect(seen.values.isEmpty, "the first value is queued on the main queue, not delivered at once")
        // The store's queue selects the first values; once it has, their deliveries are queued.
        _ = store.currentState()
        await mainQueueDrained()
        #expect(seen.values == ["5", "d5"])
        dispatchAndAwaitAnnouncement(TestAction.append("elsewhere"), to: store)
        dispatchAndAwaitAnnouncement(TestAction.increment, to: store)
        await mainQueueDrained()
        #expect(seen.values == ["5", "d5", "6", "d6"], "a change elsewhere in the state is skipped")
        token.cancel()
        deduplicated.cancel()
    }

    @MainActor
    @Test func aMainActorFailureObserverHearsTheFailedActionAndItsError() async {
        let store = makeStore()
        let failures = Recorder<String>()
        let token = store.observeFailures(queue: .main) { note in
            failures.append("\(String(describing: note.failedAction)) \(String(describing: note.error))")
        }
        dispatchAndAwaitAnnouncement(TestAction.increment, to: store)
        dispatchAndAwaitAnnouncement(TestAction.fail, to: store)
        await mainQueueDrained()
        #expect(failures.values.count == 1)
        #expect(failures.values.first?.contains("fail") == true)
        #expect(failures.values.first?.contains("TestFailure") == true)
        token.cancel()
    }
}

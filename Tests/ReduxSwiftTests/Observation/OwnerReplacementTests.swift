import Dispatch
import Foundation
import Testing

@testable import ReduxSwift

/// A screen that observes the counter each time it appears, from one line, as a view controller's
/// `viewWillAppear` does; each call records its appearance with the values it hears.
final class AppearingScreen: Sendable {
    let store: Store<TestState>
    /// `"appearance:value"` for each call of a block.
    let heard = Recorder<String>()

    init(store: Store<TestState>) {
        self.store = store
    }

    @discardableResult
    func viewWillAppear(_ appearance: Int, queue: DispatchQueue? = nil) -> ObserverToken {
        store.observe(\.counter, owner: self, queue: queue) { screen, value in
            screen.heard.append("\(appearance):\(value)")
        }
    }
}

/// Observes the counter with `owner` on behalf of its caller, whose place it forwards.
@discardableResult
func observeCounter(
    of store: Store<TestState>, owner: ObservingOwner, into heard: Recorder<String>, as name: String,
    fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column
) -> ObserverToken {
    store.observe(\.counter, owner: owner, fileID: fileID, line: line, column: column) { _, value in
        heard.append("\(name):\(value)")
    }
}

/// Observes the counter with `owner` on behalf of its caller, without forwarding its place: every
/// caller shares this one.
@discardableResult
func observeCounterFromOnePlace(
    of store: Store<TestState>, owner: ObservingOwner, into heard: Recorder<String>, as name: String
) -> ObserverToken {
    store.observe(\.counter, owner: owner) { _, value in heard.append("\(name):\(value)") }
}

/// Observing again with the same owner from the same place replaces the earlier registration.
@Suite(.offThePool) struct OwnerReplacementTests {
    @Test func observingAgainFromTheSameLineDeliversOnlyToTheNewestBlock() {
        let store = makeStore()
        let screen = AppearingScreen(store: store)
        let tokens = (1...3).map { appearance in screen.viewWillAppear(appearance) }
        #expect(screen.heard.values == ["1:0", "2:0", "3:0"], "each appearance gets its first value")
        #expect(tokens.map { $0.isActive } == [false, false, true])
        dispatchAndAwaitAnnouncement(TestAction.increment, to: store)
        #expect(
            screen.heard.values == ["1:0", "2:0", "3:0", "3:1"], "only the newest block hears the change")
    }

    @Test func twoPlacesWithOneOwnerAreTwoRegistrations() {
        let store = makeStore()
        let owner = ObservingOwner()
        let heard = Recorder<String>()
        let first = store.observe(\.counter, owner: owner) { _, value in heard.append("first:\(value)") }
        let second = store.observe(\.counter, owner: owner) { _, value in heard.append("second:\(value)") }
        // Places that differ only in their column are different too.
        let columns = [1, 2].map { column in
            store.observe(\.counter, owner: owner, line: 1, column: UInt(column)) { _, value in
                heard.append("column \(column):\(value)")
            }
        }
        #expect((columns + [first, second]).allSatisfy { $0.isActive })
        dispatchAndAwaitAnnouncement(TestAction.increment, to: store)
        #expect(
            Set(heard.values.filter { $0.hasSuffix(":1") }) == [
                "first:1", "second:1", "column 1:1", "column 2:1",
            ])
    }

    @Test func aHelperThatForwardsItsCallersPlaceKeepsARegistrationPerCaller() {
        let store = makeStore()
        let owner = ObservingOwner()
        let heard = Recorder<String>()
        var repeated: [ObserverToken] = []
        for name in ["a", "b"] {
            repeated.append(observeCounter(of: store, owner: owner, into: heard, as: name))
        }
        let other = observeCounter(of: store, owner: owner, into: heard, as: "other")
        #expect(repeated.map { $0.isActive } == [false, true], "one caller's second call replaced its first")
        #expect(other.isActive, "another caller keeps its own registration")
        // Without forwarding, every caller is the helper's one place.
        let shared = observeCounterFromOnePlace(of: store, owner: owner, into: heard, as: "x")
        let sharedAgain = observeCounterFromOnePlace(of: store, owner: owner, into: heard, as: "y")
        #expect(!shared.isActive && sharedAgain.isActive)
        dispatchAndAwaitAnnouncement(TestAction.increment, to: store)
        #expect(Set(heard.values.filter { $0.hasSuffix(":1") }) == ["b:1", "other:1", "y:1"])
    }

    @Test func cancellingTheEarlierTokenAfterAReplacementLeavesTheNewOneObserving() {
        let store = makeStore()
        let screen = AppearingScreen(store: store)
        let earlier = screen.viewWillAppear(1)
        let newer = screen.viewWillAppear(2)
        earlier.cancel()
        earlier.cancel()
        #expect(newer.isActive)
        dispatchAndAwaitAnnouncement(TestAction.increment, to: store)
        #expect(screen.heard.values == ["1:0", "2:0", "2:1"])
        newer.cancel()
        dispatchAndAwaitAnnouncement(TestAction.increment, to: store)
        #expect(screen.heard.values == ["1:0", "2:0", "2:1"], "the newer token still cancels its own")
    }

    @Test func aReplacementRacingDeliveriesNeverCallsTheOldBlockAfterObserveReturns() {
        final class Owner: Sendable {}
        let store = makeStore()
        let late = LockedCounter()
        let owner = Owner()
        var previous: (replaced: LockedFlag, tokens: [ObserverToken])?
        let (trials, stopped) = trialsWhileDispatching(threads: 4, to: store) { goesOn in
            let replaced = LockedFlag()
            let calls = LockedCounter()
            // A call that begins, or is still under way, once a later observe returned is late.
            let call: @Sendable () -> Void = {
                if replaced.isSet { late.increment() }
                for _ in 0..<4 { sched_yield() }
                if replaced.isSet { late.increment() }
                calls.increment()
            }
            // One place per queue, observed again at each trial while the store delivers.
            let tokens = [
                store.observe(\.counter, owner: owner) { _, _ in call() },
                store.observe(\.counter, owner: owner, queue: .global()) { _, _ in call() },
                store.observe(
                    { CounterReading(counter: $0.counter) }, owner: owner, queue: .global(),
                    using: { _, _ in call() }),
            ]
            previous?.replaced.set()
            #expect(previous?.tokens.allSatisfy { !$0.isActive } ?? true)
            previous = (replaced, tokens)
            // Let deliveries get under way before the next replacement.
            while calls.value < 6, goesOn() { sched_yield() }
        }
        #expect(stopped)
        #expect(trials > 1)
        #expect(previous?.tokens.allSatisfy { $0.isActive } == true)
        #expect(late.value == 0, "\(late.value) calls of replaced blocks began after observe returned")
    }

    @Test func observingAgainFromManyThreadsAtOnceLeavesExactlyOneRegistration() {
        let store = makeStore()
        let screen = AppearingScreen(store: store)
        let tokens = Recorder<(appearance: Int, token: ObserverToken)>()
        onThreads(8) { thread in
            for round in 0..<50 {
                let appearance = thread * 100 + round
                tokens.append(
                    (appearance, screen.viewWillAppear(appearance, queue: round % 2 == 0 ? nil : .global())))
            }
        }
        let live = tokens.values.filter { $0.token.isActive }
        #expect(live.count == 1, "\(live.count) registrations live")
        guard let survivor = live.first?.appearance else { return }
        dispatchAndAwaitAnnouncement(TestAction.increment, to: store)
        #expect(screen.heard.wait { $0.contains("\(survivor):1") })
        let later = screen.heard.values.filter { !$0.hasSuffix(":0") }
        #expect(
            later.allSatisfy { $0.hasPrefix("\(survivor):") }, "only the survivor hears changes: \(later)")
    }

    @Test func ownersThatComeAndGoLeaveTheRegistrySmall() {
        final class Owner: Sendable {}
        let store = makeStore()
        let kept = (0..<100).map { _ in Owner() }
        for owner in kept { store.observe(\.counter, owner: owner) { _, _ in } }
        for _ in 0..<10_000 {
            let owner = Owner()
            store.observe(\.counter, owner: owner, queue: .global()) { _, _ in }
        }
        // At most twice the registrations live at the last sweep: the kept ones and the one made.
        #expect(store.ownerRegistry.count <= 2 * (kept.count + 1), "\(store.ownerRegistry.count) entries")
        // Cancelled registrations go too, while their owner lives.
        let owner = Owner()
        for line in 1...10_000 {
            store.observe(\.counter, owner: owner, queue: .global(), line: UInt(line)) { _, _ in }.cancel()
        }
        #expect(store.ownerRegistry.count <= 2 * (kept.count + 1), "\(store.ownerRegistry.count) entries")
        withExtendedLifetime(kept) {}
    }

    @Test func aNewOwnerAtAFreedOwnersAddressStopsNothingLive() throws {
        let store = makeStore()
        let heard = Recorder<String>()
        let bystander = ObservingOwner()
        var departed: ObservingOwner? = ObservingOwner()
        let freedAddress = ObjectIdentifier(departed!)
        let departedToken = observeCounterFromOnePlace(
            of: store, owner: departed!, into: heard, as: "departed")
        let bystanderToken = observeCounterFromOnePlace(
            of: store, owner: bystander, into: heard, as: "bystander")
        departed = nil
        // Allocate until an object lands at the freed address, as allocators usually make one do.
        var reused: ObservingOwner?
        var keep: [ObservingOwner] = []
        for _ in 0..<10_000 {
            let candidate = ObservingOwner()
            if ObjectIdentifier(candidate) == freedAddress {
                reused = candidate
                break
            }
            keep.append(candidate)
        }
        let newcomer = try #require(reused, "no object reused the freed address")
        let newcomerToken = observeCounterFromOnePlace(
            of: store, owner: newcomer, into: heard, as: "newcomer")
        #expect(bystanderToken.isActive && newcomerToken.isActive)
        dispatchAndAwaitAnnouncement(TestAction.increment, to: store)
        #expect(Set(heard.values.filter { $0.hasSuffix(":1") }) == ["bystander:1", "newcomer:1"])
        #expect(!departedToken.isActive, "the departed owner's observer ended at the change")
        // The newcomer's registration is its own: observing again replaces it, and only it.
        let again = observeCounterFromOnePlace(of: store, owner: newcomer, into: heard, as: "again")
        #expect(!newcomerToken.isActive && again.isActive && bystanderToken.isActive)
        #expect(keep.count < 10_000)
    }

    @Test func aReplacementWhileALockHoldsABatchDeliversOnlyToTheNewBlock() throws {
        let store = makeStore()
        let owner = ObservingOwner()
        let heard = Recorder<String>()
        let replaced = LockedFlag()
        let late = LockedCounter()
        @Sendable func watch(_ generation: Int) -> ObserverToken {
            store.observe(\.log, owner: owner) { _, log in
                if generation == 1, replaced.isSet { late.increment() }
                heard.append("\(generation):\(log.joined(separator: ","))")
            }
        }
        let first = watch(1)
        let lock = store.lock("replacing")
        store.dispatch(batch: [TestAction.append("a"), TestAction.append("b")])
        lock.dispatch(TestAction.append("through"))
        // From another thread, as a screen appearing while the lock is held elsewhere.
        let second = LockedBox<ObserverToken?>(nil)
        #expect(onNewThread { second.value = watch(2) }.wait())
        replaced.set()
        #expect(!first.isActive)
        #expect(heard.values.last == "2:through", "the first value leaves out what the lock holds")
        try lock.release()
        #expect(heard.wait { $0.last == "2:through,a,b" }, "the batch arrives as one value")
        // The batch's announcement may still be on its way: wait for the value, not an announcement.
        store.dispatch(TestAction.append("c"))
        #expect(heard.wait { $0.last == "2:through,a,b,c" })
        #expect(late.value == 0)
        #expect(heard.values.filter { $0.hasPrefix("1:") }.allSatisfy { $0 == "1:" || $0 == "1:through" })
        #expect(second.value?.isActive == true)
    }
}

/// The main-actor overload replaces the same way. The tests run on the main actor, so the main
/// queue runs nothing while a test runs synchronously: deliveries wait there until the test awaits
/// `mainQueueDrained()`.
@Suite(.offThePool) struct MainQueueOwnerReplacementTests {
    /// A screen whose `viewWillAppear` observes on the main queue from one line.
    @MainActor
    final class MainScreen {
        let log = MainActorLog()

        @discardableResult
        func viewWillAppear(_ appearance: Int, store: Store<TestState>) -> ObserverToken {
            store.observe(\.counter, owner: self, queue: .main) { screen, value in
                screen.log.record("\(appearance):\(value)")
            }
        }

        @discardableResult
        func observeElsewhere(store: Store<TestState>) -> ObserverToken {
            store.observe(\.counter, owner: self, queue: .main) { screen, value in
                screen.log.record("elsewhere:\(value)")
            }
        }
    }

    /// Returns once the main queue has run every block queued on it before the call.
    @MainActor
    func mainQueueDrained() async {
        await withCheckedContinuation { (drained: CheckedContinuation<Void, Never>) in
            DispatchQueue.main.async { drained.resume() }
        }
    }

    @MainActor
    @Test func observingAgainOnTheMainQueueFromTheSameLineDeliversOnlyToTheNewestBlock() async {
        let store = makeStore()
        let screen = MainScreen()
        // The first values of the replaced observers are queued on the main queue already.
        let tokens = (1...3).map { appearance in screen.viewWillAppear(appearance, store: store) }
        let elsewhere = screen.observeElsewhere(store: store)
        #expect(tokens.map { $0.isActive } == [false, false, true])
        // A read waits for the store's queue to select the first values, which queues them.
        _ = store.currentState()
        await mainQueueDrained()
        #expect(screen.log.names.sorted() == ["3:0", "elsewhere:0"])
        dispatchAndAwaitAnnouncement(TestAction.increment, to: store)
        await mainQueueDrained()
        #expect(screen.log.names.sorted() == ["3:0", "3:1", "elsewhere:0", "elsewhere:1"])
        tokens[0].cancel()
        dispatchAndAwaitAnnouncement(TestAction.increment, to: store)
        await mainQueueDrained()
        #expect(screen.log.names.filter { $0.hasSuffix(":2") }.sorted() == ["3:2", "elsewhere:2"])
        elsewhere.cancel()
        tokens[2].cancel()
    }
}

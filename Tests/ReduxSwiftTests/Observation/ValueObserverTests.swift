import Foundation
import Testing

@testable import ReduxSwift

/// Counts the `encode(to:)` calls of the ``EncodeCountedState`` that holds it.
final class LiveEncodeCounter: Sendable {
    private let calls = LockedCounter()

    func increment() { calls.increment() }
    var count: Int { calls.value }
}

/// A counter whose live copy counts how often it is encoded; decoded copies count nothing.
struct EncodeCountedState: StateProtocol {
    var counter = 0
    var payload = Array(repeating: 0, count: 100)
    var encodes: LiveEncodeCounter?

    enum CodingKeys: String, CodingKey { case counter, payload }

    init(encodes: LiveEncodeCounter) {
        self.encodes = encodes
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        counter = try container.decode(Int.self, forKey: .counter)
        payload = try container.decode([Int].self, forKey: .payload)
    }

    func encode(to encoder: any Encoder) throws {
        encodes?.increment()
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(counter, forKey: .counter)
        try container.encode(payload, forKey: .payload)
    }
}

extension EncodeCountedState {
    /// A store of this state whose reducer counts `TestAction.increment`.
    static func store(counting encodes: LiveEncodeCounter) -> Store<EncodeCountedState> {
        Store(
            reducers: [
                { state, action in if case .increment? = action as? TestAction { state.counter += 1 } }
            ],
            state: EncodeCountedState(encodes: encodes))
    }
}

/// The promises of value observers (`observe(_:)`, owner-bound `observe`, `values(of:)`):
/// where selectors run, what counts as a repeat, what the first value reflects, and where it comes.
@Suite(.offThePool) struct ValueObserverTests {
    @Test func aSelectorRunsOnTheLiveStateWithoutEncodingIt() {
        let encodes = LiveEncodeCounter()
        let store = EncodeCountedState.store(counting: encodes)
        let before = encodes.count
        let seen = Recorder<Int>()
        let token = store.observe(\.counter) { seen.append($0) }
        let payload = store.observe({ $0.payload.count }, using: { _ in })
        for _ in 0..<100 { store.dispatch(TestAction.increment) }
        #expect(seen.wait { $0.last == 100 })
        #expect(encodes.count - before == 0, "selecting 100 changes encoded the state")
        withExtendedLifetime((token, payload)) {}
    }

    @Test func aValueThatIsNotEquatableIsDeliveredAfterEveryChangeAndAnEquatableOneSkipsRepeats() {
        let store = makeStore()
        let readings = Recorder<Int>()
        let counters = Recorder<Int>()
        // `[String]` is `Equatable` only through a conditional conformance.
        let logs = Recorder<[String]>()
        let tokens = [
            store.observe({ CounterReading(counter: $0.counter) }, using: { readings.append($0.counter) }),
            store.observe(\.counter) { counters.append($0) },
            store.observe(\.log) { logs.append($0) },
        ]
        for change in 1...5 {
            store.dispatch(TestAction.append("\(change)"))
            // Each change waits for its deliveries, so that none merges with the next: each observer
            // has a mailbox of its own, where a newer value replaces one not yet delivered.
            #expect(readings.wait(forCount: change + 1))
            #expect(logs.wait(forCount: change + 1))
        }
        store.dispatch(TestAction.increment)
        #expect(readings.wait(forCount: 7))
        #expect(
            readings.values == [0, 0, 0, 0, 0, 0, 1], "every change delivers a value that is not Equatable")
        #expect(counters.wait { $0.last == 1 })
        #expect(counters.values == [0, 1], "changes of the log are repeats of the counter")
        #expect(logs.wait { $0.count == 6 })
        store.dispatch(TestAction.increment)
        #expect(readings.wait(forCount: 8))
        #expect(counters.wait { $0.last == 2 })
        #expect(logs.values.count == 6, "a change of the counter is a repeat of the log")
        withExtendedLifetime(tokens) {}
    }

    @Test func theFirstValueReflectsEveryActionDispatchedBeforeObserve() async {
        let store = makeStore()
        for _ in 0..<1_000 { store.dispatch(TestAction.increment) }
        let here = Recorder<Int>()
        let token = store.observe(\.counter) { here.append($0) }
        #expect(here.values == [1_000], "delivered before observe returned")

        for _ in 0..<1_000 { store.dispatch(TestAction.increment) }
        let queued = Recorder<Int>()
        let queueToken = store.observe(\.counter, queue: DispatchQueue(label: "first value")) {
            queued.append($0)
        }
        #expect(await queued.waitOffThePool { !$0.isEmpty })
        #expect(queued.values.first == 2_000)

        for _ in 0..<1_000 { store.dispatch(TestAction.increment) }
        var iterator = store.values(of: \.counter).makeAsyncIterator()
        #expect(await iterator.next() == 3_000)
        withExtendedLifetime((token, queueToken)) {}
    }

    @Test func anObserverRegisteredInsideAReducerGetsItsFirstValueOnTheDeliveryThread() {
        let handle = StoreHandle()
        let deliveries = Recorder<(value: Int, onDeliveryThread: Bool, inStoreCode: Bool)>()
        let tokens = Recorder<ObserverToken>()
        let registered = Gate()
        let reducer: Reducer<TestState> = { state, action in
            guard case .append("observe")? = action as? TestAction else { return }
            tokens.append(
                handle.store.observe(\.counter) { value in
                    deliveries.append((value, DeliveringThreadFlag.isCurrent, StoreCodeScope.current != nil))
                })
            registered.open()
        }
        let store = makeStore([testReducer, reducer])
        handle.store = store
        let (appends, appendToken) = recordAppends(announcedBy: store)
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.append("observe"))
        #expect(registered.wait(), "registering inside the reducer returned")
        // The registration is queued when its action commits, after the reducer returns: the next
        // increment waits for the action's announcement, which comes after that.
        #expect(appends.wait { $0 == ["observe"] })
        // The first value, before the next action: a value still waiting when a newer one comes is
        // replaced by it, and the announcement above comes by another observer's way.
        #expect(deliveries.wait { !$0.isEmpty })
        store.dispatch(TestAction.increment)
        #expect(deliveries.wait { $0.last?.value == 2 })
        let first = deliveries.values.first
        #expect(first?.onDeliveryThread == true, "the first value came on the delivery thread")
        #expect(first?.inStoreCode == false, "the first value came outside the reducer")
        #expect(deliveries.values.allSatisfy { $0.onDeliveryThread })
        #expect(first?.value == 1, "the first value is selected after the action that registered it")
        withExtendedLifetime((tokens, appendToken)) {}
    }

    @Test func valuesNeverBlockTheStoreAndTheLastValueArrives() async {
        let store = makeStore()
        let start = AsyncGate()
        let finished = Gate()
        let consumer = Task {
            var last = -1
            defer { finished.open() }
            for await value in store.values(of: \.counter) {
                if last == -1 { await start.opened() }
                #expect(value > last, "values never go back nor repeat")
                last = value
                if value == 10_000 { break }
            }
            return last
        }
        // The consumer holds its first value; the store goes on without it.
        for _ in 0..<10_000 { store.dispatch(TestAction.increment) }
        #expect(store.currentState().counter == 10_000)
        start.open()
        let inTime = await onOwnThread { finished.wait(timeout: 60) }
        if !inTime { consumer.cancel() }
        #expect(inTime, "the last value did not arrive")
        #expect(await consumer.value == 10_000)
    }

    @Test func theObserverOfValuesIsRegisteredWhenTheSequenceIsMadeAndGoesWithIt() async {
        let store = makeStore()
        let selections = Recorder<Int>()
        let released = Gate()
        var stream: AsyncStream<Int>? = store.values(
            of: witnessed(released) { state in
                selections.append(state.counter)
                return state.counter
            })
        #expect(
            await selections.waitOffThePool { $0 == [0] },
            "the store selected the first value before anyone iterated")
        store.dispatch(TestAction.increment)
        #expect(await selections.waitOffThePool { $0 == [0, 1] })
        #expect(stream != nil)
        stream = nil
        #expect(await onOwnThread { released.wait() }, "releasing the sequence removes its observer")
    }

    @Test func noCallBeginsAfterCancelReturnsWhileEightThreadsDispatch() {
        final class Owner: Sendable {}
        let store = makeStore()
        let late = LockedCounter()
        let owner = Owner()
        let (trials, stopped) = trialsWhileDispatching(threads: 8, to: store) { goesOn in
            let cancelled = LockedFlag()
            let calls = LockedCounter()
            let call: @Sendable () -> Void = {
                if cancelled.isSet { late.increment() }
                calls.increment()
            }
            let tokens = [
                store.observe(\.counter) { _ in call() },
                store.observe(
                    { CounterReading(counter: $0.counter) }, queue: .global(), using: { _ in call() }),
                store.observe(\.counter, owner: owner, queue: .global()) { _, _ in call() },
                store.observe(\.counter, owner: owner) { _, _ in call() },
            ]
            // Cancel while deliveries are under way.
            while calls.value < 6, goesOn() { sched_yield() }
            for token in tokens { token.cancel() }
            cancelled.set()
        }
        #expect(stopped)
        #expect(trials > 1)
        #expect(late.value == 0, "\(late.value) calls began after cancel() returned, in \(trials) trials")
    }

    @Test func observersWhoseOwnersAreFreedOnAStoreThatDoesNotChangeAreNotKeptOneByOne() {
        final class Screen: Sendable {}
        let store = makeStore()
        let alive = LockedBox(0)
        for round in 0..<2_000 {
            let screen = Screen()
            // The block captures a value, as a screen's closures do; it goes with the observer.
            let captured = CountedValue(alive)
            let queue: DispatchQueue? = round % 2 == 0 ? nil : .main
            store.observe(\.counter, owner: screen, queue: queue) { _, _ in _ = captured }
        }
        _ = store.currentState()
        #expect(alive.value <= 130, "\(alive.value) blocks of freed owners are still kept")
    }

    @Test func observersCancelledOnAStoreThatDoesNotChangeAreNotKeptOneByOne() {
        let store = makeStore()
        let alive = LockedBox(0)
        for _ in 0..<2_000 {
            let token = store.observe({ _ in CountedValue(alive) }, using: { _ in })
            token.cancel()
        }
        _ = store.currentState()
        // Each observer keeps the last value it selected until the store drops it; with no pass to
        // drop them, new observers sweep out the cancelled ones.
        #expect(alive.value <= 130, "\(alive.value) selected values are still kept")
    }

    @Test func anObserverCancelledInsideItsBlockReleasesItsClosuresOnceTheBlockReturns() {
        let store = makeStore()
        let selectorReleased = Gate()
        let blockReleased = Gate()
        let token = TokenBox()
        let cancelled = Gate()
        do {
            let witness = ReleaseWitness(blockReleased)
            token.value = store.observe(witnessed(selectorReleased) { $0.counter }) { value in
                withExtendedLifetime(witness) {}
                guard value == 1 else { return }
                token.value?.cancel()
                cancelled.open()
            }
        }
        store.dispatch(TestAction.increment)
        #expect(cancelled.wait())
        // The token is still held: what lets the closures go is the cancel, once the call ends.
        #expect(selectorReleased.wait())
        #expect(blockReleased.wait())
        #expect(token.value != nil)
    }
}

/// A selected value that counts the instances alive; no two are duplicates.
final class CountedValue: Equatable, Sendable {
    let alive: LockedBox<Int>

    init(_ alive: LockedBox<Int>) {
        self.alive = alive
        alive.update { $0 += 1 }
    }

    deinit { alive.update { $0 -= 1 } }

    static func == (left: CountedValue, right: CountedValue) -> Bool { left === right }
}

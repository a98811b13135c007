import Foundation
import Testing

@testable import ReduxSwift

@Suite struct SelectorTests {
    @Test func theCurrentValueComesFirstBeforeObserveReturns() {
        let store = makeStore(state: TestState(counter: 5))
        let seen = Recorder<Int>()
        let token = store.observe(\.counter) { seen.append($0) }
        #expect(seen.values == [5])
        withExtendedLifetime(token) {}
    }

    @Test func aValueIsDeliveredOnlyWhenItChanges() {
        let store = makeStore()
        let counters = Recorder<Int>()
        let token = store.observe(\.counter) { counters.append($0) }
        let (appends, appendToken) = recordAppends(announcedBy: store)
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.append("elsewhere"))
        store.dispatch(TestAction.append("again"))
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.append("last"))
        #expect(appends.wait(forCount: 3))
        #expect(counters.wait { $0.last == 2 })
        #expect(counters.values.first == 0)
        #expect(counters.values == counters.values.sorted(), "values never go back")
        #expect(Set(counters.values).count == counters.values.count, "no value repeats")
        withExtendedLifetime((token, appendToken)) {}
    }

    @Test func everyChangeOfTheValueIsSeenWhenChangesAreSlow() {
        let store = makeStore()
        let counters = Recorder<Int>()
        let token = store.observe(\.counter) { counters.append($0) }
        for expected in 1...5 {
            store.dispatch(TestAction.append("noise"))
            store.dispatch(TestAction.increment)
            #expect(counters.wait { $0.last == expected })
        }
        #expect(counters.values == [0, 1, 2, 3, 4, 5])
        withExtendedLifetime(token) {}
    }

    @Test func aCustomEqualityDecidesWhatARepeatIs() {
        let store = makeStore()
        let parities = Recorder<Int>()
        let token = store.observe(
            \.counter, removingDuplicates: { $0 % 2 == $1 % 2 }, using: { parities.append($0) })
        for _ in 0..<3 {
            store.dispatch(TestAction.add(2))
            _ = store.currentState()
        }
        store.dispatch(TestAction.increment)
        #expect(parities.wait { $0.count == 2 })
        #expect(parities.values == [0, 7])
        withExtendedLifetime(token) {}
    }

    @Test func valuesAreSelectedFromDeepCopies() {
        let store = makeStore(state: TestState(todos: [Todo(id: 0, title: "a")]))
        let seen = Recorder<[Todo]>()
        let token = store.observe(\.todos) { todos in
            var mutated = todos
            mutated[0].title = "changed by an observer"
            seen.append(todos)
        }
        #expect(store.currentState().todos.first?.title == "a")
        #expect(seen.values.first?.first?.title == "a")
        withExtendedLifetime(token) {}
    }

    @Test func aQueueReceivesEveryDelivery() {
        let store = makeStore()
        let queue = DispatchQueue(label: "selector-test")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let deliveries = Recorder<(value: Int, onQueue: Bool)>()
        let token = store.observe(\.counter, queue: queue) { value in
            deliveries.append((value, DispatchQueue.getSpecific(key: key) == true))
        }
        store.dispatch(TestAction.increment)
        // The first delivery may already see the increment; either way the last value is 1.
        #expect(deliveries.wait { $0.last?.value == 1 })
        let allOnQueue = deliveries.values.allSatisfy { $0.onQueue }
        #expect(allOnQueue)
        withExtendedLifetime(token) {}
    }

    @Test func nothingIsDeliveredAfterCancel() {
        let store = makeStore()
        let seen = Recorder<Int>()
        let token = store.observe(\.counter) { seen.append($0) }
        token.cancel()
        store.dispatch(TestAction.increment)
        let (appends, appendToken) = recordAppends(announcedBy: store)
        store.dispatch(TestAction.append("after"))
        #expect(appends.wait(forCount: 1))
        #expect(seen.values == [0])
        #expect(store.notificationCenter.observerCount == 1)
        withExtendedLifetime(appendToken) {}
    }

    @Test func observersComeAndGoWhileSeveralThreadsDispatch() {
        let store = makeStore()
        onThreads(4) { thread in
            for step in 0..<100 {
                if thread % 2 == 0 {
                    store.dispatch(TestAction.increment)
                } else {
                    let token = store.observe(\.counter) { _ in }
                    if step % 3 == 0 { token.cancel() }
                }
            }
        }
        #expect(store.currentState().counter == 200)
        #expect(store.notificationCenter.observerCount == 0)
    }
}

@Suite struct OwnerBoundObservationTests {
    final class Owner: Sendable {
        let seen = Recorder<Int>()
        /// Opened when the owner is freed.
        let freed: Gate

        init(freed: Gate = Gate()) {
            self.freed = freed
        }

        deinit { freed.open() }
    }

    @Test func theOwnerIsPassedToTheBlockAndNotKeptAlive() {
        let store = makeStore()
        let freed = Gate()
        do {
            let owner = Owner(freed: freed)
            store.observe(\.counter, owner: owner) { owner, value in owner.seen.append(value) }
            store.dispatch(TestAction.increment)
            #expect(owner.seen.wait { $0.last == 1 })
        }
        // The delivery thread holds the owner until the block returns, which may be just after the
        // value is seen: wait for the owner to be freed, which a registration keeping it prevents.
        #expect(freed.wait(timeout: 10), "the registration does not retain its owner")
    }

    @Test func nothingIsDeliveredAfterTheOwnerIsFreedAndTheRegistrationGoes() {
        let store = makeStore()
        let delivered = Recorder<Int>()
        do {
            let owner = Owner()
            store.observeChanges(owner: owner) { _, _ in delivered.append(1) }
            store.observe(\.counter, owner: owner) { _, value in delivered.append(value) }
            #expect(store.notificationCenter.observerCount == 2)
        }
        let before = delivered.count
        let (appends, token) = recordAppends(announcedBy: store)
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.append("after"))
        #expect(appends.wait(forCount: 1))
        #expect(delivered.count == before)
        #expect(store.notificationCenter.observerCount == 1, "only the recorder remains")
        withExtendedLifetime(token) {}
    }

    @Test func releasingTheTokenDoesNotStopAnOwnerBoundObserver() {
        let store = makeStore()
        let owner = Owner()
        _ = store.observeChanges(owner: owner) { owner, _ in owner.seen.append(1) }
        store.dispatch(TestAction.increment)
        #expect(owner.seen.wait(forCount: 1))
    }

    @Test func cancellingTheTokenStopsAnOwnerBoundObserverEarly() {
        let store = makeStore()
        let owner = Owner()
        let token = store.observeChanges(owner: owner) { owner, _ in owner.seen.append(1) }
        token.cancel()
        #expect(store.notificationCenter.observerCount == 0)
    }
}

@Suite struct MemoizedTests {
    @Test func theValueIsComputedAgainOnlyWhenAnInputChanges() {
        let visible = Memoized(\TestState.todos, \TestState.counter) { todos, limit in
            Array(todos.prefix(limit))
        }
        var state = TestState(counter: 1, todos: [Todo(id: 0, title: "a"), Todo(id: 1, title: "b")])
        #expect(visible(state).map(\.title) == ["a"])
        state.log.append("unrelated")
        #expect(visible(state).map(\.title) == ["a"])
        #expect(visible.computeCount == 1)
        state.counter = 2
        #expect(visible(state).map(\.title) == ["a", "b"])
        #expect(visible.computeCount == 2)
    }

    @Test func oneAndThreeInputsWork() {
        let count = Memoized(\TestState.todos) { $0.count }
        let summary = Memoized(\TestState.counter, \TestState.log, \TestState.todos) { counter, log, todos in
            "\(counter)/\(log.count)/\(todos.count)"
        }
        let state = TestState(counter: 3, log: ["x"], todos: [])
        #expect(count(state) == 0)
        #expect(summary(state) == "3/1/0")
        #expect(summary(state) == "3/1/0")
        #expect(summary.computeCount == 1)
    }

    @Test func itMayBeReadFromManyThreadsAtOnce() {
        let doubled = Memoized(\TestState.counter) { $0 * 2 }
        concurrently(8) { index in
            for step in 0..<200 {
                let state = TestState(counter: (index + step) % 4)
                #expect(doubled(state) == state.counter * 2)
            }
        }
    }

    @Test func anInputsEqualityMayReadTheSameValueAgain() throws {
        let doubled = Memoized(\HookedInput.self) { $0.value * 2 }
        #expect(doubled(HookedInput(value: 1)) == 2)
        let inner = Recorder<Int>()
        // On its own thread, so that a lock held around `==` fails the test instead of hanging it.
        let read = onNewThread {
            _ = doubled(HookedInput(value: 1) { inner.append(doubled(HookedInput(value: 1))) })
        }
        try #require(read.wait(timeout: 10), "the outer read holds a lock the inner one waits for")
        #expect(inner.values == [2])
        #expect(doubled.computeCount == 1)
    }

    @Test func aReplacedValuesDeinitMayReadTheSameValue() throws {
        let hook = Hook()
        let probes = Memoized(\Int.self) { value in
            DeinitProbe(value) { if $0 == 1 { hook.run() } }
        }
        let readInside = Recorder<Int>()
        hook.set { readInside.append(probes(2).value) }
        _ = probes(1)
        // Reading 2 replaces the cached 1, whose deinit reads 2 again: on its own thread, so that
        // a lock held while releasing 1 fails the test instead of hanging it.
        let read = finishing(within: 10) { probes(2).value }
        try #require(read == 2, "the replaced value was released under the lock its deinit reads through")
        #expect(readInside.values == [2])
        hook.set(nil)
    }
}

/// A value that calls `onDeinit` with its own value when it is released, so that a test can run
/// code in a `deinit`.
final class DeinitProbe: Sendable {
    let value: Int
    private let onDeinit: @Sendable (Int) -> Void

    init(_ value: Int, onDeinit: @escaping @Sendable (Int) -> Void) {
        self.value = value
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit(value)
    }
}

/// An input whose `==` runs both sides' hooks, so that a test can run code while a `Memoized`
/// compares inputs.
struct HookedInput: Equatable, Sendable {
    let value: Int
    var hook: @Sendable () -> Void = {}

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.hook()
        rhs.hook()
        return lhs.value == rhs.value
    }
}

/// Counts `init(from:)` calls of `DecodeCountedState`, which only one test uses.
final class DecodeCounter: @unchecked Sendable {
    // `@unchecked Sendable`: `count` is only touched while `lock` is held.
    static let shared = DecodeCounter()
    private let lock = NSLock()
    private var decodes = 0

    func increment() { lock.withLock { decodes += 1 } }
    var count: Int { lock.withLock { decodes } }
}

struct DecodeCountedState: StateProtocol {
    var values = Array(repeating: 0, count: 100)

    init() {}

    init(from decoder: any Decoder) throws {
        DecodeCounter.shared.increment()
        values = try decoder.singleValueContainer().decode([Int].self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(values)
    }
}

@Suite struct SharedDecodeTests {
    struct Bump: ActionProtocol {
        let index: Int
    }

    @Test func selectorsOnOneThreadShareOneDecodePerChange() {
        let store = Store<DecodeCountedState>(
            reducers: [{ state, action in if let bump = action as? Bump { state.values[bump.index] += 1 } }],
            state: DecodeCountedState())
        let before = DecodeCounter.shared.count
        let seen = Recorder<Int>()
        let tokens = (0..<100).map { index in store.observe({ $0.values[index] }) { _ in seen.append(index) }
        }
        #expect(DecodeCounter.shared.count - before == 1, "registering 100 selectors decodes once")
        store.dispatch(Bump(index: 42))
        #expect(seen.wait { $0.count == 101 })
        #expect(seen.values.last == 42)
        #expect(DecodeCounter.shared.count - before == 2, "one more decode for the change, shared by all 100")
        withExtendedLifetime(tokens) {}
    }
}

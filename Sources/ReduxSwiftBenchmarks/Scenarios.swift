import Foundation
import ReduxSwift

/// Sizes of the workloads; `--quick` shrinks them so that a whole run takes well under a minute.
struct Workload {
    let quick: Bool
    let repetitions = 5
    var increments: Int { quick ? 20_000 : 100_000 }
    var manyObserverIncrements: Int { quick ? 5_000 : 100_000 }
    var toggles: Int { 10_000 }
    var burst: Int { quick ? 10 : 1_000 }
    var readSizes: [Int] { quick ? [10, 1_000, 10_000] : [10, 1_000, 10_000, 100_000] }
    var readers: Int { 100 }
    var observers: Int { 3_000 }
    var threads: Int { 8 }
    var perThread: Int { quick ? 20_000 : 100_000 }
    var memoryDispatches: Int { quick ? 200_000 : 1_000_000 }
    var idleBurstDispatches: Int { quick ? 400_000 : 4_000_000 }
    var historySteps: Int { quick ? 100 : 1_000 }
    var undos: Int { quick ? 10 : 50 }
}

/// A counter confined to one serial delivery thread, so it needs no lock.
final class Tally: @unchecked Sendable {
    // `@unchecked Sendable`: each instance is only used from one serial queue (a store's delivery
    // thread or the naive port's notification queue).
    var count = 0
}

/// One numbered scenario of the table.
struct Scenario: Sendable {
    let number: String
    let name: String
    let run: @Sendable (Workload) throws -> [Result]

    var title: String { "\(number) \(name)" }
}

func makeStore<State: StateProtocol>(_ reducers: [Reducer<State>], _ state: State) -> Store<State> {
    Store(reducers: reducers, state: state, notificationCenter: StoreNotificationCenter())
}

// MARK: - 1 and 2: throughput with observers

/// Dispatches `count` increments and waits until every observer has heard all of them. Returns
/// nanoseconds per action.
func reduxSwiftIncrements(count: Int, observers: Int) throws -> Double {
    let store = makeStore(benchReducers, BenchState(todos: 100))
    let done = Signal()
    let tokens = (0..<observers).map { index in
        let tally = Tally()
        let isLast = index == observers - 1
        return store.observeChanges { note in
            tally.count += note.actions.count
            if isLast && tally.count == count { done.fire() }
        }
    }
    let elapsed = try seconds {
        for _ in 0..<count { store.dispatch(BenchAction.increment) }
        try done.wait("the last observer to hear \(count) actions")
    }
    try check(store.currentState().counter == count, "ReduxSwift lost increments")
    for token in tokens { token.cancel() }
    return elapsed * 1e9 / Double(count)
}

/// The same on the naive port. Returns nanoseconds per action.
func naiveIncrements(count: Int, observers: Int) throws -> Double {
    let store = NaiveStore(reducers: benchReducers, state: BenchState(todos: 100))
    let done = Signal()
    let tokens = (0..<observers).map { index in
        let tally = Tally()
        let isLast = index == observers - 1
        return store.observe {
            tally.count += 1
            if isLast && tally.count == count { done.fire() }
        }
    }
    let elapsed = try seconds {
        for _ in 0..<count { store.dispatch(BenchAction.increment) }
        try done.wait("the naive port's last observer")
    }
    try check(store.currentState().counter == count, "the naive port lost increments")
    for token in tokens { store.center.removeObserver(token) }
    return elapsed * 1e9 / Double(count)
}

/// The same reducers applied in a plain loop, no store, then every observer told of every action in
/// one call (the least any store can deliver): the limit. Returns nanoseconds per action.
func limitIncrements(count: Int, observers: Int) throws -> Double {
    var state = BenchState(todos: 100)
    let tallies = (0..<observers).map { _ in Tally() }
    let hear: [(Int) -> Void] = tallies.map { tally in { tally.count += $0 } }
    let elapsed = try seconds {
        for _ in 0..<count {
            let action: any ActionProtocol = BenchAction.increment
            for reducer in benchReducers { try reducer(&state, action) }
        }
        for observer in hear { observer(count) }
    }
    try check(state.counter == count, "the limit loop lost increments")
    try check(tallies.allSatisfy { $0.count == count }, "the limit loop's observers missed increments")
    return elapsed * 1e9 / Double(count)
}

func throughputScenario(number: String, observers: Int) -> Scenario {
    Scenario(
        number: number,
        name: "increments dispatched then drained, \(observers) observer\(observers == 1 ? "" : "s")"
    ) {
        workload in
        let count = observers == 1 ? workload.increments : workload.manyObserverIncrements
        let summaries = try measureInterleaved(
            repetitions: workload.repetitions,
            [
                { try reduxSwiftIncrements(count: count, observers: observers) },
                { try limitIncrements(count: count, observers: observers) },
                { try naiveIncrements(count: count, observers: observers) },
            ])
        let ratio = summaries[0].median / summaries[1].median
        let naive = summaries[2].median
        let note =
            "for reference, not a target: the naive port takes \(Table.format(naive)) ns/action, "
            + "\(Table.format(naive / summaries[1].median))× the limit loop"
        return [
            Result(
                scenario: "\(number) \(count) increments dispatched then drained, \(observers) observer(s)",
                unit: "ns/action", reduxswift: summaries[0], baseline: summaries[1],
                baselineName: "limit loop", ratio: ratio, target: "≤ 1.25× the limit loop",
                meets: ratio <= 1.25, note: note)
        ]
    }
}

// MARK: - 3: dispatch cost does not grow with the state

/// Nanoseconds per toggle through the store, until the observer has heard every toggle.
func reduxSwiftToggles(todos: Int, toggles: Int) throws -> Double {
    let store = makeStore(benchReducers, BenchState(todos: todos))
    let done = Signal()
    let tally = Tally()
    let token = store.observeChanges { note in
        tally.count += note.actions.count
        if tally.count == toggles { done.fire() }
    }
    let elapsed = try seconds {
        for step in 0..<toggles { store.dispatch(BenchAction.toggle(step % todos)) }
        try done.wait("\(toggles) toggles")
    }
    token.cancel()
    var expected = BenchState(todos: todos)
    for step in 0..<toggles { expected.todos[step % todos].done.toggle() }
    try check(store.currentState() == expected, "ReduxSwift toggled wrongly")
    return elapsed * 1e9 / Double(toggles)
}

/// Nanoseconds per toggle with the same reducers applied in a plain loop: the limit.
func limitToggles(todos: Int, toggles: Int) throws -> Double {
    var state = BenchState(todos: todos)
    let elapsed = try seconds {
        for step in 0..<toggles {
            let action: any ActionProtocol = BenchAction.toggle(step % todos)
            for reducer in benchReducers { try reducer(&state, action) }
        }
    }
    var expected = BenchState(todos: todos)
    for step in 0..<toggles { expected.todos[step % todos].done.toggle() }
    try check(state == expected, "the limit loop toggled wrongly")
    return elapsed * 1e9 / Double(toggles)
}

let togglesScenario = Scenario(number: "3", name: "toggles at 10,000 and 100 todos") { workload in
    let toggles = workload.toggles
    let summaries = try measureInterleaved(
        repetitions: workload.repetitions,
        [
            { try reduxSwiftToggles(todos: 10_000, toggles: toggles) },
            { try limitToggles(todos: 10_000, toggles: toggles) },
            { try reduxSwiftToggles(todos: 100, toggles: toggles) },
        ])
    let perLimit = summaries[0].median / summaries[1].median
    let perSize = summaries[0].median / summaries[2].median
    return [
        Result(
            scenario: "3a \(toggles) toggles on 10,000 todos, cost per action", unit: "ns/action",
            reduxswift: summaries[0], baseline: summaries[1], baselineName: "limit loop",
            ratio: perLimit, target: "≤ 5× the limit loop", meets: perLimit <= 5),
        Result(
            scenario: "3b \(toggles) toggles, 10,000 todos against 100 todos", unit: "ns/action",
            reduxswift: summaries[0], baseline: summaries[2], baselineName: "ReduxSwift at 100 todos",
            ratio: perSize, target: "≤ 1.5× (cost must not grow with the state)", meets: perSize <= 1.5),
    ]
}

// MARK: - 4: a burst read on every notification

func reduxSwiftBurst(burst: Int) throws -> Double {
    let todos = 10_000
    let store = makeStore(benchReducers, BenchState(todos: todos))
    let done = Signal()
    let tally = Tally()
    let lastRead = Box<BenchState?>(nil)
    let token = store.observeChanges { note in
        let state = store.currentState()
        tally.count += note.actions.count
        if tally.count == burst {
            lastRead.value = state
            done.fire()
        }
    }
    let elapsed = try seconds {
        for index in 0..<burst { store.dispatch(BenchAction.toggle(index)) }
        try done.wait("the burst's last read")
    }
    token.cancel()
    let initial = BenchState(todos: todos)
    let read = try lastRead.value.map { $0 } ?? { throw WrongResult(description: "no read recorded") }()
    try check(
        (0..<burst).allSatisfy { read.todos[$0].done != initial.todos[$0].done },
        "the observer's last read did not see the whole burst")
    return elapsed
}

func naiveBurst(burst: Int) throws -> Double {
    let store = NaiveStore(reducers: benchReducers, state: BenchState(todos: 10_000))
    let done = Signal()
    let tally = Tally()
    let token = store.observe {
        _ = store.currentState()
        tally.count += 1
        if tally.count == burst { done.fire() }
    }
    let elapsed = try seconds {
        for index in 0..<burst { store.dispatch(BenchAction.toggle(index)) }
        try done.wait("the naive port's last read")
    }
    store.center.removeObserver(token)
    return elapsed
}

let burstScenario = Scenario(
    number: "4", name: "burst of toggles on 10,000 todos, reading on every notification"
) {
    workload in
    let burst = workload.burst
    // The warm-up runs a short burst: a naive repetition of the full burst takes minutes.
    var calls = [0, 0]
    func size(_ variant: Int) -> Int {
        calls[variant] += 1
        return calls[variant] == 1 ? min(burst, 10) : burst
    }
    let summaries = try measureInterleaved(
        repetitions: workload.repetitions,
        [{ try reduxSwiftBurst(burst: size(0)) }, { try naiveBurst(burst: size(1)) }])
    let speedup = summaries[1].median / summaries[0].median
    return [
        Result(
            scenario: "4 burst of \(burst) toggles on 10,000 todos, currentState() on every notification",
            unit: "s end to end", reduxswift: summaries[0], baseline: summaries[1],
            baselineName: "naive port",
            ratio: summaries[0].median / summaries[1].median,
            target: "≥ 100× faster than the naive port (here \(String(format: "%.0f", speedup))×)",
            meets: speedup >= 100)
    ]
}

/// A mutable box for handing a value from a delivery thread to the waiting thread.
final class Box<Value>: @unchecked Sendable {
    // `@unchecked Sendable`: written before a `Signal` fires and read after waiting on it.
    var value: Value
    init(_ value: Value) { self.value = value }
}

import Foundation
import ReduxSwift

// MARK: - 8: one change delivered to many observers

let fanOutScenario = Scenario(number: "8", name: "one change delivered to 3,000 observers") { workload in
    let count = workload.observers
    let store = makeStore(benchReducers, BenchState(todos: 100))
    let delivered = Signal()
    let tokens = (0..<count).map { index in
        let tally = Tally()
        return store.observeChanges { _ in
            tally.count += 1
            if index == count - 1 { delivered.fire() }
        }
    }
    let center = NotificationCenter()
    let name = Notification.Name("fan-out")
    let posted = Counter()
    let observers = (0..<count).map { _ in
        center.addObserver(forName: name, object: nil, queue: nil) { _ in posted.increment() }
    }
    let summaries = try measureInterleaved(
        repetitions: workload.repetitions,
        [
            {
                try seconds {
                    store.dispatch(BenchAction.increment)
                    try delivered.wait("the last of \(count) observers")
                } * 1e3
            },
            {
                posted.reset()
                let elapsed = seconds { center.post(name: name, object: nil) } * 1e3
                try check(posted.value == count, "NotificationCenter missed observers")
                return elapsed
            },
        ])
    for token in tokens { token.cancel() }
    for observer in observers { center.removeObserver(observer) }
    return [
        Result(
            scenario: "8 one change delivered to \(count) observers (dispatch to last callback)", unit: "ms",
            reduxswift: summaries[0], baseline: summaries[1], baselineName: "NotificationCenter.post",
            ratio: summaries[0].median / summaries[1].median, target: "≤ 0.5 ms",
            meets: summaries[0].median <= 0.5)
    ]
}

// MARK: - 9: adding and removing many observers

let churnScenario = Scenario(number: "9", name: "3,000 observers added, then all removed") { workload in
    let count = workload.observers
    let store = makeStore(benchReducers, BenchState(todos: 0))
    var tokens: [ObserverToken] = []
    var foundationTokens: [any NSObjectProtocol] = []
    let center = NotificationCenter()
    let name = Notification.Name("churn")
    let summaries = try measureInterleaved(
        repetitions: workload.repetitions,
        [
            {
                seconds {
                    tokens = (0..<count).map { _ in store.observeChanges { _ in } }
                } * 1e3
            },
            {
                let elapsed = seconds { for token in tokens { token.cancel() } } * 1e3
                tokens.removeAll()
                return elapsed
            },
            {
                seconds {
                    foundationTokens = (0..<count).map { _ in
                        center.addObserver(forName: name, object: nil, queue: nil) { _ in }
                    }
                } * 1e3
            },
            {
                let elapsed = seconds { for token in foundationTokens { center.removeObserver(token) } } * 1e3
                foundationTokens.removeAll()
                return elapsed
            },
        ])
    try check(tokens.isEmpty && foundationTokens.isEmpty, "observers left behind")
    return [
        Result(
            scenario: "9a \(count) observers added", unit: "ms", reduxswift: summaries[0],
            baseline: summaries[2],
            baselineName: "NotificationCenter.addObserver", ratio: summaries[0].median / summaries[2].median,
            target: "≤ 1 ms", meets: summaries[0].median <= 1),
        Result(
            scenario: "9b \(count) observers removed", unit: "ms", reduxswift: summaries[1],
            baseline: summaries[3],
            baselineName: "NotificationCenter.removeObserver",
            ratio: summaries[1].median / summaries[3].median,
            target: "≤ 1 ms", meets: summaries[1].median <= 1),
    ]
}

// MARK: - 10: many dispatching threads

/// Actions per second with `threads` threads each dispatching `perThread` increments.
func reduxSwiftParallelIncrements(threads: Int, perThread: Int) throws -> Double {
    let store = makeStore(benchReducers, BenchState(todos: 0))
    let elapsed = try seconds {
        onThreads(threads) { _ in
            for _ in 0..<perThread { store.dispatch(BenchAction.increment) }
        }
        let counter = store.currentState().counter
        try check(
            counter == threads * perThread, "expected \(threads * perThread) increments, got \(counter)")
    }
    return Double(threads * perThread) / elapsed
}

let threadsScenario = Scenario(number: "10", name: "8 threads dispatching") { workload in
    let (threads, perThread) = (workload.threads, workload.perThread)
    let summaries = try measureInterleaved(
        repetitions: workload.repetitions,
        [
            { try reduxSwiftParallelIncrements(threads: threads, perThread: perThread) },
            { try reduxSwiftParallelIncrements(threads: 1, perThread: threads * perThread) },
        ])
    let ratio = summaries[0].median / summaries[1].median
    return [
        Result(
            scenario: "10 \(threads) threads dispatching \(perThread) increments each", unit: "actions/s",
            reduxswift: summaries[0], baseline: summaries[1],
            baselineName: "ReduxSwift, one thread, same total",
            ratio: ratio, target: "exact count; ≥ 0.8× one thread's throughput", meets: ratio >= 0.8)
    ]
}

// MARK: - 11: memory after a large burst

let memoryScenario = Scenario(number: "11", name: "resident memory after a large burst") { workload in
    let dispatches = workload.memoryDispatches
    let untrimmedGrowth = Box<[Double]>([])
    let summaries = try measureInterleaved(
        repetitions: workload.repetitions,
        [
            {
                let store = makeStore(benchReducers, BenchState(todos: 100))
                let announced = Signal()
                let token = store.observeChanges { note in
                    if note.actions.contains(where: {
                        ($0 as? BenchAction).map { if case .noop = $0 { true } else { false } } ?? false
                    }) {
                        announced.fire()
                    }
                }
                /// Waits until every notification before it has been delivered and released. Deliveries are
                /// serial, but a marker may be coalesced into the notification it should follow, so a
                /// second marker is sent after the first one has been heard.
                func settle() throws {
                    for _ in 0..<2 {
                        store.dispatch(BenchAction.noop)
                        try announced.wait("a marker notification")
                    }
                }
                for _ in 0..<1_000 { store.dispatch(BenchAction.increment) }
                try settle()
                returnFreedMemoryToTheSystem()
                let residentBefore = residentMemory()
                for _ in 0..<dispatches { store.dispatch(BenchAction.increment) }
                try check(store.currentState().counter == dispatches + 1_000, "the burst lost actions")
                try settle()
                let untrimmed = residentMemory()
                returnFreedMemoryToTheSystem()
                let residentAfter = residentMemory()
                token.cancel()
                untrimmedGrowth.value.append(Double(untrimmed - residentBefore) / 1_048_576)
                return Double(residentAfter - residentBefore) / 1_048_576
            }
        ])
    let untrimmed = Summary(untrimmedGrowth.value)
    let note =
        "resident memory is read after asking the allocator to return freed pages (malloc_trim on Linux); "
        + "read before that, the growth was \(Table.format(untrimmed.median)) MB "
        + "[\(Table.format(untrimmed.min))–\(Table.format(untrimmed.max))], pages the allocator keeps for reuse"
    return [
        Result(
            scenario: "11 \(dispatches) dispatches then drain, resident memory growth", unit: "MB",
            reduxswift: summaries[0], baseline: nil, baselineName: nil, ratio: nil,
            target: "≤ 5 MB above before", meets: summaries[0].median <= 5, note: note)
    ]
}

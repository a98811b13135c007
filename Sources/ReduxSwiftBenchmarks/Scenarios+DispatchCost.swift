import CountingAllocator
import Dispatch
import Foundation
import ReduxSwift

// MARK: - 23: allocations and mutex acquisitions of one isolated dispatch

/// Allocations and mutex acquisitions per repetition of a measured step.
struct DispatchCounts {
    let allocations: Double
    let mutexLocks: Double
}

/// Counts what `repetitions` runs of `step` allocate and lock, on every thread, and divides by
/// `repetitions`. `step` is given the repetition's number, from 1.
func countPerStep(_ repetitions: Int, _ step: (Int64) throws -> Void) rethrows -> DispatchCounts {
    counting_start()
    defer { counting_stop() }
    for repetition in 1...repetitions { try step(Int64(repetition)) }
    counting_stop()
    return DispatchCounts(
        allocations: Double(counting_allocations()) / Double(repetitions),
        mutexLocks: Double(counting_mutex_locks()) / Double(repetitions))
}

/// Spins until the flag holds `value`, without allocating or locking; throws after 60 seconds.
func spin(until value: Int64, _ what: String) throws {
    let deadline = now() + 60_000_000_000
    var spins = 0
    while counting_flag_load() != value {
        spins += 1
        if spins.isMultiple(of: 64) {
            counting_yield()
            if now() > deadline { throw WrongResult(description: "timed out waiting for \(what)") }
        }
    }
}

/// Checks that the counters count: a known number of allocations and of `NSLock` acquisitions
/// (in Foundation, another library, as the store's queues and locks are).
func checkTheCountersCount() throws {
    final class Box { var value = 0 }
    let objects = 1_000
    var boxes: [Box] = []
    boxes.reserveCapacity(objects)
    let lock = NSLock()
    counting_start()
    for _ in 0..<objects { boxes.append(Box()) }
    for _ in 0..<objects {
        lock.lock()
        boxes[0].value += 1
        lock.unlock()
    }
    counting_stop()
    let allocations = counting_allocations()
    let locks = counting_mutex_locks()
    try check(
        (objects...objects + objects / 10).contains(Int(allocations)),
        "the allocation counter counted \(allocations) allocations for \(objects) objects")
    try check(
        (objects...objects + objects / 10).contains(Int(locks)),
        "the mutex counter counted \(locks) acquisitions for \(objects) NSLock.lock() calls")
    blackHole(boxes.count + boxes[0].value)
}

/// The counts of one isolated increment dispatched to `store`, each waited for until what hears it
/// (named `hearer`) raises the flag to the store's counter; after 100 uncounted ones.
private func countIsolatedIncrements(
    of store: Store<BenchState>, heardBy hearer: String, _ repetitions: Int
) throws -> DispatchCounts {
    var dispatched = Int64(store.currentState().counter)
    let step: (Int64) throws -> Void = { _ in
        dispatched += 1
        store.dispatch(BenchAction.increment)
        try spin(until: dispatched, hearer)
    }
    for _ in 1...100 { try step(0) }
    let counts = try countPerStep(repetitions, step)
    try check(store.currentState().counter == Int(dispatched), "the store lost increments")
    return counts
}

let dispatchCostScenario = Scenario(
    number: "23", name: "allocations and mutex acquisitions of one isolated dispatch"
) { workload in
    guard counting_available() else {
        say("   23: allocation and mutex counts are unavailable on this platform (they need glibc)")
        return []
    }
    try checkTheCountersCount()
    let repetitions = workload.quick ? 1_000 : 10_000
    let queue = DispatchQueue(label: "ReduxSwiftBenchmarks.observer")

    // Two bare queue hops, waited for the same way.
    let first = DispatchQueue(label: "ReduxSwiftBenchmarks.hop1")
    let second = DispatchQueue(label: "ReduxSwiftBenchmarks.hop2")
    counting_flag_store(0)
    let hop: (Int64) throws -> Void = { value in
        first.async { second.async { counting_flag_store(value) } }
        try spin(until: value, "two queue hops")
    }
    for value in 1...100 { try hop(Int64(value)) }
    counting_flag_store(0)
    let hops = try countPerStep(repetitions, hop)

    // One value observer: dispatch, then wait until its block has run with the new value.
    let valueStore = makeStore(benchReducers, BenchState(todos: 10))
    counting_flag_store(-1)
    let valueToken = valueStore.observe(\.counter, queue: queue) { counting_flag_store(Int64($0)) }
    try spin(until: 0, "the value observer's first value")
    let valueObserver = try countIsolatedIncrements(
        of: valueStore, heardBy: "the value observer", repetitions)
    valueToken.cancel()

    // The same observer in bursts: dispatches in a tight loop, then a wait until the block has the
    // last value; counted per dispatch, so that a change to the isolated dispatch can be checked
    // not to make bursts dearer.
    let burstLength = 1_000
    let burstStore = makeStore(benchReducers, BenchState(todos: 10))
    counting_flag_store(-1)
    let burstToken = burstStore.observe(\.counter, queue: queue) { counting_flag_store(Int64($0)) }
    try spin(until: 0, "the burst observer's first value")
    var burstDispatched: Int64 = 0
    let burstStep: (Int64) throws -> Void = { _ in
        for _ in 0..<burstLength { burstStore.dispatch(BenchAction.increment) }
        burstDispatched += Int64(burstLength)
        try spin(until: burstDispatched, "the burst's last value")
    }
    for _ in 1...5 { try burstStep(0) }
    let burstCounts = try countPerStep(workload.quick ? 10 : 100, burstStep)
    let inBursts = DispatchCounts(
        allocations: burstCounts.allocations / Double(burstLength),
        mutexLocks: burstCounts.mutexLocks / Double(burstLength))
    burstToken.cancel()

    // One notification observer.
    let noteStore = makeStore(benchReducers, BenchState(todos: 10))
    let heard = Tally()
    counting_flag_store(0)
    let noteToken = noteStore.observeChanges(queue: queue) { note in
        heard.count += note.actions.count
        counting_flag_store(Int64(heard.count))
    }
    let notificationObserver = try countIsolatedIncrements(
        of: noteStore, heardBy: "the notification observer", repetitions)
    noteToken.cancel()

    // No observer: a last reducer raises the flag, so the wait ends once the action is reduced;
    // what the store does after that falls into the next step's count (the last step's is lost,
    // one part in `repetitions`).
    let bareStore = makeStore(
        benchReducers + [{ state, _ in counting_flag_store(Int64(state.counter)) }], BenchState(todos: 10))
    counting_flag_store(0)
    let noObserver = try countIsolatedIncrements(of: bareStore, heardBy: "the reducer", repetitions)

    let perDispatch = "per isolated dispatch (dispatch, wait until heard; mean of \(repetitions))"
    func exact(_ counts: DispatchCounts) -> String {
        "\(Table.format(counts.allocations)) allocations, \(Table.format(counts.mutexLocks)) mutex acquisitions"
    }
    return [
        Result(
            scenario: "23a one value observer on a queue: allocations \(perDispatch)", unit: "allocations",
            reduxswift: Summary([valueObserver.allocations]), baseline: Summary([hops.allocations]),
            baselineName: "two bare queue hops", ratio: nil, target: "≤ 8",
            meets: valueObserver.allocations <= 8),
        Result(
            scenario: "23b one value observer on a queue: mutex acquisitions \(perDispatch)", unit: "locks",
            reduxswift: Summary([valueObserver.mutexLocks]), baseline: Summary([hops.mutexLocks]),
            baselineName: "two bare queue hops", ratio: nil, target: "≤ 5",
            meets: valueObserver.mutexLocks <= 5),
        Result(
            scenario: "23c one observeChanges observer on a queue: allocations \(perDispatch)",
            unit: "allocations", reduxswift: Summary([notificationObserver.allocations]),
            baseline: Summary([hops.allocations]), baselineName: "two bare queue hops", ratio: nil,
            target: "no target; the notification is built for it", meets: true,
            note: exact(notificationObserver)),
        Result(
            scenario: "23d no observer: allocations \(perDispatch)", unit: "allocations",
            reduxswift: Summary([noObserver.allocations]), baseline: Summary([valueObserver.allocations]),
            baselineName: "one value observer", ratio: nil,
            target: "≤ one value observer's: nothing is built for nobody",
            meets: noObserver.allocations <= valueObserver.allocations,
            note: exact(noObserver) + "; the wait ends when the last reducer ran"),
        Result(
            scenario:
                "23e one value observer on a queue, bursts of \(burstLength) dispatches: allocations per dispatch",
            unit: "allocations", reduxswift: Summary([inBursts.allocations]),
            baseline: Summary([valueObserver.allocations]), baselineName: "one isolated dispatch", ratio: nil,
            target: "no target; to compare builds", meets: true, note: exact(inBursts)),
    ]
}

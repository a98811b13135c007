import Foundation
import ReduxSwift

/// One stress run: three stores, worker threads that mix the enabled features, and the checks of
/// everything they did against the model.
final class StressRun: @unchecked Sendable {
    // `@unchecked Sendable`: the `let`s are immutable or thread-safe themselves; `deadline` is set
    // before any worker starts and only read afterwards.
    let features: Set<StressFeature>
    let configuration: StressConfiguration
    let violations = StressViolations()
    let center = StoreNotificationCenter()
    let stores: [Store<StressState>]
    let logs: [AnnouncementLog]
    let expected: [ExpectedCommits]
    let history: StoreHistory<StressState>?
    let status: WorkerStatus
    let workerCount = 4
    /// Middleware resumptions (`nextLater`) still to run.
    let laterWork = DispatchGroup()
    /// Async actions started, and those whose `finished()` returned, by where they were dispatched.
    let asyncStarted = Recorder<String>()
    let asyncFinished = Recorder<String>()
    let loops = Recorder<SequenceLoop>()
    let recorded = Recorder<BumpID>()
    let relayBudget = Countdown(400)
    let lockGates: [NSLock] = [NSLock(), NSLock(), NSLock()]
    let workersDone = Gate()
    private var deadline = Date.distantFuture

    init(features: Set<StressFeature>, configuration: StressConfiguration) {
        self.features = features
        self.configuration = configuration
        status = WorkerStatus(count: 8)
        var stores: [Store<StressState>] = []
        for index in 0..<3 {
            let handle = StressStoreHandle()
            var middleware: [Middleware<StressState>] = []
            if features.contains(.asyncActions) { middleware.append(.asyncActions()) }
            if features.contains(.middleware) { middleware.append(Self.middleware(laterWork)) }
            let store = Store(
                reducers: [stressReducer(storeIndex: index, handle: handle, violations: violations)],
                state: StressState(), middleware: middleware, notificationCenter: center)
            handle.store = store
            stores.append(store)
        }
        self.stores = stores
        logs = stores.map { AnnouncementLog(store: $0) }
        expected = stores.map { _ in ExpectedCommits() }
        // The history's middleware comes last, so it records what the reducers commit.
        history =
            features.contains(.history)
            ? stores[0].recordHistory(limit: HistoryLimit(steps: 1 << 20, actions: 1 << 30)) : nil
    }

    /// Drops `.drop`, replaces `.transformMe`, and passes `.later` on from another thread.
    static func middleware(_ laterWork: DispatchGroup) -> Middleware<StressState> {
        Middleware("stress") { action, context in
            guard let bump = action as? Bump else {
                context.next(action)
                return
            }
            switch bump.kind {
            case .drop:
                return
            case .transformMe:
                var replaced = bump
                replaced.kind = .transformed
                context.next(replaced)
            case .later:
                let next = context.nextLater()
                laterWork.enter()
                DispatchQueue.global().async {
                    next(bump)
                    laterWork.leave()
                }
            default:
                context.next(action)
            }
        }
    }

    func totalOnlyGrows(_ storeIndex: Int) -> Bool {
        !(storeIndex == 0 && history != nil)
    }

    // MARK: Running

    /// Runs every phase under the watchdog; returns the report of what went wrong, or `nil`.
    func run() -> String? {
        deadline = Date(timeIntervalSinceNow: configuration.seconds)
        let limit = configuration.watchdogSeconds
        let relayTokens = Recorder<ObserverToken>()
        let finished =
            phase("installing relays", timeout: limit) {
                if self.features.contains(.relays) {
                    for token in self.installRelays() { relayTokens.append(token) }
                }
            }
            && phase("workers", timeout: configuration.seconds + limit) { self.runThreads() }
            && phase("settling", timeout: limit) { self.settle() }
            && phase("final checks", timeout: limit) { self.checkFinalStates() }
        if finished {
            for token in relayTokens.values { token.cancel() }
            checkSequenceLoops()
        }
        if violations.isEmpty { return nil }
        return violations.report
    }

    /// Runs `body` on a thread of its own and waits for it at most `timeout` seconds; a phase that
    /// does not finish is reported with what each worker was doing, and left behind.
    private func phase(_ name: String, timeout: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
        let done = Gate()
        status.set(7, "phase \(name)")
        Thread {
            body()
            done.open()
        }.start()
        if done.wait(timeout: timeout) { return true }
        violations.record(
            "deadlock", "phase \"\(name)\" did not finish within \(timeout) s; threads: \(status.describe())")
        return false
    }

    private func runThreads() {
        let threads = DispatchGroup()
        func spawn(_ body: @escaping @Sendable () -> Void) {
            threads.enter()
            Thread {
                body()
                threads.leave()
            }.start()
        }
        for index in 0..<workerCount { spawn { self.runWorker(index) } }
        spawn { self.runReader(status: 4) }
        if features.contains(.observers) {
            let handoff = Handoff<LiveObserver>()
            spawn { self.runObserverChurn(handoff, status: 5) }
            spawn { self.runCanceller(handoff, status: 6) }
        }
        // The reader and the observer threads stop when the workers have.
        threads.wait()
    }

    private func keepGoing(_ performed: Int) -> Bool {
        if let iterations = configuration.iterations { return performed < iterations }
        return Date() < deadline
    }

    // MARK: Workers

    private func runWorker(_ index: Int) {
        var worker = StressWorker(run: self, index: index, seed: configuration.seed)
        var performed = 0
        while keepGoing(performed) {
            worker.step()
            performed += 1
        }
        status.set(index, "done")
        workersLeft.decrement()
        if workersLeft.value == 0 { workersDone.open() }
    }

    private let workersLeft = Countdown(4)

    private func runReader(status slot: Int) {
        var random = StressRandom(seed: configuration.seed, stream: 100)
        var last = [0, 0, 0]
        while !workersDone.wait(timeout: 0) {
            let index = Int.random(in: 0..<3, using: &random)
            let state: StressState
            if random.chance(0.3) {
                status.set(slot, "snapshot() of store \(index)")
                do {
                    state = try stores[index].snapshot()
                } catch {
                    violations.record("reads", "snapshot() threw \(error)")
                    continue
                }
            } else {
                status.set(slot, "currentState() of store \(index)")
                state = stores[index].currentState()
            }
            if state.total >= failedActionMark {
                violations.record(
                    "reads", "a read of store \(index) saw the partial change of a failed action")
            }
            if totalOnlyGrows(index) && state.total < last[index] {
                violations.record(
                    "reads", "a read of store \(index) went back from \(last[index]) to \(state.total)")
            }
            last[index] = state.total
        }
        status.set(slot, "reader done")
    }

    private func runObserverChurn(_ handoff: Handoff<LiveObserver>, status slot: Int) {
        var random = StressRandom(seed: configuration.seed, stream: 200)
        while !workersDone.wait(timeout: 0) {
            let index = Int.random(in: 0..<3, using: &random)
            let kind = StressObserverKind.allCases.randomElement(using: &random)!
            status.set(slot, "adding a \(kind) observer to store \(index)")
            let observer = addStressObserver(
                kind, to: stores[index], storeIndex: index, totalOnlyGrows: totalOnlyGrows(index),
                violations: violations, loops: loops)
            handoff.put(observer)
        }
        handoff.close()
        status.set(slot, "observer churn done")
    }

    /// Cancels the observers the churn thread adds, from another thread, a few at a time.
    private func runCanceller(_ handoff: Handoff<LiveObserver>, status slot: Int) {
        var random = StressRandom(seed: configuration.seed, stream: 300)
        while let observers = handoff.take(keeping: Int.random(in: 0..<6, using: &random)) {
            for observer in observers {
                status.set(
                    slot, "cancelling a \(observer.probe.kind) observer of store \(observer.probe.storeIndex)"
                )
                observer.cancel()
            }
        }
        status.set(slot, "canceller done")
    }

    /// Observers that post `.stateDidChange` for their own store from their block (relays).
    private func installRelays() -> [ObserverToken] {
        var tokens: [ObserverToken] = []
        for store in stores {
            let post: @Sendable () -> Void = { [weak store, relayBudget] in
                guard let store, relayBudget.take() else { return }
                store.notificationCenter.post(StoreNotification(name: .stateDidChange, object: store))
            }
            tokens.append(
                store.observeChanges { notification in if !notification.actions.isEmpty { post() } })
            tokens.append(store.observe(\.total) { _ in post() })
            tokens.append(store.observe({ TotalReading(total: $0.total) }) { _ in post() })
        }
        return tokens
    }

    // MARK: Settling and checking

    /// Waits for the work that outlives the workers: middleware resumptions and async actions.
    private func settle() {
        status.set(7, "waiting for nextLater resumptions")
        if laterWork.wait(timeout: .now() + 20) == .timedOut {
            violations.record(
                "middleware", "an action passed to nextLater() was still not passed on after 20 s")
        }
        status.set(7, "waiting for async actions to finish")
        let started = asyncStarted.count
        if !asyncFinished.wait(forCount: started, timeout: 10) {
            var missing: [String: Int] = [:]
            for place in asyncStarted.values { missing[place, default: 0] += 1 }
            for place in asyncFinished.values { missing[place, default: 0] -= 1 }
            violations.record(
                "async actions",
                "finished() never returned for async actions dispatched \(missing.filter { $0.value > 0 })")
        }
    }

    private func checkFinalStates() {
        for (index, store) in stores.enumerated() {
            let expectedBumps = expected[index].values
            status.set(7, "waiting for store \(index) to announce its expected actions")
            logs[index].wait(forAll: expectedBumps.keys, timeout: 10)
            status.set(7, "final currentState() of store \(index)")
            let state = store.currentState()
            status.set(7, "checking store \(index)")
            let recordsHistory = index == 0 && history != nil
            // The notification of the last change may still be on its way.
            logs[index].wait(timeout: 5) { items in
                var model = ModelStore(recordsHistory: recordsHistory)
                for item in items { _ = model.apply(item) }
                return model.state == state
            }
            check(store: index, state: state, expectedBumps: expectedBumps, recordsHistory: recordsHistory)
        }
        let announced = Set(
            logs.flatMap { log in
                log.values.flatMap { item -> [BumpID] in
                    if case .bumps(let bumps) = item { return bumps.map(\.id) }
                    return []
                }
            })
        let phantoms = recorded.values.filter { !announced.contains($0) }
        if !phantoms.isEmpty {
            violations.record(
                "recordings", "recordings hold actions no store announced: \(phantoms.prefix(5))")
        }
    }

    private func check(
        store index: Int, state: StressState, expectedBumps: [BumpID: Bump], recordsHistory: Bool
    ) {
        let items = logs[index].values
        var model = ModelStore(recordsHistory: recordsHistory)
        var announcedCount: [BumpID: Int] = [:]
        // Per worker and stream: transactions pass dispatch locks (see `Bump.Channel`).
        var lastOrdered: [Int: Int] = [:]
        func stream(_ bump: Bump) -> Int {
            bump.channel == .transaction && features.contains(.locks) ? -1 - bump.origin : bump.origin
        }
        for item in items {
            if let problem = model.apply(item) {
                violations.record("announcements", "store \(index): \(problem)")
            }
            guard case .bumps(let bumps) = item else { continue }
            for bump in bumps {
                announcedCount[bump.id, default: 0] += 1
                guard bump.channel != .unordered else { continue }
                if let last = lastOrdered[stream(bump)], last >= bump.seq {
                    violations.record(
                        "order",
                        "store \(index): worker \(bump.origin)'s action \(bump.seq) was announced after \(last)"
                    )
                }
                lastOrdered[stream(bump)] = bump.seq
            }
        }
        for (id, count) in announcedCount where count > 1 {
            violations.record(
                "exactly once",
                "store \(index): \(id) (\(expectedBumps[id]?.kind.rawValue ?? "?")) announced \(count) times")
        }
        let missing = expectedBumps.values.filter { announcedCount[$0.id] == nil }
        if !missing.isEmpty {
            violations.record(
                "lost",
                "store \(index): \(missing.count) committed actions never announced, kinds \(Self.kinds(missing))"
            )
        }
        let extra = announcedCount.keys.filter { expectedBumps[$0] == nil }
        if !extra.isEmpty {
            violations.record(
                "extra",
                "store \(index): \(extra.count) announced actions were never expected: \(extra.sorted().prefix(5))"
            )
        }
        if model.state != state {
            violations.record(
                "state",
                "store \(index): the final state (total \(state.total)) is not the one its announcements lead to (total \(model.state.total))"
            )
        }
        if !recordsHistory {
            var fromDispatches = StressState()
            for bump in expectedBumps.values.sorted(by: { $0.id < $1.id }) { fromDispatches.count(bump) }
            if fromDispatches != state {
                violations.record(
                    "state",
                    "store \(index): the final state (total \(state.total)) is not what was committed (total \(fromDispatches.total)); differing counters: \(Self.difference(fromDispatches.counts, state.counts))"
                )
            }
        }
    }

    private func checkSequenceLoops() {
        let loops = self.loops.values
        // A loop ends on a thread of the cooperative pool, which other tests running beside this
        // one can keep busy for seconds (under the thread sanitizer, on two cores): allow most of
        // the phase's watchdog time before calling a loop stuck.
        let deadline = Date(timeIntervalSinceNow: 25)
        let ended = loops.filter { $0.ended.wait(timeout: max(0, deadline.timeIntervalSinceNow)) }
        if ended.count < loops.count {
            violations.record(
                "async sequences",
                "\(loops.count - ended.count) loops did not end after their task was cancelled")
        }
        // A notifications() loop gets every notification after it started, in order: what it
        // received is a subsequence of what the store announced.
        let positions = logs.map { log -> [BumpID: Int] in
            var positions: [BumpID: Int] = [:]
            var next = 0
            for case .bumps(let bumps) in log.values {
                for bump in bumps {
                    positions[bump.id] = next
                    next += 1
                }
            }
            return positions
        }
        for loop in loops where loop.kind == .notifications {
            var last = -1
            for id in loop.received.values {
                let position = positions.lazy.compactMap { $0[id] }.first ?? -1
                if position <= last {
                    violations.record(
                        "async sequences", "notifications() delivered \(id) out of order or twice")
                    break
                }
                last = position
            }
        }
    }

    static func kinds(_ bumps: some Sequence<Bump>) -> [String: Int] {
        var kinds: [String: Int] = [:]
        for bump in bumps { kinds[bump.kind.rawValue, default: 0] += 1 }
        return kinds
    }

    static func difference(_ expected: [String: Int], _ actual: [String: Int]) -> String {
        Set(expected.keys).union(actual.keys).sorted().compactMap { key in
            expected[key] == actual[key]
                ? nil : "\(key): \(actual[key] ?? 0) instead of \(expected[key] ?? 0)"
        }.prefix(6).joined(separator: ", ")
    }
}

/// What each thread of a run is doing, for the watchdog's report.
final class WorkerStatus: @unchecked Sendable {
    // `@unchecked Sendable`: `slots` is only touched while `lock` is held.
    private let lock = NSLock()
    private var slots: [String]

    init(count: Int) {
        slots = Array(repeating: "not started", count: count)
    }

    func set(_ slot: Int, _ text: @autoclosure () -> String) {
        let text = text()
        lock.withLock { slots[slot] = text }
    }

    func describe() -> String {
        lock.withLock { slots.enumerated().map { "#\($0.offset): \($0.element)" }.joined(separator: "; ") }
    }
}

/// A counter shared by threads.
final class Countdown: @unchecked Sendable {
    // `@unchecked Sendable`: `remaining` is only touched while `lock` is held.
    private let lock = NSLock()
    private var remaining: Int

    init(_ value: Int) {
        remaining = value
    }

    var value: Int { lock.withLock { remaining } }

    func decrement() {
        lock.withLock { remaining -= 1 }
    }

    /// Takes one unit if any is left.
    func take() -> Bool {
        lock.withLock {
            guard remaining > 0 else { return false }
            remaining -= 1
            return true
        }
    }
}

/// Passes items from one thread to another, oldest first.
final class Handoff<Item: Sendable>: @unchecked Sendable {
    // `@unchecked Sendable`: `items` and `closed` are only touched while `condition` is locked.
    private let condition = NSCondition()
    private var items: [Item] = []
    private var closed = false

    func put(_ item: Item) {
        condition.lock()
        items.append(item)
        condition.broadcast()
        condition.unlock()
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until more than `keeping` items are waiting and returns the oldest beyond that many,
    /// or, once closed, all of them; `nil` when closed and empty.
    func take(keeping: Int) -> [Item]? {
        condition.lock()
        defer { condition.unlock() }
        while items.count <= keeping && !closed {
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
        if closed {
            if items.isEmpty { return nil }
            defer { items.removeAll() }
            return items
        }
        let taken = Array(items.prefix(items.count - keeping))
        items.removeFirst(taken.count)
        return taken
    }
}

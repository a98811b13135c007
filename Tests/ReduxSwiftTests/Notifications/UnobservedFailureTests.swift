import Foundation
import Testing

@testable import ReduxSwift

enum Probe: ActionProtocol {
    case ok
    case bad
    case worse
}

enum OtherProbe: ActionProtocol {
    case bad
}

struct Rejection: Error {
    let reason: String
}

/// Failures that no observer hears are reported as runtime warnings.
@Suite(.offThePool) struct UnobservedFailureTests {
    /// A store whose reducer counts `Probe.ok` and rejects the other probes with `marker`.
    func makeProbeStore(marker: String, center: StoreNotificationCenter = StoreNotificationCenter())
        -> Store<TestState>
    {
        let probe: Reducer<TestState> = { state, action in
            switch action {
            case Probe.ok: state.counter += 1
            case Probe.bad, Probe.worse, OtherProbe.bad:
                state.counter += 1000
                throw Rejection(reason: marker)
            default: break
            }
        }
        return makeStore([probe, testReducer], center: center)
    }

    /// Records the runtime warnings that mention `marker` until `body` returns.
    func warnings(mentioning marker: String, _ body: (Recorder<String>) throws -> Void) rethrows {
        let warnings = Recorder<String>()
        let listener = RuntimeWarning.addListener { message in
            if message.contains(marker) { warnings.append(message) }
        }
        defer { RuntimeWarning.removeListener(listener) }
        try body(warnings)
    }

    /// Returns once the store has delivered everything dispatched before: a warning comes from the
    /// delivery of its failure, before the delivery of later changes.
    func settle(_ store: Store<TestState>) {
        let mark = UUID().uuidString
        let (appends, token) = recordAppends(announcedBy: store)
        store.dispatch(TestAction.append(mark))
        #expect(appends.wait { $0.contains(mark) })
        withExtendedLifetime(token) {}
    }

    @Test func aFailureNothingObservesIsReportedOncePerActionNamingTheError() {
        let marker = UUID().uuidString
        let store = makeProbeStore(marker: marker)
        warnings(mentioning: marker) { warnings in
            store.dispatch(Probe.bad)
            store.dispatch(Probe.bad)  // the same action: not reported again
            settle(store)
            #expect(
                warnings.values == [
                    "Probe.bad failed; the state is as it was before it. It threw ReduxSwiftTests.Rejection: "
                        + "Rejection(reason: \"\(marker)\"). Nothing observes this store's failures: observe them "
                        + "with observeFailures(queue:using:) (only the first failure of each action is "
                        + "reported here)."
                ])
            // Another case of the same enum is another action, as is an action of another type.
            store.dispatch(Probe.worse)
            store.dispatch(OtherProbe.bad)
            store.dispatch(Probe.worse)
            settle(store)
            #expect(warnings.count == 3)
            #expect(
                warnings.values.dropFirst().map { $0.prefix(16) } == ["Probe.worse fail", "OtherProbe.bad f"])
        }
        #expect(store.currentState().counter == 0)
    }

    @Test func identifiersThatHoldDataAreReportedOncePerTypePastTheLimit() {
        struct Tagged: ActionProtocol {
            let tag: Int
            var identifier: String { "Tagged \(tag)" }
        }
        let marker = UUID().uuidString
        let reject: Reducer<TestState> = { _, action in
            if action is Tagged { throw Rejection(reason: marker) }
        }
        let store = makeStore([reject, testReducer])
        warnings(mentioning: marker) { warnings in
            for tag in 0..<(StoreKernel.reportedKindLimit + 40) { store.dispatch(Tagged(tag: tag)) }
            settle(store)
            #expect(warnings.count == StoreKernel.reportedKindLimit + 1)
        }
    }

    @Test func aFailureInABatchNamesTheActionThatFailedAndTheBatch() {
        let marker = UUID().uuidString
        let store = makeProbeStore(marker: marker)
        warnings(mentioning: marker) { warnings in
            var actions: [any ActionProtocol] = Array(repeating: Probe.ok, count: 998)
            actions.insert(Probe.bad, at: 500)
            store.dispatch(batch: actions + [ActionBatch([Probe.ok])])
            settle(store)
            #expect(warnings.count == 1)
            #expect(
                warnings.values.first?.hasPrefix(
                    "Probe.bad failed in a batch of 1000 actions, so the whole batch was rolled back. "
                        + "It threw ReduxSwiftTests.Rejection") == true)
            // The failing action's type is what is reported once: alone, it is not reported again.
            store.dispatch(Probe.bad)
            settle(store)
            #expect(warnings.count == 1)
        }
        #expect(store.currentState().counter == 0)
    }

    @Test func anObserverOfTheStoresFailuresSilencesTheReportUntilItIsCancelled() {
        let marker = UUID().uuidString
        let store = makeProbeStore(marker: marker)
        let failures = Recorder<StoreNotification>()
        let token = store.observeFailures { failures.append($0) }
        warnings(mentioning: marker) { warnings in
            store.dispatch(Probe.bad)
            settle(store)
            #expect(failures.count == 1)
            #expect(warnings.count == 0, "the app heard it")
            token.cancel()
            store.dispatch(Probe.bad)
            settle(store)
            #expect(warnings.count == 1)
        }
    }

    struct PriceThatCannotRoundTrip: StateProtocol {
        var price: Decimal = 0
    }

    @Test func aStateThatCannotRoundTripIsReportedOnlyWhenNothingObservesTheFailures() async throws {
        let setNaN: Reducer<PriceThatCannotRoundTrip> = { state, _ in state.price = Decimal.nan }
        let heard = LockedBox<[String]>([])
        let listener = RuntimeWarning.addListener { message in
            if message.contains("PriceThatCannotRoundTrip") { heard.update { $0.append(message) } }
        }
        defer { RuntimeWarning.removeListener(listener) }
        let observed = Store(
            reducers: [setNaN], state: PriceThatCannotRoundTrip(),
            notificationCenter: StoreNotificationCenter())
        let failures = Recorder<StoreNotification>()
        let token = observed.observeFailures { failures.append($0) }
        observed.dispatch(Probe.ok)
        _ = observed.currentState()
        try await observed.waitUntilIdle(timeout: 60)
        #expect(failures.values.first?.error is SnapshotError)
        #expect(heard.value == [], "the app heard it")
        let unobserved = Store(
            reducers: [setNaN], state: PriceThatCannotRoundTrip(),
            notificationCenter: StoreNotificationCenter())
        unobserved.dispatch(Probe.ok)
        _ = unobserved.currentState()
        try await unobserved.waitUntilIdle(timeout: 60)
        #expect(heard.value.count == 1)
        withExtendedLifetime(token) {}
    }

    struct PriceHeardThenUnheard: StateProtocol {
        var value: Decimal = 0
    }

    enum SetPrice: ActionProtocol { case to(Decimal) }

    @Test func aStateThatCannotRoundTripNobodyHearsIsReportedAfterOneThatWasHeard() async throws {
        let reducer: Reducer<PriceHeardThenUnheard> = { state, action in
            if case .to(let value)? = action as? SetPrice { state.value = value }
        }
        let heard = LockedBox<[String]>([])
        let listener = RuntimeWarning.addListener { message in
            if message.contains("PriceHeardThenUnheard") { heard.update { $0.append(message) } }
        }
        defer { RuntimeWarning.removeListener(listener) }
        let store = Store(
            reducers: [reducer], state: PriceHeardThenUnheard(), notificationCenter: StoreNotificationCenter()
        )
        let failures = Recorder<StoreNotification>()
        let token = store.observeFailures { failures.append($0) }
        store.dispatch(SetPrice.to(Decimal.nan))
        _ = store.currentState()
        #expect(await failures.waitOffThePool { $0.count >= 1 })
        try await store.waitUntilIdle(timeout: 60)
        token.cancel()
        store.dispatch(SetPrice.to(1))
        _ = store.currentState()
        store.dispatch(SetPrice.to(Decimal.nan))
        _ = store.currentState()
        try await store.waitUntilIdle(timeout: 60)
        #expect(heard.value.count == 1, "the second stretch, unheard, is reported")
    }

    @Test func aFailureWhoseQueuedDeliveryACancelDropsIsReported() {
        let marker = UUID().uuidString
        let store = makeProbeStore(marker: marker)
        let queue = DispatchQueue(label: "UnobservedFailureTests.observer")
        let heard = Recorder<StoreNotification>()
        warnings(mentioning: marker) { warnings in
            // Delivered on its queue: heard.
            let delivered = store.observeFailures(queue: queue) { heard.append($0) }
            store.dispatch(Probe.bad)
            #expect(heard.wait(forCount: 1))
            delivered.cancel()
            #expect(warnings.count == 0, "the app heard it")

            // Queued behind a block that waits, then dropped by the cancel: nothing heard it.
            let busy = Gate()
            let running = Gate()
            queue.async {
                running.open()
                busy.wait()
            }
            #expect(running.wait())
            let dropped = store.observeFailures(queue: queue) { heard.append($0) }
            store.dispatch(Probe.bad)
            settle(store)
            dropped.cancel()
            busy.open()
            queue.sync {}
            #expect(heard.count == 1)
            #expect(warnings.count == 1, "the cancel dropped the delivery: nothing heard it")
            #expect(warnings.values.last?.hasPrefix("Probe.bad failed;") == true)
        }
    }

    /// Many stores fail while observers of every store's failures are added and cancelled on
    /// another thread, on the delivery thread or on a queue: each failure is heard by a block or
    /// reported, never lost between the post and a cancel.
    @Test func failuresRacingObserversThatAreCancelledAreEachHeardOrReported() {
        let marker = UUID().uuidString
        let center = StoreNotificationCenter()
        let queue = DispatchQueue(label: "UnobservedFailureTests.racing")
        let heard = Recorder<String>()
        warnings(mentioning: marker) { warnings in
            let stop = LockedFlag()
            let churned = LockedCounter()
            let churning = Gate()
            let churn = onNewThread {
                var onQueue = false
                while !stop.isSet {
                    // The queue runs what it gets only after the cancel, so most of what the
                    // observer gets there waits for it when the cancel drops it.
                    let held = Gate()
                    if onQueue { queue.async { held.wait() } }
                    let token = center.addObserver(
                        forName: .dispatchDidFail, object: nil, queue: onQueue ? queue : nil
                    ) { notification in
                        if let rejection = notification.error as? Rejection { heard.append(rejection.reason) }
                    }
                    for _ in 0..<(churned.value % 7) * 8 { sched_yield() }
                    token.cancel()
                    held.open()
                    churned.increment()
                    churning.open()
                    onQueue.toggle()
                }
            }
            #expect(churning.wait())
            var stores: [Store<TestState>] = []
            for round in 0..<400 {
                let store = makeProbeStore(marker: "\(marker)-\(round)", center: center)
                store.dispatch(Probe.bad)
                stores.append(store)
                if round % 16 == 15 { settle(store) }
            }
            for store in stores { settle(store) }
            stop.set()
            #expect(churn.wait())
            queue.sync {}
            let heardRounds = Set(heard.values)
            let reported = warnings.values
            let wasReported = (0..<400).map { round in
                reported.contains { $0.contains("\"\(marker)-\(round)\"") }
            }
            let lost = (0..<400).filter { !heardRounds.contains("\(marker)-\($0)") && !wasReported[$0] }
            let heardAndReported = (0..<400).filter {
                heardRounds.contains("\(marker)-\($0)") && wasReported[$0]
            }
            #expect(lost == [], "neither heard nor reported")
            #expect(heardAndReported == [], "reported although heard")
            #expect(reported.count == wasReported.count { $0 }, "each store reports its failure once")
            #expect(churned.value > 1)
        }
    }

    @Test func anyObserverThatHearsTheFailureCountsAndOnlySuch() async throws {
        let marker = UUID().uuidString
        let center = StoreNotificationCenter()
        let store = makeProbeStore(marker: marker, center: center)
        let other = makeStore(center: center)
        let warnings = Recorder<String>()
        let listener = RuntimeWarning.addListener { message in
            if message.contains(marker) { warnings.append(message) }
        }
        defer { RuntimeWarning.removeListener(listener) }

        // Every store's failures, then every notification of this store.
        let everyStore = center.addObserver(forName: .dispatchDidFail, object: nil, queue: nil) { _ in }
        store.dispatch(Probe.bad)
        settle(store)
        everyStore.cancel()
        let everyName = center.addObserver(forName: nil, object: store, queue: nil) { _ in }
        store.dispatch(Probe.bad)
        settle(store)
        everyName.cancel()
        let everything = center.addObserver(forName: nil, object: nil, queue: nil) { _ in }
        store.dispatch(Probe.bad)
        settle(store)
        everything.cancel()
        // A stream of the store's failures, until it ends.
        do {
            let stream = store.notifications(named: .dispatchDidFail)
            store.dispatch(Probe.bad)
            var iterator = stream.makeAsyncIterator()
            #expect(await iterator.next()?.failedAction is Probe)
            try await store.waitUntilIdle(timeout: 60)
        }
        #expect(warnings.count == 0)

        // Observers that do not hear this store's failures: its changes, another store's failures.
        let changes = store.observeChanges { _ in }
        let otherFailures = other.observeFailures { _ in }
        store.dispatch(Probe.bad)
        try await store.waitUntilIdle(timeout: 60)
        #expect(warnings.count == 1)
        withExtendedLifetime((changes, otherFailures)) {}
    }

    @Test func eachStoreReportsItsOwnFirstFailure() {
        let marker = UUID().uuidString
        let first = makeProbeStore(marker: marker)
        let second = makeProbeStore(marker: marker)
        warnings(mentioning: marker) { warnings in
            first.dispatch(Probe.bad)
            settle(first)
            second.dispatch(Probe.bad)
            settle(second)
            #expect(warnings.count == 2)
        }
    }

    @Test func anAsyncActionWhoseWorkThrowsIsReportedByItsIdentifier() async throws {
        let marker = UUID().uuidString
        let store = Store(
            reducers: [testReducer], state: TestState(), middleware: [.asyncActions(dependencies: 0)],
            notificationCenter: StoreNotificationCenter())
        let warnings = Recorder<String>()
        let listener = RuntimeWarning.addListener { message in
            if message.contains(marker) { warnings.append(message) }
        }
        defer { RuntimeWarning.removeListener(listener) }
        func load(_ name: String) -> AsyncAction<TestState, Int> {
            AsyncAction("\(marker).\(name)") { _ in throw Rejection(reason: name) }
        }
        // Dispatched twice: reported where it is dispatched, and only there.
        let twice = AsyncAction<TestState, Int>("\(marker).twice") { _ in }
        store.dispatch(twice)
        store.dispatch(twice)
        store.dispatch(load("a"))
        try await store.waitUntilIdle(timeout: 60)
        store.dispatch(load("a"))  // the same identifier: reported once
        store.dispatch(load("b"))
        try await store.waitUntilIdle(timeout: 60)
        let reported = warnings.values
        #expect(reported.count == 3)
        #expect(
            reported.first == AsyncActionError(.alreadyStarted, identifier: "\(marker).twice").description)
        #expect(
            reported.dropFirst().sorted() == [
                "AsyncAction(\(marker).a) failed; the state is as it was before it. It threw "
                    + "ReduxSwiftTests.Rejection: Rejection(reason: \"a\"). Nothing observes this store's "
                    + "failures: observe them with observeFailures(queue:using:) (only the first failure of "
                    + "each action is reported here).",
                "AsyncAction(\(marker).b) failed; the state is as it was before it. It threw "
                    + "ReduxSwiftTests.Rejection: Rejection(reason: \"b\"). Nothing observes this store's "
                    + "failures: observe them with observeFailures(queue:using:) (only the first failure of "
                    + "each action is reported here).",
            ])
    }

    @Test func aMiddlewareThatThrowsIsReportedWithTheActionItDropped() {
        let marker = UUID().uuidString
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [
                Middleware("gate") { action, context in
                    if case .bad? = action as? Probe { throw Rejection(reason: marker) }
                    context.next(action)
                }
            ], notificationCenter: StoreNotificationCenter())
        warnings(mentioning: marker) { warnings in
            store.dispatch(Probe.bad)
            settle(store)
            #expect(warnings.values.count == 1)
            #expect(
                warnings.values.first?.hasPrefix("a middleware threw on Probe.bad, which was dropped.")
                    == true)
        }
    }

    @Test func aTransactionsFailureIsNotReportedSinceCommitThrowsIt() {
        let marker = UUID().uuidString
        let store = makeProbeStore(marker: marker)
        let other = makeStore()
        warnings(mentioning: marker) { warnings in
            var transaction = StoreTransaction()
            transaction.add(Probe.bad, to: store)
            transaction.add(TestAction.increment, to: other)
            #expect(throws: TransactionError.self) { try transaction.commit() }
            settle(store)
            #expect(warnings.count == 0, "commit() threw it to the code that committed")
            // The same action type failing outside a transaction is reported.
            store.dispatch(Probe.bad)
            settle(store)
            #expect(warnings.count == 1)
        }
        #expect(other.currentState().counter == 0)
    }

    @Test func aMoveToAStepTheHistoryDoesNotHaveIsReported() {
        let store = makeStore()
        let history = store.recordHistory()
        warnings(mentioning: "the history has no step 4") { warnings in
            history.jump(to: 4)
            settle(store)
            #expect(warnings.values.first?.hasPrefix("HistoryAction.jump failed;") == true)
        }
    }
}

import Foundation
import Testing

@testable import ReduxSwift

/// The bound on a store's queue: dispatchers that may wait do so once it is full, and no dispatch
/// ever waits where the store could be waiting for the dispatcher. Every scenario that could
/// deadlock runs under a watchdog: it must finish within `watchdog` seconds.
@Suite(.offThePool) struct BackPressureTests {
    /// Long enough for the slowest passing run (the thread sanitizer, beside the whole suite,
    /// made a 0.03-second scenario take over 10 seconds); a deadlock never finishes at all.
    static let watchdog: TimeInterval = 60
    /// A small high-water mark, so that a few dispatches fill the queue.
    static let highWaterMark = 4

    /// Runs `body` on a thread of its own and returns whether it finished before the watchdog.
    func finishes(_ body: @escaping @Sendable () -> Void) -> Bool {
        let done = Gate()
        Thread {
            body()
            done.open()
        }.start()
        return done.wait(timeout: Self.watchdog)
    }

    /// Waits until `condition` holds, checking it every millisecond, or until the watchdog.
    func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: Self.watchdog)
        while !condition() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return true
    }

    func makeBoundedStore(_ reducers: [Reducer<TestState>] = [testReducer]) -> Store<TestState> {
        let store = makeStore(reducers)
        store.kernel.setHighWaterMark(Self.highWaterMark)
        return store
    }

    /// A reducer that blocks on `.append(marker)` until `release` opens (or 20 seconds pass), after
    /// opening `entered`.
    func blockingReducer(on marker: String, entered: Gate, release: Gate) -> Reducer<TestState> {
        { _, action in
            if case .append(let entry)? = action as? TestAction, entry == marker {
                entered.open()
                release.wait()
            }
        }
    }

    // MARK: Memory

    @Test func theQueueBufferOfABurstIsReleasedWhenTheDrainFinishesWithoutAnotherDispatch() throws {
        let store = makeStore()
        let lock = store.lock("burst")
        // Held by the lock, so that the drain takes all of them in one pass.
        for _ in 0..<20_000 { store.dispatch(TestAction.increment) }
        try lock.release()
        #expect(store.currentState().counter == 20_000)
        #expect(store.kernel.inspect(\.pendingCapacity) <= StoreKernel.Machine.retainedCapacity)
    }

    @Test func theQueueStaysBoundedWhileSeveralThreadsFloodABlockedReducer() {
        let entered = Gate()
        let release = Gate()
        let store = makeBoundedStore([
            blockingReducer(on: "block", entered: entered, release: release), testReducer,
        ])
        store.dispatch(TestAction.append("block"))
        #expect(entered.wait())
        let threads = 4
        let perThread = 50
        let dispatchers = DispatchGroup()
        for _ in 0..<threads {
            dispatchers.enter()
            Thread {
                for _ in 0..<perThread { store.dispatch(TestAction.increment) }
                dispatchers.leave()
            }.start()
        }
        // Every thread ends up waiting: the queue is full and the reducer does not take it.
        #expect(eventually { store.kernel.inspect(\.blockedDispatcherCount) == threads })
        #expect(dispatchers.wait(timeout: .now()) == .timedOut)
        // The blocked action, then at most one entry per thread past the mark.
        #expect(
            store.kernel.inspect { Int($0.enqueuedCount - $0.processedCount) } <= 1 + Self.highWaterMark
                + threads)
        release.open()
        #expect(dispatchers.wait(timeout: .now() + Self.watchdog) == .success)
        #expect(store.currentState().counter == threads * perThread)
        #expect(store.kernel.inspect { Int($0.enqueuedCount - $0.processedCount) } == 0)
    }

    // MARK: Dispatches that never wait

    @Test func aReducerThatDispatchesManyActionsNeverWaits() throws {
        let handle = StoreHandle()
        let fanOut: Reducer<TestState> = { _, action in
            guard case .append("fan out")? = action as? TestAction else { return }
            for _ in 0..<100 { handle.store.dispatch(TestAction.increment) }
        }
        let store = makeBoundedStore([fanOut, testReducer])
        handle.store = store
        try #require(
            finishes {
                store.dispatch(TestAction.append("fan out"))
                _ = store.currentState()
            })
        #expect(eventually { store.currentState().counter == 100 })
    }

    @Test func aMiddlewareThatDispatchesManyActionsNeverWaits() throws {
        let fanOut = Middleware<TestState>("fan out") { action, context in
            if case .append("fan out")? = action as? TestAction {
                for _ in 0..<100 { context.dispatch(TestAction.increment) }
            }
            context.next(action)
        }
        let store = Store(
            reducers: [testReducer], state: TestState(), middleware: [fanOut],
            notificationCenter: StoreNotificationCenter())
        store.kernel.setHighWaterMark(Self.highWaterMark)
        try #require(
            finishes {
                store.dispatch(TestAction.append("fan out"))
                _ = store.currentState()
            })
        #expect(eventually { store.currentState().counter == 100 })
    }

    @Test func anObserverOnTheDeliveryThreadNeverWaitsEvenWhenTheReducerWaitsForIt() throws {
        let entered = Gate()
        let release = Gate()
        let observing = Gate()
        let store = makeBoundedStore([
            blockingReducer(on: "block", entered: entered, release: release), testReducer,
        ])
        let history = store.recordHistory()
        let token = store.observeChanges { note in
            guard note.actions.contains(where: { ($0 as? TestAction) == .append("first") }) else { return }
            observing.open()
            // The reducer below waits for this observer: a dispatch here that waited for room would
            // wait for itself.
            entered.wait()
            for _ in 0..<50 { store.dispatch(TestAction.increment) }
            history.undo()
            release.open()
        }
        defer { token.cancel() }
        try #require(
            finishes {
                store.dispatch(TestAction.append("first"))
                observing.wait()
                store.dispatch(TestAction.append("block"))
                release.wait()
                _ = store.currentState()
            })
        // The undo takes back the last increment.
        #expect(eventually { store.currentState().counter == 49 })
    }

    @Test func aReducerOfAnotherStoreNeverWaitsForRoomInAFullStore() throws {
        let entered = Gate()
        let release = Gate()
        let target = makeBoundedStore([
            blockingReducer(on: "block", entered: entered, release: release), testReducer,
        ])
        // The source's first action fills the target while the target's reducer waits for the
        // source's second action.
        let source = makeBoundedStore([
            { _, action in
                switch action as? TestAction {
                case .append("flood")?: for _ in 0..<100 { target.dispatch(TestAction.increment) }
                case .append("release")?: release.open()
                default: break
                }
            }
        ])
        target.dispatch(TestAction.append("block"))
        #expect(entered.wait())
        try #require(
            finishes {
                source.dispatch(TestAction.append("flood"))
                source.dispatch(TestAction.append("release"))
                release.wait()
                _ = source.currentState()
                _ = target.currentState()
            })
        #expect(eventually { target.currentState().counter == 100 })
    }

    @Test func anEncodeThatDispatchesNeverWaits() throws {
        let store = Store(
            reducers: [{ state, action in if action is TestAction { state.counter += 1 } }],
            state: DispatchingOnEncode(), notificationCenter: StoreNotificationCenter())
        store.kernel.setHighWaterMark(Self.highWaterMark)
        let hook = DispatchingOnEncode.hook
        hook.set { for _ in 0..<50 { store.dispatch(TestAction.increment) } }
        store.dispatch(TestAction.increment)
        // The read encodes the state, which dispatches 50 increments while the reader holds it.
        try #require(finishes { _ = store.currentState() })
        hook.set(nil)
        #expect(eventually { store.currentState().counter == 51 })
    }

    @Test func aThreadHoldingADispatchLockNeverWaitsAndCanCommitATransaction() throws {
        let store = makeBoundedStore()
        let lock = store.lock("held")
        try #require(
            finishes {
                for _ in 0..<100 { store.dispatch(TestAction.increment) }
                for _ in 0..<100 { lock.dispatch(TestAction.add(2)) }
                var transaction = StoreTransaction()
                transaction.add(TestAction.add(1000), to: store)
                try? transaction.commit()
            })
        #expect(store.currentState().counter == 1200)
        try lock.release()
        #expect(store.currentState().counter == 1300)
    }

    @Test func aDispatcherWaitingForRoomReturnsWhenALockPausesTheStore() throws {
        let entered = Gate()
        let release = Gate()
        let store = makeBoundedStore([
            blockingReducer(on: "block", entered: entered, release: release), testReducer,
        ])
        store.dispatch(TestAction.append("block"))
        #expect(entered.wait())
        let dispatcher = DispatchGroup()
        dispatcher.enter()
        Thread {
            for _ in 0..<100 { store.dispatch(TestAction.increment) }
            dispatcher.leave()
        }.start()
        #expect(eventually { store.kernel.inspect(\.blockedDispatcherCount) == 1 })
        // The entries it waits on are still reduced; what it dispatches from now on is held.
        let lock = store.lock("pause")
        release.open()
        #expect(dispatcher.wait(timeout: .now() + Self.watchdog) == .success)
        try lock.release()
        #expect(store.currentState().counter == 100)
    }

    @Test func aHistoryUndoFromAFloodingThreadFinishes() throws {
        let store = makeBoundedStore()
        let history = store.recordHistory(limit: HistoryLimit(steps: 1_000, actions: 10_000))
        try #require(
            finishes {
                for _ in 0..<200 { store.dispatch(TestAction.increment) }
                for _ in 0..<50 { history.undo() }
            })
        #expect(store.currentState().counter == 150)
    }
}

/// A state whose `encode(to:)` runs `hook` first, to dispatch from inside an encode.
struct DispatchingOnEncode: StateProtocol {
    static let hook = EncodeWork()
    var counter = 0

    func encode(to encoder: any Encoder) throws {
        Self.hook.run()
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(counter, forKey: .counter)
    }
}

/// Work an encode runs once.
final class EncodeWork: Sendable {
    private let work = LockedValue<(@Sendable () -> Void)?>(nil)

    func set(_ newWork: (@Sendable () -> Void)?) {
        work.withLock { $0 = newWork }
    }

    /// Runs the work set, once.
    func run() {
        let taken = work.withLock { work in
            defer { work = nil }
            return work
        }
        taken?()
    }
}

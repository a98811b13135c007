import Foundation
import ReduxSwift
import Testing

/// Rule 7: every re-entrant call is defined, and none deadlocks or crashes.
@Suite(.offThePool) struct ReentrancyTests {
    /// A store whose reducers handle `TestAction`s and, for `Action("probe")`, record the counter
    /// that `currentState()` returns from inside the reducer.
    static func storeWhoseProbeActionReadsTheStore() -> (Store<TestState>, Recorder<Int>) {
        let handle = StoreHandle()
        let reads = Recorder<Int>()
        handle.store = makeStore([
            testReducer,
            { _, action in
                if action.identifier == "probe" { reads.append(handle.store.currentState().counter) }
            },
        ])
        return (handle.store, reads)
    }

    @Test func aReducerThatDispatchesQueuesTheActionAfterTheCurrentOne() {
        let handle = StoreHandle()
        let store = makeStore([
            { state, action in
                guard case .append(let entry)? = action as? TestAction else { return }
                state.log.append(entry)
                if entry == "first" { handle.store.dispatch(TestAction.append("second")) }
            }
        ])
        handle.store = store
        let (announced, token) = recordAppends(announcedBy: store)
        store.dispatch(TestAction.append("first"))
        // The follow-up is queued when "first" commits, after this read's target: wait for it.
        #expect(announced.wait(forCount: 2))
        #expect(announced.values == ["first", "second"])
        #expect(store.currentState().log == ["first", "second"])
        token.cancel()
    }

    @Test func aReducerThatReadsGetsTheNewestPublishedStateWithoutWaiting() {
        let (store, reads) = Self.storeWhoseProbeActionReadsTheStore()
        for _ in 0..<3 { store.dispatch(TestAction.increment) }
        #expect(store.currentState().counter == 3)  // publishes version 3
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.increment)
        store.dispatch(Action("probe"))
        _ = store.currentState()
        // The newest snapshot published before the probe, a committed state from before it.
        #expect(reads.values == [3])
    }

    @Test func aReducerThatReadsAFreshStoreGetsTheInitialState() {
        let (store, reads) = Self.storeWhoseProbeActionReadsTheStore()
        store.dispatch(TestAction.add(5))
        store.dispatch(Action("probe"))
        _ = store.currentState()
        #expect(reads.values == [0])
    }

    @Test func aReducerThatRegistersAffectsTheNextActionNotTheCurrentOne() {
        let handle = StoreHandle()
        let store = makeStore([
            { state, action in
                guard action.identifier == "install" else { return }
                handle.store.register([{ state, action in state.log.append("new:\(action.identifier)") }])
            }
        ])
        handle.store = store
        store.dispatch(Action("install"))
        store.dispatch(Action("next"))
        #expect(store.currentState().log == ["new:next"])
    }

    @Test func reducersOfTwoStoresReadingEachOtherDoNotDeadlock() {
        let center = StoreNotificationCenter()
        let first = StoreHandle()
        let second = StoreHandle()
        func reading(_ other: StoreHandle) -> Reducer<TestState> {
            { state, _ in state.counter = other.store.currentState().counter + 1 }
        }
        first.store = makeStore([reading(second)], center: center)
        second.store = makeStore([reading(first)], center: center)
        onThreads(4) { thread in
            for _ in 0..<200 {
                (thread.isMultiple(of: 2) ? first : second).store.dispatch(TestAction.increment)
            }
        }
        #expect(first.store.currentState().counter > 0)
        #expect(second.store.currentState().counter > 0)
    }

    @Test func anObserverCanDispatchReadAndAddAndCancelObservers() {
        let store = makeStore()
        let done = Recorder<String>()
        let added = Recorder<ObserverToken>()
        let token = store.observeChanges { note in
            guard note.actions.contains(where: { $0 as? TestAction == .add(1) }) else { return }
            store.dispatch(TestAction.add(10))
            done.append("read \(store.currentState().counter)")
            added.append(store.observeChanges { _ in done.append("nested observer") })
            added.values[0].cancel()
            done.append("finished")
        }
        store.dispatch(TestAction.add(1))
        #expect(done.wait { $0.contains("finished") })
        #expect(done.values.first == "read 11")
        #expect(store.currentState().counter == 11)
        token.cancel()
    }

    @Test func anObserverCanCancelItselfWhileBeingCalled() {
        let store = makeStore()
        let calls = Recorder<Int>()
        let handle = TokenHandle()
        handle.token = store.observeChanges { _ in
            calls.append(1)
            handle.token?.cancel()
        }
        store.dispatch(TestAction.increment)
        #expect(calls.wait(forCount: 1))
        store.dispatch(TestAction.increment)
        _ = store.currentState()
        let witness = Recorder<Int>()
        let after = store.observeChanges { _ in witness.append(1) }
        store.dispatch(TestAction.increment)
        #expect(witness.wait(forCount: 1))
        #expect(calls.count == 1)
        after.cancel()
    }

    @Test func aStateWhoseEncodingReadsTheStoreDoesNotDeadlock() {
        let handle = EncodeReadingState.Handle()
        let store = Store<EncodeReadingState>(
            reducers: [{ state, _ in state.value += 1 }],
            state: EncodeReadingState(handle: handle),
            notificationCenter: StoreNotificationCenter())
        handle.store = store
        store.dispatch(Action("bump"))
        #expect(store.currentState().value == 1)
    }
}

/// A token a test's observer can cancel from inside its own block.
final class TokenHandle: @unchecked Sendable {
    // `@unchecked Sendable`: set once before the first notification can arrive, then only read.
    var token: ObserverToken?
}

/// A state whose `encode(to:)` reads the store that is encoding it.
struct EncodeReadingState: StateProtocol {
    /// `@unchecked Sendable`: `store` is set once, before the first dispatch.
    final class Handle: @unchecked Sendable {
        var store: Store<EncodeReadingState>?
    }

    var value = 0
    var handle: Handle?

    enum CodingKeys: String, CodingKey { case value }

    init(handle: Handle) { self.handle = handle }

    init(from decoder: any Decoder) throws {
        value = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .value)
    }

    func encode(to encoder: any Encoder) throws {
        _ = handle?.store?.currentState()
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
    }
}

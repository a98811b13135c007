import Foundation
import Testing

@testable import ReduxSwift

/// A main thread that blocks until the store's queue gets somewhere lends that queue its priority
/// first, so it never waits behind lower-priority work (a priority inversion on Apple platforms).
/// QoS has no effect on Linux, so these tests check that the loan is made exactly where a main
/// thread waits, and never on the fast path or on other threads.
@Suite(.offThePool) struct PriorityLoanTests {
    /// A store whose reducer holds `.add` until `release` opens, so a reader has to wait.
    private func makeHeldStore(release: Gate) -> Store<TestState> {
        makeStore([
            { state, action in
                if case TestAction.add(let amount)? = action as? TestAction {
                    release.wait()
                    state.counter += amount
                }
            }
        ])
    }

    @MainActor
    @Test func aReadOnTheMainThreadThatWaitsLendsThePriorityOnce() {
        #expect(MainThread.isCurrent, "a main-actor test runs on the main queue")
        let release = Gate()
        let store = makeHeldStore(release: release)
        _ = onNewThread {
            waitUntil { store.kernel.inspect(\.waitingReaderCount) == 1 }
            release.open()
        }
        store.dispatch(TestAction.add(5))
        #expect(store.currentState().counter == 5)
        #expect(store.kernel.inspect(\.priorityLoans) == 1)

        #expect(store.currentState().counter == 5, "nothing queued: the fast path")
        #expect(store.kernel.inspect(\.priorityLoans) == 1, "a read that does not wait lends nothing")
    }

    @Test func aReadThatWaitsOnAnotherThreadLendsNothing() {
        let release = Gate()
        let store = makeHeldStore(release: release)
        let read = Recorder<Int>()
        let reader = onNewThread {
            store.dispatch(TestAction.add(3))
            read.append(store.currentState().counter)
        }
        waitUntil { store.kernel.inspect(\.waitingReaderCount) == 1 }
        release.open()
        #expect(reader.wait())
        #expect(read.values == [3])
        #expect(store.kernel.inspect(\.priorityLoans) == 0)
    }

    @MainActor
    @Test func aTransactionCommittedOnTheMainThreadLendsToEachStore() throws {
        let release = Gate()
        let held = makeHeldStore(release: release)
        let other = makeStore()
        _ = onNewThread {
            waitUntil { held.kernel.inspect(\.priorityLoans) == 1 }
            release.open()
        }
        var transaction = StoreTransaction()
        transaction.add(TestAction.add(2), to: held)
        transaction.add(TestAction.increment, to: other)
        try transaction.commit()
        #expect(held.kernel.inspect(\.priorityLoans) == 1)
        #expect(other.kernel.inspect(\.priorityLoans) == 1)
        #expect(held.currentState().counter == 2)
        #expect(other.currentState().counter == 1)
    }
}

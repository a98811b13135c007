import Foundation
import ReduxSwift
import Testing

@testable import ReduxSwiftTesting

/// A failure the store reports without an action fails the test unless it is expected with
/// `receiveStoreFailure()`: a dispatch lock freed without being released, a state that cannot
/// round-trip. Off the pool: checks wait for the store's delivery thread.
@Suite(.offThePool) struct TestStoreStoreFailureTests {
    struct Reading: StateProtocol, Equatable {
        var value: Decimal = 0
    }

    enum ReadingAction: ActionProtocol, Equatable {
        case set(Decimal)
    }

    static let readingReducers: [Reducer<Reading>] = [
        { state, action in
            if case .set(let value)? = action as? ReadingAction { state.value = value }
        }
    ]

    @Test func aDispatchLockFreedWithoutBeingReleasedFailsTheTest() {
        let store = TestStore(reducers: counterReducers, state: CounterState())
        let failures = store.recordingFailures()
        do { _ = store.store.lock("forgotten") }
        let line: UInt = #line + 1
        store.finish()
        let reported = failures.take()
        #expect(reported.map(\.line) == [line])
        #expect(
            reported.first?.message.hasPrefix(
                "1 received action(s) were not asserted: the store's own failure, with no action "
                    + "(failed: ") == true, "\(reported)")
        #expect(reported.first?.message.contains("forgotten") == true, "\(reported)")
    }

    @Test func aStateThatCannotRoundTripFailsTheNextCheck() {
        let store = TestStore(reducers: Self.readingReducers, state: Reading())
        let failures = store.recordingFailures()
        store.send(ReadingAction.set(Decimal.nan)) { $0.value = Decimal.nan }
        #expect(failures.take() == [])
        let line: UInt = #line + 1
        store.send(ReadingAction.set(1)) { $0.value = 1 }
        let reported = failures.take()
        #expect(reported.map(\.line) == [line])
        #expect(
            reported.first?.message.hasPrefix(
                "1 received action(s) were not asserted before sending set(1): the store's own failure")
                == true, "\(reported)")
    }

    @Test func aStoreFailureCanBeExpected() async {
        let store = TestStore(reducers: Self.readingReducers, state: Reading())
        let failures = store.recordingFailures()
        store.send(ReadingAction.set(Decimal.nan)) { $0.value = Decimal.nan }
        let snapshotError = await store.receiveStoreFailure()
        #expect(snapshotError is SnapshotError)
        do { _ = store.store.lock("forgotten") }
        let lockError = await store.receiveStoreFailure()
        #expect(lockError is DispatchLock.ReleaseError)
        store.finish()
        #expect(failures.take() == [])
    }

    @Test func expectingAStoreFailureThatDoesNotComeFailsAndLeavesTheActionsToReceive() async {
        let store = TestStore(reducers: Self.readingReducers, state: Reading())
        let failures = store.recordingFailures()
        store.store.dispatch(ReadingAction.set(2))
        let line: UInt = #line + 1
        let error = await store.receiveStoreFailure(timeout: 0.2)
        #expect(error == nil)
        #expect(
            failures.take()
                == [
                    ReportedFailure(
                        "expected to receive the store's own failure within 0.2 s, "
                            + "but the store reported no failure of its own", line: line)
                ])
        await store.receive(ReadingAction.set(2)) { $0.value = 2 }
        store.finish()
        #expect(failures.take() == [])
    }

    @Test func theStoresOwnFailureIsReceivedWhereverItComesAmongTheActions() async {
        for _ in 0..<20 {
            let store = TestStore(
                reducers: counterReducers, state: CounterState(), middleware: [.asyncActions()])
            let failures = store.recordingFailures()
            let target = store.store
            let work = AsyncAction<CounterState, Void>("drop a lock") { context in
                do { _ = target.lock("forgotten") }
                context.dispatch(CounterAction.increment)
            }
            store.send(work)
            let error = await store.receiveStoreFailure()
            #expect(error is DispatchLock.ReleaseError)
            await store.receive(CounterAction.increment) { $0.count = 1 }
            await work.finished()
            store.finish()
            #expect(failures.take() == [])
        }
    }

    @Test func aStretchOfStatesThatCannotRoundTripIsOneFailureHoweverTheStoreGroupsThem() async {
        for _ in 0..<20 {
            let store = TestStore(
                reducers: Self.readingReducers, state: Reading(), middleware: [.asyncActions()])
            let failures = store.recordingFailures()
            let target = store.store
            let work = AsyncAction<Reading, Void>("NaN, then more") { context in
                context.dispatch(ReadingAction.set(Decimal.nan))
                await target.waitUntilIdle()
                context.dispatch(ReadingAction.set(Decimal.nan))
                context.dispatch(ReadingAction.set(2))
                context.dispatch(ReadingAction.set(Decimal.nan))
            }
            store.send(work)
            // Whether the states between are encoded depends on how the store groups them: the
            // stretch of states that cannot round-trip is one failure, found among them anywhere.
            await store.receive(ReadingAction.set(Decimal.nan)) { $0.value = Decimal.nan }
            await store.receive(ReadingAction.set(Decimal.nan))
            await store.receive(ReadingAction.set(2)) { $0.value = 2 }
            await store.receive(ReadingAction.set(Decimal.nan)) { $0.value = Decimal.nan }
            await work.finished()
            _ = store.store.currentState()
            let error = await store.receiveStoreFailure()
            #expect(error is SnapshotError)
            store.finish()
            #expect(failures.take() == [])
        }
    }
}

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

    enum ReadingAction: ActionProtocol {
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
        #expect(lockError is DispatchLockError)
        store.finish()
        #expect(failures.take() == [])
    }

    @Test func expectingAStoreFailureWhenAnActionCameFails() async {
        let store = TestStore(reducers: Self.readingReducers, state: Reading())
        let failures = store.recordingFailures()
        store.store.dispatch(ReadingAction.set(2))
        let line: UInt = #line + 1
        let error = await store.receiveStoreFailure()
        #expect(error == nil)
        #expect(
            failures.take().first
                == ReportedFailure("expected to receive the store's own failure, received set(2)", line: line)
        )
    }
}

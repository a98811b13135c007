import Foundation
import Testing

@testable import ReduxSwift
@testable import ReduxSwiftTesting

/// A failure a test store reports itself is not reported a second time by its store.
@Suite struct TestStoreWarningTests {
    struct Marked: Error {
        let marker: String
    }

    enum MarkedAction: ActionProtocol {
        case fail
    }

    /// The runtime warnings that mention `marker`, heard while `body` runs.
    func warnings(mentioning marker: String, _ body: () async throws -> Void) async rethrows -> [String] {
        let heard = LockedValue<[String]>([])
        let listener = RuntimeWarning.addListener { message in
            if message.contains(marker) { heard.withLock { $0.append(message) } }
        }
        defer { RuntimeWarning.removeListener(listener) }
        try await body()
        return heard.withLock { $0 }
    }

    @Test func anExpectedFailureOfATestStoreGivesNoRuntimeWarning() async throws {
        let marker = UUID().uuidString
        let failing: Reducer<CounterState> = { _, action in
            if action is MarkedAction { throw Marked(marker: marker) }
        }
        // The same failure in a plain store that nothing observes is reported.
        let plain = Store(
            reducers: [failing], state: CounterState(), notificationCenter: StoreNotificationCenter())
        let reported = try await warnings(mentioning: marker) {
            plain.dispatch(MarkedAction.fail)
            try await plain.waitUntilIdle(timeout: 30)
        }
        #expect(reported.count == 1)
        let store = TestStore(reducers: [failing], state: CounterState())
        let unreported = try await warnings(mentioning: marker) {
            let error = store.sendExpectingFailure(MarkedAction.fail)
            #expect((error as? Marked)?.marker == marker)
            try await store.store.waitUntilIdle(timeout: 30)
        }
        #expect(unreported == [])
        store.finish()
    }
}

// XCTest is not part of the Command Line Tools; there, only the Swift Testing tests build.
#if canImport(XCTest)
import ReduxSwift
import ReduxSwiftTesting
import XCTest

/// The same test store under XCTest: assertions pass through to `XCTFail` when they fail.
final class TestStoreXCTests: XCTestCase {
    func testSendAndReceiveWorkUnderXCTest() async {
        let store = makeTestStore()
        store.send(CounterAction.increment) { $0.count = 1 }
        store.send(CounterAction.incrementTwiceLater)
        await store.receive(CounterAction.increment) { $0.count = 2 }
        await store.receive(CounterAction.increment) { $0.count = 3 }
        store.finish()
        XCTAssertEqual(store.state.count, 3)
    }
}
#endif

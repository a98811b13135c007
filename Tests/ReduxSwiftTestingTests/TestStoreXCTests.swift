// XCTest is not part of the Command Line Tools; there, only the Swift Testing tests build.
#if canImport(XCTest)
import ReduxSwift
import ReduxSwiftTesting
import XCTest

/// The same test store under XCTest: assertions pass through to `XCTFail` when they fail.
final class TestStoreXCTests: XCTestCase {
    /// What XCTest was told while `catchingFailures` is set, kept instead of failing the test, so
    /// that the test can check it.
    private var caughtFailures: [(description: String, filePath: String, line: Int)] = []
    private var catchingFailures = false

    #if canImport(Darwin)
    override func record(_ issue: XCTIssue) {
        guard catchingFailures else { return super.record(issue) }
        let location = issue.sourceCodeContext.location
        caughtFailures.append(
            (issue.compactDescription, location?.fileURL.path ?? "", location?.lineNumber ?? 0))
    }
    #else
    override func recordFailure(
        withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
    ) {
        guard catchingFailures else {
            return super.recordFailure(
                withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
        caughtFailures.append((description, filePath, lineNumber))
    }
    #endif

    func testSendAndReceiveWorkUnderXCTest() async {
        let store = makeTestStore()
        store.send(CounterAction.increment) { $0.count = 1 }
        store.send(CounterAction.incrementTwiceLater)
        await store.receive(CounterAction.increment) { $0.count = 2 }
        await store.receive(CounterAction.increment) { $0.count = 3 }
        store.finish()
        XCTAssertEqual(store.state.count, 3)
    }

    func testAFailureIsRecordedOnTheRunningTestCaseAtTheAssertion() {
        let store = makeTestStore()
        catchingFailures = true
        store.send(
            CounterAction.add(3), assert: { $0.count = 2 }, filePath: "/App/Tests/CounterTests.swift", line: 7
        )
        catchingFailures = false
        XCTAssertEqual(caughtFailures.count, 1)
        let failure = caughtFailures.first
        XCTAssertEqual(failure?.filePath, "/App/Tests/CounterTests.swift")
        XCTAssertEqual(failure?.line, 7)
        // XCTest puts its own words ("failed - ") before the message.
        let message = "state after add(3) differs from the expected state:\n    count: expected 2, actual 3"
        XCTAssertTrue(failure?.description.hasSuffix(message) == true, failure?.description ?? "no failure")
    }
}
#endif

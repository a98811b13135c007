import Foundation
import ReduxSwiftTesting
import Testing

/// Issues recorded with `Issue.record` by the test running in this task, kept out of its results
/// so that the test can check them: how a test proves that a failure reaches Swift Testing without
/// leaving a known issue in every run.
final class CaughtIssues: @unchecked Sendable {
    // `@unchecked Sendable`: `issues` is only touched while `lock` is held.
    @TaskLocal static var current: CaughtIssues?

    private let lock = NSLock()
    private var issues: [Issue] = []

    func append(_ issue: Issue) {
        lock.lock()
        issues.append(issue)
        lock.unlock()
    }

    /// The issues caught so far.
    var all: [Issue] {
        lock.lock()
        defer { lock.unlock() }
        return issues
    }
}

extension Trait where Self == IssueHandlingTrait {
    /// Catches the issues a test records with `Issue.record` while ``CaughtIssues/current`` is set;
    /// every other issue, such as a failed `#expect`, fails the test as usual.
    static var catchingRecordedIssues: Self {
        .compactMapIssues { issue in
            guard let caught = CaughtIssues.current, case .unconditional = issue.kind else { return issue }
            caught.append(issue)
            return nil
        }
    }
}

/// A `TestStore`'s failures, as the test framework running the test receives them.
@Suite struct TestStoreReportingTests {
    @Test(.catchingRecordedIssues)
    func aFailureIsRecordedOnTheRunningTestAtTheAssertion() async {
        let caught = CaughtIssues()
        await CaughtIssues.$current.withValue(caught) {
            let store = makeTestStore()
            store.send(
                CounterAction.add(3), assert: { $0.count = 2 }, fileID: "App/CounterTests.swift",
                filePath: "/App/Tests/CounterTests.swift", line: 7, column: 9)
            // After a wait, which a test framework that tracks the current test must survive.
            await store.receive(
                CounterAction.increment, timeout: 0.1, fileID: "App/CounterTests.swift",
                filePath: "/App/Tests/CounterTests.swift", line: 12, column: 15)
        }
        let issues = caught.all
        #expect(
            issues.map { $0.comments.map(\.rawValue) } == [
                ["state after add(3) differs from the expected state:\n    count: expected 2, actual 3"],
                ["expected to receive increment within 0.1 s, but no unasserted action reached the reducers"],
            ])
        #expect(
            issues.map(\.sourceLocation) == [
                SourceLocation(
                    fileID: "App/CounterTests.swift", filePath: "/App/Tests/CounterTests.swift", line: 7,
                    column: 9),
                SourceLocation(
                    fileID: "App/CounterTests.swift", filePath: "/App/Tests/CounterTests.swift", line: 12,
                    column: 15),
            ])
    }
}

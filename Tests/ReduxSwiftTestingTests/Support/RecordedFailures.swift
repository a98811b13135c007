@testable import ReduxSwiftTesting

/// A failure as a test would be told it: the message, and the file and line it points at.
struct ReportedFailure: Equatable {
    let message: String
    let fileID: String
    let filePath: String
    let line: UInt

    /// A failure expected at `line` of the file that says so.
    init(_ message: String, line: UInt, fileID: String = #fileID, filePath: String = #filePath) {
        self.message = message
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
    }

    init(_ failure: TestStoreFailure) {
        self.init(
            failure.message, line: failure.location.line, fileID: failure.location.fileID,
            filePath: "\(failure.location.filePath)")
    }
}

/// The failures of a ``TestStore``, kept here instead of failing the test, so that the test can
/// check each one.
final class RecordedFailures {
    private var failures: [ReportedFailure] = []

    fileprivate func append(_ failure: TestStoreFailure) {
        failures.append(ReportedFailure(failure))
    }

    /// The failures recorded since the last call.
    func take() -> [ReportedFailure] {
        defer { failures.removeAll() }
        return failures
    }
}

extension TestStore {
    /// Makes the store record its failures in the returned object instead of reporting them.
    func recordingFailures() -> RecordedFailures {
        let recorded = RecordedFailures()
        reportFailure = { recorded.append($0) }
        return recorded
    }
}

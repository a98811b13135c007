import Testing
import XCTest

/// Where a ``TestStore`` assertion was written, and how to report a failure there.
struct TestLocation {
    let fileID: String
    let filePath: StaticString
    let line: UInt
    let column: UInt

    /// Records a failure with Swift Testing when a Swift Testing test is running, else with XCTest.
    func fail(_ message: String) {
        if Test.current != nil {
            Issue.record(
                Comment(rawValue: message),
                sourceLocation: SourceLocation(
                    fileID: fileID, filePath: "\(filePath)", line: Int(line), column: Int(column)))
        } else {
            XCTFail(message, file: filePath, line: line)
        }
    }
}

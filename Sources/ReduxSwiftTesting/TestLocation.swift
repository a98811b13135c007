// Each framework is imported only where it exists: the Command Line Tools have no XCTest, and a
// toolchain may lack Swift Testing. What a missing one means is said in `TestStore`'s documentation.
#if canImport(Testing)
import Testing
#endif
#if canImport(XCTest)
import XCTest
#endif

/// Where a ``TestStore`` assertion was written, and how to report a failure there.
struct TestLocation {
    let fileID: String
    let filePath: StaticString
    let line: UInt
    let column: UInt

    /// Records a failure with Swift Testing when a Swift Testing test is running, else with XCTest;
    /// stops the process when this module was built with neither.
    func fail(_ message: String) {
        #if canImport(Testing)
        if Test.current != nil {
            Issue.record(
                Comment(rawValue: message),
                sourceLocation: SourceLocation(
                    fileID: fileID, filePath: "\(filePath)", line: Int(line), column: Int(column)))
            return
        }
        #endif
        #if canImport(XCTest)
        // XCTest exists on watchOS only from 7.4; no test of this module runs on an older watch.
        if #available(watchOS 7.4, *) {
            XCTFail(message, file: filePath, line: line)
            return
        }
        #endif
        fatalError(
            "\(message)\n(ReduxSwiftTesting was built without a test framework to report this to)",
            file: filePath, line: line)
    }
}

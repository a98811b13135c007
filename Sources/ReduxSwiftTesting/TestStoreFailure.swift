// Each framework is imported only where it exists: the Command Line Tools have no XCTest, and a
// toolchain may lack Swift Testing. What a missing one means is said in `TestStore`'s documentation.
#if canImport(Testing)
import Testing
#endif
#if canImport(XCTest)
import XCTest
#endif

/// A check of a ``TestStore`` that failed: what the test is told, and where.
struct TestStoreFailure {
    let message: String
    let location: TestLocation

    /// Records the failure with Swift Testing when a Swift Testing test is running, else with XCTest;
    /// stops the process when this module was built with neither.
    func reportToTestFramework() {
        #if canImport(Testing)
        if Test.current != nil {
            Issue.record(
                Comment(rawValue: message),
                sourceLocation: SourceLocation(
                    fileID: location.fileID, filePath: "\(location.filePath)", line: Int(location.line),
                    column: Int(location.column)))
            return
        }
        #endif
        #if canImport(XCTest)
        XCTFail(message, file: location.filePath, line: location.line)
        #else
        fatalError(
            "\(message)\n(ReduxSwiftTesting was built without a test framework to report this to)",
            file: location.filePath, line: location.line)
        #endif
    }
}

import Foundation
import Testing

/// The tests find the `todos` executable from where the test code itself was loaded, whoever runs
/// it: the `.xctest` executable on Linux, `xctest` or the Swift Testing helper on Apple platforms.
@Suite struct ProductLookupTests {
    /// A fake products folder with a file at each of `executables` (made executable) and `files`.
    final class FakeProducts {
        let root: URL

        init(executables: [String], files: [String] = []) throws {
            root = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
                .appendingPathComponent("ProductLookupTests-\(UUID().uuidString)", isDirectory: true)
            for path in executables + files {
                let url = root.appendingPathComponent(path)
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data().write(to: url)
                if executables.contains(path) {
                    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
                }
            }
        }

        deinit {
            try? FileManager.default.removeItem(at: root)
        }

        func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
    }

    @Test func theTodosOfThisBuildIsFound() throws {
        let executable = try TodosProcess.executable.get()
        #expect(executable.lastPathComponent == "todos")
        #expect(FileManager.default.isExecutableFile(atPath: executable.path))
        // Found from the test binary alone, whatever runs it.
        let testBinary = try #require(BuiltProducts.testBinary)
        let found = BuiltProducts.locate("todos", testBinary: testBinary, bundlePaths: [], argumentZero: nil)
        #expect(try found.get() == executable)
    }

    @Test func aBundleRunByTheSwiftTestingHelperIsFollowedToItsProductsFolder() throws {
        // `swift test` on macOS: Swift Testing loads the bundle into a helper from the toolchain,
        // so neither `Bundle.allBundles` nor `argv[0]` leads to the products folder.
        let products = try FakeProducts(
            executables: [
                "debug/todos", "debug/Tests.xctest/Contents/MacOS/Tests", "toolchain/swiftpm-testing-helper",
            ])
        let found = BuiltProducts.locate(
            "todos", testBinary: products.path("debug/Tests.xctest/Contents/MacOS/Tests"), bundlePaths: [],
            argumentZero: products.path("toolchain/swiftpm-testing-helper"))
        #expect(try found.get().path == products.path("debug/todos"))
    }

    @Test func anXCTestExecutableOnLinuxHasTheProductsBesideIt() throws {
        let products = try FakeProducts(executables: ["debug/todos", "debug/Tests.xctest"])
        let found = BuiltProducts.locate(
            "todos", testBinary: products.path("debug/Tests.xctest"), bundlePaths: [], argumentZero: nil)
        #expect(try found.get().path == products.path("debug/todos"))
    }

    @Test func aFileThatIsNotExecutableIsNotTaken() throws {
        let products = try FakeProducts(executables: ["debug/Tests.xctest"], files: ["debug/todos"])
        let found = BuiltProducts.locate(
            "todos", testBinary: products.path("debug/Tests.xctest"), bundlePaths: [], argumentZero: nil)
        #expect(throws: BuiltProducts.NotFound.self) { try found.get() }
    }

    @Test func aMissingProductIsReportedWithEveryPlaceLookedAt() throws {
        let products = try FakeProducts(executables: [
            "debug/Tests.xctest/Contents/MacOS/Tests", "bin/helper",
        ])
        let found = BuiltProducts.locate(
            "todos", testBinary: products.path("debug/Tests.xctest/Contents/MacOS/Tests"),
            bundlePaths: [products.path("other/Other.xctest")], argumentZero: products.path("bin/helper"))
        let error = #expect(throws: BuiltProducts.NotFound.self) { try found.get() }
        #expect(
            error?.tried == [
                products.path("debug/todos"), products.path("other/todos"), products.path("bin/todos"),
            ])
        #expect(error?.description.contains(products.path("bin/todos")) == true)
    }
}

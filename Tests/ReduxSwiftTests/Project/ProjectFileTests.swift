import Foundation
import Testing

@testable import ReduxSwift

/// Files of the project that are not code: the privacy manifest and the CI scripts.
@Suite(.offThePool) struct ProjectFileTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test func thePrivacyManifestShipsWithTheLibraryAndGivesAReasonForEachRequiredReasonAPI() throws {
        let url = try #require(Bundle.module.url(forResource: "PrivacyInfo", withExtension: "xcprivacy"))
        let manifest = try #require(
            try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil)
                as? [String: Any])
        #expect(manifest["NSPrivacyTracking"] as? Bool == false)
        #expect((manifest["NSPrivacyCollectedDataTypes"] as? [Any])?.isEmpty == true)
        let types = try #require(manifest["NSPrivacyAccessedAPITypes"] as? [[String: Any]])
        var reasons: [String: [String]] = [:]
        for entry in types {
            let category = try #require(entry["NSPrivacyAccessedAPIType"] as? String)
            reasons[category] = entry["NSPrivacyAccessedAPITypeReasons"] as? [String]
        }
        // `stat`, `fstat` and `lstat` read the times of the archive's temporary files; the
        // UserDefaults backend reads and writes the app's own defaults; save timers and the logger
        // measure time with `DispatchTime`.
        #expect(
            reasons == [
                "NSPrivacyAccessedAPICategoryFileTimestamp": ["C617.1"],
                "NSPrivacyAccessedAPICategoryUserDefaults": ["CA92.1"],
                "NSPrivacyAccessedAPICategorySystemBootTime": ["35F9.1"],
            ])
    }

    @Test func everyTestTheGuaranteesArticleNamesExists() throws {
        let article = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/ReduxSwift/ReduxSwift.docc/Guarantees.md"),
            encoding: .utf8)
        var tests = ""
        let folder = Self.root.appendingPathComponent("Tests")
        let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
        for case let file as URL in files where file.pathExtension == "swift" {
            tests += try String(contentsOf: file, encoding: .utf8)
        }
        // `Suite/test`, in code spans; the article's own example, `Suite/test`, names no test.
        // (NSRegularExpression rather than Regex, which needs macOS 13.)
        let named = try NSRegularExpression(pattern: "`([A-Z][A-Za-z0-9]+)/([a-z][A-Za-z0-9]+)`")
        let text = article as NSString
        var missing: [String] = []
        for match in named.matches(in: article, range: NSRange(location: 0, length: text.length)) {
            let suite = text.substring(with: match.range(at: 1))
            let test = text.substring(with: match.range(at: 2))
            guard suite != "Suite" else { continue }
            let declaresSuite = ["struct", "class", "extension"].contains { tests.contains("\($0) \(suite)") }
            let declaresTest = tests.contains("func \(test)(")
            if !declaresSuite || !declaresTest { missing.append("\(suite)/\(test)") }
        }
        #expect(missing.isEmpty, "the Guarantees article names tests that do not exist: \(missing)")
    }

    @Test func theReadmeLinksTheComingFromReSwiftArticle() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let path = "Sources/ReduxSwift/ReduxSwift.docc/ComingFromReSwift.md"
        #expect(readme.contains("`\(path)`"))
        #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(path).path))
    }

    @Test func everyPublicInitializerOfBothModulesHasASummaryAndAnExample() throws {
        var missing: [String] = []
        for module in ["ReduxSwift", "ReduxSwiftTesting"] {
            let folder = Self.root.appendingPathComponent("Sources/\(module)")
            let files = try #require(FileManager.default.enumerator(atPath: folder.path))
            for case let file as String in files where file.hasSuffix(".swift") {
                let lines = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                    .components(separatedBy: "\n")
                for (index, line) in lines.enumerated() where Self.isPublicInitializer(line) {
                    let comment = lines[..<index].reversed().prefix {
                        let text = $0.trimmingCharacters(in: .whitespaces)
                        return text.hasPrefix("///") || text.hasPrefix("@")
                    }
                    let hasSummary = comment.contains { $0.contains("///") && $0.count > 8 }
                    if !hasSummary || !comment.contains(where: { $0.contains("```") }) {
                        missing.append("\(module)/\(file):\(index + 1)")
                    }
                }
            }
        }
        #expect(missing.isEmpty, "public initializers without a summary and an example: \(missing)")
    }

    private static func isPublicInitializer(_ line: String) -> Bool {
        let words = line.trimmingCharacters(in: .whitespaces).split(separator: " ")
        guard words.first == "public" || words.first == "open" else { return false }
        return words.dropFirst().first { $0 != "convenience" && $0 != "required" }.map {
            $0.hasPrefix("init(") || $0.hasPrefix("init<") || $0.hasPrefix("init?(")
        } ?? false
    }

    @Test(
        arguments: ["run", "docs", "check-templates", "instructions-per-dispatch", "loaded-test"],
        [
            ScriptCall(["--help"], 0), ScriptCall(["-h"], 0), ScriptCall(["--bogus"], 2),
            ScriptCall(["--help", "--bogus"], 0), ScriptCall([""], 2),
        ])
    func everyCIScriptAnswersHelpAndRefusesBadArgumentsWithoutDoingWork(script: String, call: ScriptCall)
        async throws
    {
        // Fake `swift`, `docc` and `valgrind` first on the PATH record any call.
        let bin = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ci-help-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: bin) }
        let calls = bin.appendingPathComponent("calls")
        for tool in ["swift", "docc", "valgrind"] {
            let fake = bin.appendingPathComponent(tool)
            try Data("#!/bin/sh\necho \(tool) >> '\(calls.path)'\n".utf8).write(to: fake)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake.path)
        }
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let script = Self.root.appendingPathComponent(".ci/\(script)")
        let run = await onOwnThread { [environment] in
            Result { () throws -> (status: Int32, text: String) in
                let process = Process()
                process.executableURL = script
                process.arguments = call.arguments
                process.environment = environment
                let output = Pipe()
                process.standardOutput = output
                process.standardError = output
                try process.run()
                let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                return (process.terminationStatus, text)
            }
        }
        let (status, text) = try run.get()
        #expect(status == call.status, "\(text)")
        #expect(text.contains("Usage: .ci/\(script.lastPathComponent)"), "\(text)")
        #expect(!FileManager.default.fileExists(atPath: calls.path), "\(call.arguments) ran a tool")
    }
}

/// Arguments for a CI script, and the status it must exit with.
struct ScriptCall: Sendable, CustomTestStringConvertible {
    let arguments: [String]
    let status: Int32

    init(_ arguments: [String], _ status: Int32) {
        self.arguments = arguments
        self.status = status
    }

    var testDescription: String { "\(arguments) exits \(status)" }
}

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

    @Test func theArchitectureDrawingNamesFilesThatExistAndFollowsADispatchToTheBlockInAtMostSevenFiles()
        throws
    {
        let sources = Self.root.appendingPathComponent("Sources/ReduxSwift")
        let article = try String(
            contentsOf: sources.appendingPathComponent("ReduxSwift.docc/Architecture.md"), encoding: .utf8)
        // The drawings are the code blocks of "One dispatch, file by file"; the first is the value
        // path, from `dispatch(_:)` to a value observer's block.
        let section = try #require(
            article.components(separatedBy: "### One dispatch, file by file").dropFirst().first?
                .components(separatedBy: "\n### ").first)
        let drawings = section.components(separatedBy: "```").enumerated().filter { $0.offset % 2 == 1 }
            .map(\.element)
        let valuePath = try #require(drawings.first)
        let named = try NSRegularExpression(
            pattern: "(?<![A-Za-z0-9_+/.])(?:[A-Za-z0-9_+]+/)*[A-Za-z0-9_+]+\\.swift")
        func files(in drawing: String) -> Set<String> {
            let text = drawing as NSString
            return Set(
                named.matches(in: drawing, range: NSRange(location: 0, length: text.length)).map {
                    text.substring(with: $0.range)
                })
        }
        let missing = drawings.flatMap(files(in:)).filter {
            !FileManager.default.fileExists(atPath: sources.appendingPathComponent($0).path)
        }
        #expect(missing.isEmpty, "the drawing names files that are not in Sources/ReduxSwift: \(missing)")
        let path = files(in: valuePath)
        #expect(path.contains("Store.swift"), "the value path starts elsewhere: \(path.sorted())")
        #expect(path.contains("Observation/ValueObserver.swift"), "and ends elsewhere: \(path.sorted())")
        #expect(path.count <= 7, "the value path goes through \(path.count) files: \(path.sorted())")
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

    @Test func theLibraryDeclaresAtMostFortyPublicTopLevelTypesBesideTheDeprecatedNames() throws {
        var types: [String] = []
        let folder = Self.root.appendingPathComponent("Sources/ReduxSwift")
        let files = try #require(FileManager.default.enumerator(atPath: folder.path))
        for case let file as String in files where file.hasSuffix(".swift") {
            let lines = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                .components(separatedBy: "\n")
            for (index, line) in lines.enumerated() where line.first?.isWhitespace == false {
                let words = line.split(separator: " ").map(String.init)
                guard words.contains("public") || words.contains("open"),
                    let kind = words.firstIndex(where: {
                        ["class", "struct", "enum", "protocol", "actor", "typealias"].contains($0)
                    }),
                    kind + 1 < words.count,
                    index == 0 || !lines[index - 1].contains("@available(*, deprecated")
                else { continue }
                types.append(String(words[kind + 1].prefix { $0.isLetter || $0.isNumber || $0 == "_" }))
            }
        }
        #expect(types.count > 30, "the count found the declarations: \(types)")
        #expect(types.count <= 40, "\(types.count) public top-level types: \(types.sorted())")
    }

    private static func isPublicInitializer(_ line: String) -> Bool {
        let words = line.trimmingCharacters(in: .whitespaces).split(separator: " ")
        guard words.first == "public" || words.first == "open" else { return false }
        return words.dropFirst().first { $0 != "convenience" && $0 != "required" }.map {
            $0.hasPrefix("init(") || $0.hasPrefix("init<") || $0.hasPrefix("init?(")
        } ?? false
    }

    /// APIs newer than the platform floors, each with the macOS version that has it (its peers
    /// follow: iOS, tvOS and watchOS of the same year). Linux has no deployment target, so an
    /// unguarded use compiles here and fails only on a Mac.
    static let newerAPIs: [(name: String, macOS: [Int])] = [
        ("Int128", [15]), ("UInt128", [15]), ("Mutex", [15]), ("Atomic", [15]), ("TaskExecutor", [15]),
        ("withTaskExecutorPreference", [15]), ("ObservedValue", [14]), ("withObservationTracking", [14]),
        ("CodingKeyRepresentable", [12, 3]),
    ]

    @Test func everyUseOfAnAPINewerThanThePlatformFloorsIsGuarded() throws {
        var unguarded: [String] = []
        for folder in ["Sources", "Tests"] {
            let base = Self.root.appendingPathComponent(folder)
            let files = try #require(FileManager.default.enumerator(atPath: base.path))
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
                let lines = text.components(separatedBy: "\n").map(AvailabilityScan.code)
                for (index, line) in lines.enumerated() {
                    for api in Self.newerAPIs where AvailabilityScan.uses(line, api.name) {
                        if !AvailabilityScan.isGuarded(index, in: lines, macOS: api.macOS) {
                            unguarded.append("\(folder)/\(file):\(index + 1): \(api.name)")
                        }
                    }
                }
            }
        }
        #expect(
            unguarded.isEmpty,
            "uses without @available or #available of the macOS version they need: \(unguarded)")
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

/// Finds whether a line of Swift is inside a declaration or a branch that requires a macOS
/// version: a line-based reading, enough for the code of this project.
enum AvailabilityScan {
    /// The line without its string literals and its comment.
    static func code(_ line: String) -> String {
        var result = ""
        var inString = false
        var previous: Character = " "
        for character in line {
            if character == "\"" && previous != "\\" {
                inString.toggle()
            } else if !inString {
                if character == "/" && previous == "/" {
                    result.removeLast()
                    break
                }
                result.append(character)
            }
            previous = character
        }
        return result
    }

    /// Whether `line` names `api` as a whole word.
    static func uses(_ line: String, _ api: String) -> Bool {
        var rest = Substring(line)
        while let range = rest.range(of: api) {
            let before = rest[..<range.lowerBound].last
            let after = rest[range.upperBound...].first
            if !(before.map(isIdentifier) ?? false) && !(after.map(isIdentifier) ?? false) { return true }
            rest = rest[range.upperBound...]
        }
        return false
    }

    private static func isIdentifier(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_"
    }

    /// Whether the line at `index` is in a declaration marked `@available(macOS N` or a branch
    /// of `#available(macOS N` (after a `guard`, or as an `if`) with N at least `macOS`, or in a
    /// `#if` branch that excludes Apple platforms.
    static func isGuarded(_ index: Int, in lines: [String], macOS: [Int]) -> Bool {
        if requires(declarationStarting: index, in: lines, macOS: macOS) { return true }
        var depth = 0
        var conditionalDepth = 0
        var inElseBranch = false
        for number in stride(from: index - 1, through: 0, by: -1) {
            let line = lines[number]
            let directive = line.trimmingCharacters(in: .whitespaces)
            if directive.hasPrefix("#endif") {
                conditionalDepth += 1
            } else if directive.hasPrefix("#else") && conditionalDepth == 0 {
                inElseBranch = true
            } else if directive.hasPrefix("#if") {
                if conditionalDepth > 0 {
                    conditionalDepth -= 1
                } else {
                    let excludesApple =
                        directive.contains("!canImport(Darwin)") || directive.contains("os(Linux)")
                    if excludesApple && !inElseBranch { return true }
                    inElseBranch = false
                }
            }
            var opensScope = false
            for character in line.reversed() {
                if character == "}" {
                    depth += 1
                } else if character == "{" {
                    if depth == 0 { opensScope = true } else { depth -= 1 }
                }
            }
            if depth == 0 && line.contains("guard #available") && requires(line, macOS: macOS) { return true }
            if opensScope && requires(declarationStarting: number, in: lines, macOS: macOS) { return true }
        }
        return false
    }

    /// Whether the statement or declaration that ends at `index`, with the attributes above it,
    /// requires at least `macOS`.
    private static func requires(declarationStarting index: Int, in lines: [String], macOS: [Int]) -> Bool {
        var number = index
        while true {
            if requires(lines[number], macOS: macOS) { return true }
            guard number > 0 else { return false }
            let above = lines[number - 1].trimmingCharacters(in: .whitespaces)
            if above.isEmpty || above.hasSuffix("{") || above.hasSuffix("}") || above.hasPrefix("#") {
                return false
            }
            number -= 1
        }
    }

    /// Whether `line` requires, with `@available` or `#available`, at least `macOS`.
    private static func requires(_ line: String, macOS: [Int]) -> Bool {
        var rest = Substring(line)
        while let range = rest.range(of: "available(macOS ") {
            let version = rest[range.upperBound...].prefix { $0.isNumber || $0 == "." }
                .split(separator: ".").compactMap { Int($0) }
            if !version.lexicographicallyPrecedes(macOS) { return true }
            rest = rest[range.upperBound...]
        }
        return false
    }
}

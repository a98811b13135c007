import Foundation
import Testing

@testable import ReduxScaffold

/// A throwaway package directory with a manifest that declares `targets`, removed on deinit.
final class ScratchPackage {
    let root: URL

    /// A package whose manifest declares `targets`, Swift code for the manifest's target list; by
    /// default a target `App` and its test target, with no folder yet.
    init(
        targets: String = #".target(name: "App"), .testTarget(name: "AppTests", dependencies: ["App"])"#,
        dependencies: String = ""
    ) {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("ReduxScaffoldTests-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Resolved once it exists, as the scaffold resolves `--package-path`: a path that does not
        // exist yet resolves differently (on a Mac, `/var/folders/…` becomes `/private/var/…` or
        // stays, depending on whether the whole path exists), and paths are compared as strings.
        root = directory.resolvingSymlinksInPath()
        writeManifest(
            """
            // swift-tools-version: 6.0
            import PackageDescription

            let package = Package(name: "Scratch", dependencies: [\(dependencies)], targets: [\(targets)])

            """)
    }

    func writeManifest(_ text: String) {
        _ = FileManager.default.createFile(
            atPath: root.appendingPathComponent("Package.swift").path, contents: Data(text.utf8))
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
        // `swift package` leaves an empty lock file for the package's `.build` folder in the
        // temporary folder, named after its path, as it does for every package it works on.
        let lock = (root.path + "/.build").replacingOccurrences(of: "/", with: "_") + ".lock"
        try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "/" + lock)
    }

    func run(_ arguments: [String]) throws(ScaffoldError) -> [String] {
        try ReduxScaffold.run(arguments + ["--package-path", root.path])
    }

    func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: root.appendingPathComponent(path).path).map {
            String(decoding: $0, as: UTF8.self)
        }
    }
}

@Suite(.offThePool) struct ScaffoldTests {
    let package = ScratchPackage()

    @Test func itWritesEveryFileOfTheFeatureAndSaysWhich() throws {
        let lines = try package.run(["--name", "Counter", "--output", "Sources/App"])
        #expect(
            lines == [
                "wrote Sources/App/CounterActions.swift", "wrote Sources/App/CounterReducers.swift",
                "wrote Sources/App/CounterService.swift", "wrote Sources/App/CounterState.swift",
                "wrote Tests/AppTests/CounterTests.swift",
                "Next, add the feature's state to the app's state, and register its reducers in the app store's init:",
                "    var counter = CounterState()",
                #"    register(CounterReducers.reducers(at: \.counter))"#,
                #"The feature imports ReduxSwift: add .product(name: "ReduxSwift", package: "ReduxSwift") "#
                    + "to the dependencies of App in Package.swift.",
                #"The tests use TestStore: add .product(name: "ReduxSwiftTesting", package: "ReduxSwift") "#
                    + "to the dependencies of AppTests in Package.swift.",
            ])
        let state = try #require(package.contents("Sources/App/CounterState.swift"))
        #expect(state.hasPrefix("// CounterState.swift\n"))
        #expect(state.contains("struct CounterState: StateProtocol, Equatable, Sendable {"))
        let tests = try #require(package.contents("Tests/AppTests/CounterTests.swift"))
        #expect(tests.contains("@testable import App\n"))
        #expect(tests.contains("import ReduxSwiftTesting\n"))
        #expect(tests.contains("TestStore(reducers: CounterReducers.reducers"))
        for line in lines.wrote {
            #expect(package.contents(String(line.dropFirst("wrote ".count)))?.contains("___") == false)
        }
    }

    @Test func itSaysWhenTheTestTargetLacksTheTestingLibraryAndNotWhenItHasIt() throws {
        let lacking = try package.run(["--name", "Counter", "--output", "Sources/App"])
        #expect(
            lacking.last
                == #"The tests use TestStore: add .product(name: "ReduxSwiftTesting", package: "ReduxSwift") "#
                + "to the dependencies of AppTests in Package.swift.")

        let having = ScratchPackage(
            targets:
                #".target(name: "App", dependencies: [.product(name: "ReduxSwift", package: "ReduxSwift")]), "#
                + #".testTarget(name: "AppTests", dependencies: ["App", "#
                + #".product(name: "ReduxSwiftTesting", package: "ReduxSwift")])"#,
            dependencies: #".package(path: "ReduxSwift")"#)
        // SwiftPM names a package by its folder: a link named ReduxSwift, wherever this checkout is.
        try FileManager.default.createSymbolicLink(
            at: having.root.appendingPathComponent("ReduxSwift"),
            withDestinationURL: TemplateSet.defaultDirectory.deletingLastPathComponent())
        let lines = try having.run(["--name", "Wishlist", "--output", "Sources/App"])
        #expect(lines.last == #"    register(WishlistReducers.reducers(at: \.wishlist))"#)
        #expect(!lines.contains { $0.contains("ReduxSwiftTesting") })
        // As the README shows it.
        let readme = try String(
            contentsOf: TemplateSet.defaultDirectory.deletingLastPathComponent().appendingPathComponent(
                "README.md"),
            encoding: .utf8)
        let printed = lines.joined(separator: "\n")
        #expect(readme.contains("```\n\(printed)\n```\n"), "the README should show:\n\(printed)")
    }

    @Test func theSuggestedLinesNameThePackageAsTheManifestDoes() throws {
        let package = ScratchPackage(
            targets:
                #".target(name: "App", dependencies: [.product(name: "ReduxSwift", package: "rs-link")]), "#
                + #".testTarget(name: "AppTests", dependencies: ["App"])"#,
            dependencies: #".package(path: "rs-link")"#)
        try FileManager.default.createSymbolicLink(
            at: package.root.appendingPathComponent("rs-link"),
            withDestinationURL: TemplateSet.defaultDirectory.deletingLastPathComponent())
        let lines = try package.run(["--name", "Counter", "--output", "Sources/App"])
        #expect(
            lines.last
                == #"The tests use TestStore: add .product(name: "ReduxSwiftTesting", package: "rs-link") "#
                + "to the dependencies of AppTests in Package.swift.")
        #expect(!lines.contains { $0.hasPrefix("The feature imports") })

        // Named by no target yet: the one dependency that looks like it.
        let unnamed = ScratchPackage(
            targets: #".target(name: "Other"), .testTarget(name: "OtherTests", dependencies: ["Other"])"#,
            dependencies: #".package(path: "ReduxSwift-fork")"#)
        try FileManager.default.createSymbolicLink(
            at: unnamed.root.appendingPathComponent("ReduxSwift-fork"),
            withDestinationURL: TemplateSet.defaultDirectory.deletingLastPathComponent())
        let error = #expect(throws: ScaffoldError.self) {
            try unnamed.run(["--name", "Counter", "--output", "Sources/App"])
        }
        #expect(
            error?.description.contains(#".product(name: "ReduxSwift", package: "reduxswift-fork")"#) == true)
    }

    @Test(arguments: [
        ("Transaction", "TransactionError, a name"), ("History", "HistoryAction and HistoryError, names"),
        ("Persistence", "PersistenceError and PersistenceService, names"),
        ("Snapshot", "SnapshotError, a name"), ("Async", "AsyncAction, a name"),
        ("ActionLog", "ActionLogError, a name"),
    ])
    func aNameThatWouldDeclareALibraryTypeIsRefused(name: String, clash: String) throws {
        let error = #expect(throws: ScaffoldError.self) {
            try package.run(["--name", name, "--output", "Sources/App", "--skip-target-check"])
        }
        guard case .invalidName(name, let reason) = error else {
            Issue.record("expected invalidName, got \(String(describing: error))")
            return
        }
        #expect(reason.hasPrefix("the feature would declare \(clash) ReduxSwift declares too"))
        #expect(error?.exitCode == 2)
        #expect(package.tree().isEmpty)
    }

    @Test func theListOfLibraryTypesIsEveryPublicTopLevelTypeOfBothModules() throws {
        let root = TemplateSet.defaultDirectory.deletingLastPathComponent()
        var found: Set<String> = []
        for module in ["ReduxSwift", "ReduxSwiftTesting"] {
            let folder = root.appendingPathComponent("Sources/\(module)")
            for case let path as String in FileManager.default.enumerator(atPath: folder.path)?.allObjects
                ?? []
            where path.hasSuffix(".swift") {
                let source = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
                for line in source.split(separator: "\n") where line.first?.isWhitespace == false {
                    let words = line.split(separator: " ").map(String.init)
                    guard words.contains("public") || words.contains("open"),
                        let kind = words.firstIndex(where: {
                            ["class", "struct", "enum", "protocol", "actor", "typealias"].contains($0)
                        }),
                        kind + 1 < words.count
                    else { continue }
                    found.insert(String(words[kind + 1].prefix { $0.isLetter || $0.isNumber || $0 == "_" }))
                }
            }
        }
        #expect(found == Scaffold.libraryTypes)
    }

    @Test func withoutTheTargetCheckNothingIsSaidOfTheTestingLibrary() throws {
        let lines = try package.run(["--name", "Counter", "--output", "Sources/App", "--skip-target-check"])
        #expect(lines.last == #"    register(CounterReducers.reducers(at: \.counter))"#)
    }

    @Test(arguments: [
        ("Counter", "counter"), ("ShoppingList", "shoppingList"), ("URLCache", "urlCache"), ("UI", "ui"),
        ("HTTP2Client", "http2Client"), ("A", "a"), ("ABc", "aBc"), ("Default", "`default`"),
        ("Class", "`class`"), ("Type", "type"), ("Cart_V2", "cart_V2"), ("URLs", "urls"), ("IDs", "ids"),
        ("IDsList", "idsList"), ("Items", "items"), ("Is", "`is`"), ("Private", "`private`"),
        ("Public", "`public`"), ("Internal", "`internal`"), ("Fileprivate", "`fileprivate`"),
        ("Precedencegroup", "`precedencegroup`"),
    ])
    func theMemberForTheFeatureIsItsNameInLowerCamelCase(name: String, member: String) {
        #expect(ScaffoldRequest.memberName(for: name) == member)
    }

    @Test func theTestsFolderCanBeChosenAndTheModuleIsTheTargets() throws {
        let package = ScratchPackage(
            targets: #".target(name: "my-app"), .testTarget(name: "ShopTests", dependencies: ["my-app"])"#)
        let lines = try package.run([
            "--name", "Cart", "--output", "Sources/my-app/Features", "--tests-output", "Tests/ShopTests/Cart",
        ])
        #expect(lines.wrote.last == "wrote Tests/ShopTests/Cart/CartTests.swift")
        #expect(
            package.contents("Tests/ShopTests/Cart/CartTests.swift")?.contains(
                "@testable import my_app\n") == true)
    }

    @Test func withoutTheTargetCheckTheModuleOptionSetsWhatTheTestsImport() throws {
        let package = ScratchPackage()
        let lines = try package.run([
            "--name", "Cart", "--output", "Sources/App", "--module", "Shop", "--skip-target-check",
        ])
        #expect(lines.wrote.last == "wrote Tests/AppTests/CartTests.swift")
        #expect(
            package.contents("Tests/AppTests/CartTests.swift")?.contains("@testable import Shop\n")
                == true)
    }

    @Test func theModuleNameIsDerivedAsSwiftPMDerivesIt() {
        #expect(ScaffoldRequest.moduleName(fromDirectory: "my-app") == "my_app")
        #expect(ScaffoldRequest.moduleName(fromDirectory: "App") == "App")
        #expect(ScaffoldRequest.moduleName(fromDirectory: "2D") == "_2D")
    }

    @Test(arguments: [
        ("", "it is empty"),
        ("counter", "starts with an uppercase ASCII letter (A-Z)"),
        ("Counter-View", "use only ASCII letters (A-Z, a-z), digits (0-9) and underscores"),
        ("Cöunter", "use only ASCII letters (A-Z, a-z), digits (0-9) and underscores"),
        ("Ünïcode", "use only ASCII letters (A-Z, a-z), digits (0-9) and underscores"),
        ("9Lives", "starts with an uppercase ASCII letter (A-Z)"),
        ("Self", "keyword"),
        ("Counter View", "use only ASCII letters (A-Z, a-z), digits (0-9) and underscores"),
    ])
    func anInvalidNameIsRefusedWithTheReason(name: String, reason: String) {
        let error = #expect(throws: ScaffoldError.self) {
            try package.run(["--name", name, "--output", "Sources/App"])
        }
        #expect(error?.description.contains(reason) == true, "\(String(describing: error))")
        #expect(error?.exitCode == 2)
        #expect(!FileManager.default.fileExists(atPath: package.root.appendingPathComponent("Sources").path))
    }

    @Test(arguments: ["../Elsewhere", "Sources/../../Elsewhere", "/tmp/Elsewhere", "/"])
    func anOutputOutsideThePackageIsRefused(output: String) {
        let error = #expect(throws: ScaffoldError.self) {
            try package.run(["--name", "Counter", "--output", output])
        }
        guard case .outsidePackage = error else {
            Issue.record("expected outsidePackage, got \(String(describing: error))")
            return
        }
        #expect(error?.exitCode == 2)
    }

    @Test func aTestsOutputOutsideThePackageIsRefused() {
        let error = #expect(throws: ScaffoldError.self) {
            try package.run(["--name", "Counter", "--output", "Sources/App", "--tests-output", "../Tests"])
        }
        guard case .outsidePackage = error else {
            Issue.record("expected outsidePackage, got \(String(describing: error))")
            return
        }
    }

    @Test func aSymbolicLinkThatLeadsOutsideIsRefused() throws {
        let outside = ScratchPackage()
        try FileManager.default.createSymbolicLink(
            at: package.root.appendingPathComponent("Sources"), withDestinationURL: outside.root)
        let error = #expect(throws: ScaffoldError.self) {
            try package.run(["--name", "Counter", "--output", "Sources/App"])
        }
        guard case .outsidePackage = error else {
            Issue.record("expected outsidePackage, got \(String(describing: error))")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: outside.root.appendingPathComponent("App").path))
    }

    /// Where a test puts a symbolic link to a folder outside the package, the feature's folder
    /// whose tests would go through it, and whether the link's target exists.
    struct OutsideLink: Sendable, CustomTestStringConvertible {
        let link: String
        let output: String
        let targetExists: Bool

        var testDescription: String { "\(link) -> \(targetExists ? "a folder" : "nothing") outside" }
    }

    static let outsideLinks = [
        OutsideLink(link: "Tests", output: "Sources/App", targetExists: true),
        OutsideLink(link: "Tests/AppTests", output: "Sources/App", targetExists: true),
        OutsideLink(link: "Tests/AppTests", output: "Sources/App", targetExists: false),
        OutsideLink(link: "Tests/AppTests/Features", output: "Sources/App/Features", targetExists: true),
    ]

    @Test(arguments: outsideLinks, [true, false])
    func aDefaultTestsFolderLinkedOutsideIsRefusedWithAnyFlags(place: OutsideLink, checksTargets: Bool) throws
    {
        let outside = ScratchPackage()
        let target = outside.root.appendingPathComponent(place.targetExists ? "Tests" : "Missing")
        if place.targetExists {
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        }
        let link = package.root.appendingPathComponent(place.link)
        try FileManager.default.createDirectory(
            at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let flags = checksTargets ? [] : ["--skip-target-check"]
        let error = #expect(throws: ScaffoldError.self) {
            try package.run(["--name", "Counter", "--output", place.output] + flags)
        }
        guard case .outsidePackage = error else {
            Issue.record("expected outsidePackage, got \(String(describing: error))")
            return
        }
        // Nothing is written anywhere: not the tests outside, nor the sources inside.
        let outsideEntries = try Set(FileManager.default.subpathsOfDirectory(atPath: outside.root.path))
        #expect(outsideEntries == Set(["Package.swift"] + (place.targetExists ? ["Tests"] : [])))
        #expect(
            !FileManager.default.fileExists(atPath: package.root.appendingPathComponent(place.output).path))
    }

    @Test func aFileThatWouldLandOutsideThePackageIsNotWritten() throws {
        let outside = ScratchPackage()
        let file = PlannedFile(
            url: package.root.appendingPathComponent("Sources/App/../../../Elsewhere.swift"), contents: "")
        let error = #expect(throws: ScaffoldError.self) {
            try Scaffold.write([file], packageRoot: package.root, force: false)
        }
        guard case .outsidePackage = error else {
            Issue.record("expected outsidePackage, got \(String(describing: error))")
            return
        }
        try FileManager.default.createSymbolicLink(
            at: package.root.appendingPathComponent("Linked"), withDestinationURL: outside.root)
        let linked = PlannedFile(
            url: package.root.appendingPathComponent("Linked/Elsewhere.swift"), contents: "")
        #expect(throws: ScaffoldError.self) {
            try Scaffold.write([linked], packageRoot: package.root, force: false)
        }
        #expect(
            !FileManager.default.fileExists(
                atPath: outside.root.appendingPathComponent("Elsewhere.swift").path))
    }

    @Test func anAbsoluteOutputInsideThePackageIsAccepted() throws {
        let lines = try package.run(["--name", "Counter", "--output", package.root.path + "/Sources/App"])
        #expect(lines.first == "wrote Sources/App/CounterActions.swift")
    }

    @Test func aFolderWithoutPackageSwiftIsRefused() throws {
        try FileManager.default.removeItem(at: package.root.appendingPathComponent("Package.swift"))
        let error = #expect(throws: ScaffoldError.self) {
            try package.run(["--name", "Counter", "--output", "Sources/App"])
        }
        #expect(error == .notAPackage(package.root.path))
    }

    @Test func existingFilesAreNotOverwrittenWithoutForce() throws {
        _ = try package.run(["--name", "Counter", "--output", "Sources/App"])
        let path = package.root.appendingPathComponent("Sources/App/CounterState.swift")
        try Data("// mine".utf8).write(to: path)
        try FileManager.default.removeItem(
            at: package.root.appendingPathComponent("Sources/App/CounterService.swift"))

        let error = #expect(throws: ScaffoldError.self) {
            try package.run(["--name", "Counter", "--output", "Sources/App"])
        }
        guard case .wouldOverwrite(let paths) = error else {
            Issue.record("expected wouldOverwrite, got \(String(describing: error))")
            return
        }
        #expect(paths.contains("Sources/App/CounterState.swift"))
        #expect(error?.exitCode == 1)
        #expect(package.contents("Sources/App/CounterState.swift") == "// mine")
        #expect(
            package.contents("Sources/App/CounterService.swift") == nil,
            "nothing is written when one file exists")

        _ = try package.run(["--name", "Counter", "--output", "Sources/App", "--force"])
        #expect(package.contents("Sources/App/CounterState.swift")?.contains("struct CounterState") == true)
    }

    @Test func missingAndUnknownArgumentsAreUsageErrors() {
        for arguments in [["--output", "Sources/App"], ["--name", "Counter"], ["--name"], ["--frobnicate"]] {
            let error = #expect(throws: ScaffoldError.self) { try package.run(arguments) }
            #expect(error?.exitCode == 2)
            #expect(error?.description.contains("usage: redux-scaffold") == true)
        }
    }

    @Test func aTemplatePlaceholderTheScaffoldDoesNotKnowIsReported() throws {
        let templates = ScratchPackage()
        for name in [TemplateSet.featureTemplate, TemplateSet.testsTemplate] {
            let folder = templates.root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("struct ___VARIABLE_featureName___ {} // ___DATE___".utf8)
                .write(to: folder.appendingPathComponent("___VARIABLE_featureName___.swift"))
        }
        let error = #expect(throws: ScaffoldError.self) {
            try package.run([
                "--name", "Counter", "--output", "Sources/App", "--templates", templates.root.path,
            ])
        }
        #expect(
            error
                == .unrenderedPlaceholder(
                    "___DATE___", file: "\(TemplateSet.featureTemplate)/___VARIABLE_featureName___.swift"))
    }

    @Test func missingTemplatesAreReported() {
        let error = #expect(throws: ScaffoldError.self) {
            try package.run(["--name", "Counter", "--output", "Sources/App", "--templates", "/nonexistent"])
        }
        guard case .templatesMissing = error else {
            Issue.record("expected templatesMissing, got \(String(describing: error))")
            return
        }
    }

    @Test func theXcodeTemplatesDeclareEveryVariableTheirFilesUse() throws {
        let templates = try TemplateSet(directory: TemplateSet.defaultDirectory)
        for template in [templates.feature, templates.tests] {
            let info = try templateInfo(template.name)
            #expect(info["Kind"] as? String == "Xcode.IDEFoundation.TextSubstitutionFileTemplateKind")
            let options = try #require(info["Options"] as? [[String: Any]])
            let declared = Set(options.compactMap { $0["Identifier"] as? String })
            let used = Set(template.files.flatMap { variables(in: $0.name) + variables(in: $0.contents) })
            #expect(used == declared, "\(template.name)")
            let main = try #require(info["MainTemplateFile"] as? String)
            #expect(template.files.contains { $0.name == main })
        }
    }

    @Test func theXcodeTemplatesHaveANameToSuggestAnIconAndWorkInPackages() throws {
        for name in [TemplateSet.featureTemplate, TemplateSet.testsTemplate] {
            let info = try templateInfo(name)
            let main = try #require(info["MainTemplateFile"] as? String)
            let options = try #require(info["Options"] as? [[String: Any]])
            let feature = try #require(options.first { $0["Identifier"] as? String == "featureName" })
            // The name Xcode suggests is the main file's, for the feature name Xcode suggests.
            #expect(
                info["DefaultCompletionName"] as? String
                    == TemplateSet.render(
                        String(main.dropLast(".swift".count)),
                        feature: try #require(feature["Default"] as? String),
                        module: "", fileName: ""))
            #expect(info["SupportsSwiftPackage"] as? Bool == true)
            #expect((info["Platforms"] as? [Any])?.isEmpty == true, "every platform")
            let folder = TemplateSet.defaultDirectory.appendingPathComponent(name)
            for (file, side) in [("TemplateIcon.png", 48), ("TemplateIcon@2x.png", 96)] {
                let data = try Data(contentsOf: folder.appendingPathComponent(file))
                #expect(pngSize(data) == [side, side], "\(name)/\(file)")
            }
        }
    }

    @Test func theTestsImportTheModuleOptionWhichStartsAtTheProjectName() throws {
        let options = try #require(
            try templateInfo(TemplateSet.testsTemplate)["Options"] as? [[String: Any]])
        let module = try #require(options.first { $0["Identifier"] as? String == "moduleName" })
        #expect(module["Default"] as? String == "___PROJECTNAMEASIDENTIFIER___")
        #expect(module["Required"] as? Bool == true)
        let templates = try TemplateSet(directory: TemplateSet.defaultDirectory)
        #expect(
            templates.tests.files.allSatisfy {
                $0.contents.contains("\n@testable import ___VARIABLE_moduleName:identifier___\n")
            })
    }

    @Test func theScaffoldReadsOnlyTheSwiftFilesOfATemplate() throws {
        let templates = try TemplateSet(directory: TemplateSet.defaultDirectory)
        for template in [templates.feature, templates.tests] {
            let folder = TemplateSet.defaultDirectory.appendingPathComponent(template.name)
            let entries = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(entries.contains("TemplateIcon.png") && entries.contains("TemplateInfo.plist"))
            #expect(template.files.map(\.name) == entries.filter { $0.hasSuffix(".swift") }.sorted())
        }
    }

    private func templateInfo(_ name: String) throws -> [String: Any] {
        let url = TemplateSet.defaultDirectory.appendingPathComponent(name)
            .appendingPathComponent("TemplateInfo.plist")
        let plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil)
        return try #require(plist as? [String: Any])
    }

    /// The option identifiers a template text uses, as in `___VARIABLE_featureName___`.
    private func variables(in text: String) -> [String] {
        var found: [String] = []
        var rest = text.startIndex..<text.endIndex
        while let range = text.range(of: "___VARIABLE_[A-Za-z0-9]+", options: .regularExpression, range: rest)
        {
            found.append(String(text[range].dropFirst("___VARIABLE_".count)))
            rest = range.upperBound..<text.endIndex
        }
        return found
    }

    /// Width and height from a PNG's header, or nil if `data` is not a PNG.
    private func pngSize(_ data: Data) -> [Int]? {
        let bytes = [UInt8](data.prefix(24))
        guard bytes.count == 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            return nil
        }
        let field = { (offset: Int) in bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        return [field(16), field(20)]
    }
}

extension [String] {
    /// The lines that name a file written, without the next steps printed after them.
    var wrote: [String] { filter { $0.hasPrefix("wrote ") } }
}

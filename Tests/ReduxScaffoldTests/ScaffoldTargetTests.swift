import Foundation
import Testing

@testable import ReduxScaffold

/// The scaffold writes only where the package's targets compile the files, and the tests import
/// the module of the target that holds the feature. Each test reads a real scratch package with
/// `swift package`, which needs neither a build nor the network.
@Suite(.offThePool) struct ScaffoldTargetTests {
    static let todoKit = """
        .target(name: "TodoKit"), .testTarget(name: "TodoKitTests", dependencies: ["TodoKit"])
        """

    /// The state a target's folder can be in: `swift package describe` fails on a missing one and
    /// leaves out an empty one, and only describes a folder with a source file.
    enum TargetFolders: CaseIterable {
        case missing, empty, withSources
    }

    @Test(arguments: TargetFolders.allCases)
    func theModuleIsTheTargetThatHoldsTheFolderAndTheTestsMirrorIt(folders: TargetFolders) throws {
        let package = ScratchPackage(targets: Self.todoKit)
        if folders != .missing {
            for folder in ["Sources/TodoKit", "Tests/TodoKitTests"] {
                try FileManager.default.createDirectory(
                    at: package.root.appendingPathComponent(folder), withIntermediateDirectories: true)
            }
        }
        if folders == .withSources {
            try Data("let todoKit = 1\n".utf8).write(
                to: package.root.appendingPathComponent("Sources/TodoKit/A.swift"))
            try Data("import TodoKit\n".utf8).write(
                to: package.root.appendingPathComponent("Tests/TodoKitTests/A.swift"))
        }
        let lines = try package.run(["--name", "Wishlist", "--output", "Sources/TodoKit/Features/Wishlist"])
        #expect(lines.first == "wrote Sources/TodoKit/Features/Wishlist/WishlistActions.swift")
        #expect(lines.wrote.last == "wrote Tests/TodoKitTests/Features/Wishlist/WishlistTests.swift")
        let tests = try #require(
            package.contents("Tests/TodoKitTests/Features/Wishlist/WishlistTests.swift"))
        #expect(tests.contains("\n@testable import TodoKit\n"))
    }

    @Test func aTargetWithItsOwnPathGivesItsModuleNameAndItsTestsFolder() throws {
        let package = ScratchPackage(
            targets: """
                .target(name: "Shop-Core", path: "Modules/Core"),
                .testTarget(name: "ShopCoreTests", dependencies: ["Shop-Core"], path: "Checks/Core")
                """)
        for file in ["Modules/Core/Core.swift", "Checks/Core/CoreTests.swift"] {
            let url = package.root.appendingPathComponent(file)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("\n".utf8).write(to: url)
        }
        let lines = try package.run(["--name", "Cart", "--output", "Modules/Core/Cart"])
        #expect(lines.wrote.last == "wrote Checks/Core/Cart/CartTests.swift")
        #expect(
            package.contents("Checks/Core/Cart/CartTests.swift")?.contains(
                "@testable import Shop_Core\n") == true)
    }

    @Test func aTargetInAnotherPredefinedFolderIsFoundWhereSwiftPMLooksForIt() throws {
        let package = ScratchPackage()
        try FileManager.default.createDirectory(
            at: package.root.appendingPathComponent("src"), withIntermediateDirectories: true)
        // The tests go to Tests/: were they put in src/ because no Tests folder exists yet, the
        // build would break as soon as one did.
        let lines = try package.run(["--name", "Counter", "--output", "src/App"])
        #expect(lines.wrote.last == "wrote Tests/AppTests/CounterTests.swift")
    }

    @Test func aTestTargetWhoseFolderDoesNotExistYetGoesInTests() throws {
        let package = ScratchPackage(targets: Self.todoKit)
        try FileManager.default.createDirectory(
            at: package.root.appendingPathComponent("Sources/TodoKit"), withIntermediateDirectories: true)
        let lines = try package.run(["--name", "Wishlist", "--output", "Sources/TodoKit/Features/Wishlist"])
        #expect(lines.wrote.last == "wrote Tests/TodoKitTests/Features/Wishlist/WishlistTests.swift")
    }

    @Test func aModuleOtherThanTheTargetsIsRefusedSinceItCannotOpenTheFeaturesTypes() throws {
        let package = ScratchPackage()
        let error = #expect(throws: ScaffoldError.self) {
            try package.run(["--name", "Counter", "--output", "Sources/App", "--module", "Shop"])
        }
        #expect(
            error?.description.contains("the tests must import App") == true, "\(String(describing: error))")
        #expect(error?.exitCode == 2)
        #expect(package.tree().isEmpty)
        let lines = try package.run(["--name", "Counter", "--output", "Sources/App", "--module", "App"])
        #expect(lines.wrote.last == "wrote Tests/AppTests/CounterTests.swift")
    }

    @Test func aFolderInNoTargetIsRefusedWithTheLinesToAddToTheManifest() throws {
        let package = ScratchPackage(targets: Self.todoKit)
        let error = #expect(throws: ScaffoldError.self) {
            try package.run(["--name", "Counter", "--output", "Sources/App"])
        }
        guard case .misplaced("Sources/App", let reason) = error else {
            Issue.record("expected misplaced, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("in no target of the package, so SwiftPM would never compile the files"))
        #expect(
            reason.contains(
                #"    .target(name: "App", dependencies: [.product(name: "ReduxSwift", package: "ReduxSwift")]),"#
            ))
        #expect(
            reason.contains(
                #"    .testTarget(name: "AppTests", dependencies: ["App", .product(name: "ReduxSwiftTesting", package: "ReduxSwift")]),"#
            ))
        #expect(reason.contains("TodoKit in Sources/TodoKit"))
        #expect(reason.contains("--skip-target-check"))
        #expect(error?.exitCode == 2)
        #expect(package.tree().isEmpty)
    }

    @Test func theArticleShowsTheMessageForAFolderInNoTargetAsItIsPrinted() throws {
        let package = ScratchPackage(targets: Self.todoKit)
        let error = #expect(throws: ScaffoldError.self) {
            try package.run(["--name", "Counter", "--output", "Sources/App"])
        }
        let article = try String(
            contentsOf: TemplateSet.defaultDirectory.deletingLastPathComponent().appendingPathComponent(
                "Sources/ReduxSwift/ReduxSwift.docc/FeaturesAndTemplates.md"),
            encoding: .utf8)
        let printed = "redux-scaffold: \(try #require(error))\n"
        #expect(article.contains("```\n" + printed + "```\n"), "the article should show:\n\(printed)")
    }

    @Test func aFolderOutsideThePredefinedOnesIsSuggestedAsATargetWithAPath() {
        let package = ScratchPackage(targets: Self.todoKit)
        let error = #expect(throws: ScaffoldError.self) {
            try package.run(["--name", "Counter", "--output", "Modules/Counter"])
        }
        #expect(
            error?.description.contains(
                #".target(name: "Counter", dependencies: [.product(name: "ReduxSwift", package: "ReduxSwift")], path: "Modules/Counter"),"#
            ) == true, "\(String(describing: error))")
    }

    @Test(arguments: [
        (
            "Tests/AppTests",
            "it is in the test target AppTests; a feature goes in a library or executable target"
        ),
        ("Sources/App/Legacy", "the target App leaves it out of its sources"),
        ("Sources/App/Assets", "the target App leaves it out of its sources"),
        ("Sources/App/Other", "the target App leaves it out of its sources"),
    ])
    func aFolderThatNoLibraryOrExecutableTargetCompilesIsRefused(output: String, reason: String) {
        let package = ScratchPackage(
            targets: """
                .target(name: "App", exclude: ["Legacy"], sources: ["Legacy", "Main", "Assets"], resources: [.copy("Assets")]),
                .testTarget(name: "AppTests", dependencies: ["App"])
                """)
        let error = #expect(throws: ScaffoldError.self) {
            try package.run(["--name", "Counter", "--output", output])
        }
        #expect(
            error?.description.hasPrefix("will not write to \(output): \(reason)") == true,
            "\(String(describing: error))")
        #expect(error?.exitCode == 2)
        #expect(package.tree().isEmpty)
    }

    @Test(arguments: [
        ("Sources/App/Tests", "it is in App, which is not a test target; tests go in a test target"),
        ("Tests/Elsewhere", "it is in no target of the package, so SwiftPM would never compile the tests"),
        (
            "Tests/OtherTests",
            "the test target OtherTests does not depend on App, so the tests cannot import it"
        ),
    ])
    func aTestsFolderOutsideATestTargetOfTheFeatureIsRefused(testsOutput: String, reason: String) {
        let package = ScratchPackage(
            targets:
                #".target(name: "App"), .testTarget(name: "AppTests", dependencies: ["App"]), .testTarget(name: "OtherTests")"#
        )
        let error = #expect(throws: ScaffoldError.self) {
            try package.run(["--name", "Counter", "--output", "Sources/App", "--tests-output", testsOutput])
        }
        #expect(
            error?.description.hasPrefix("will not write to \(testsOutput): \(reason)") == true,
            "\(String(describing: error))")
        #expect(package.tree().isEmpty)
    }

    @Test func withoutATestTargetTheScaffoldSaysHowToAddOne() {
        let package = ScratchPackage(targets: #".target(name: "App")"#)
        let error = #expect(throws: ScaffoldError.self) {
            try package.run(["--name", "Counter", "--output", "Sources/App"])
        }
        guard case .noTestTarget("App", let reason) = error else {
            Issue.record("expected noTestTarget, got \(String(describing: error))")
            return
        }
        #expect(
            reason.contains(
                #".testTarget(name: "AppTests", dependencies: ["App", .product(name: "ReduxSwiftTesting", package: "ReduxSwift")]),"#
            ))
        #expect(error?.exitCode == 2)
        #expect(package.tree().isEmpty)
    }

    @Test func aTestTargetNamedAfterTheTargetButNotDependingOnItIsNamed() {
        let package = ScratchPackage(targets: #".target(name: "App"), .testTarget(name: "AppTests")"#)
        let error = #expect(throws: ScaffoldError.self) {
            try package.run(["--name", "Counter", "--output", "Sources/App"])
        }
        #expect(
            error?.description.contains(#"the test target AppTests does not depend on App"#) == true,
            "\(String(describing: error))")
    }

    @Test func ofSeveralTestTargetsTheOneNamedAfterTheTargetIsChosenOrTheUserIsAsked() throws {
        let several =
            #".testTarget(name: "UITests", dependencies: ["App"]), .testTarget(name: "IntegrationTests", dependencies: ["App"])"#
        let named = ScratchPackage(
            targets: #".target(name: "App"), .testTarget(name: "AppTests", dependencies: ["App"]), "#
                + several)
        #expect(
            try named.run(["--name", "Counter", "--output", "Sources/App"]).wrote.last
                == "wrote Tests/AppTests/CounterTests.swift")

        let unnamed = ScratchPackage(targets: #".target(name: "App"), "# + several)
        let error = #expect(throws: ScaffoldError.self) {
            try unnamed.run(["--name", "Counter", "--output", "Sources/App"])
        }
        #expect(
            error?.description
                == "cannot choose where the tests of App go: several test targets depend on it (IntegrationTests, UITests); pass --tests-output with a folder in the one the tests go in"
        )
    }

    @Test func aPackageWhoseTargetsCannotBeReadIsRefusedUnlessTheCheckIsSkipped() throws {
        let package = ScratchPackage()
        package.writeManifest("this is not Swift\n")
        let error = #expect(throws: ScaffoldError.self) {
            try package.run(["--name", "Wishlist", "--output", "Sources/TodoKit/Features/Wishlist"])
        }
        guard case .targetsUnreadable(let reason) = error else {
            Issue.record("expected targetsUnreadable, got \(String(describing: error))")
            return
        }
        #expect(reason.hasPrefix("`swift package dump-package` failed: "), "\(reason)")
        #expect(error?.description.contains("pass --skip-target-check to write without checking") == true)
        #expect(error?.exitCode == 1)
        #expect(package.tree().isEmpty)

        let lines = try package.run([
            "--name", "Wishlist", "--output", "Sources/TodoKit/Features/Wishlist", "--skip-target-check",
        ])
        #expect(lines.wrote.last == "wrote Tests/TodoKitTests/Features/Wishlist/WishlistTests.swift")
        #expect(
            package.contents("Tests/TodoKitTests/Features/Wishlist/WishlistTests.swift")?.contains(
                "@testable import TodoKit\n") == true)
    }

    @Test func withoutTheCheckAFolderOutsideThePredefinedOnesIsATargetOfItsOwn() {
        let root = URL(fileURLWithPath: "/package", isDirectory: true)
        let placement = FeaturePlacement(
            unchecked: root.appendingPathComponent("Modules/my-kit"), tests: nil, module: nil,
            packageRoot: root)
        #expect(placement.module == "my_kit")
        #expect(placement.testsDirectory.path == "/package/Tests/my-kitTests")
    }
}

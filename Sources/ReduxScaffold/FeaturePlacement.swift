import Foundation

/// Where a feature's tests go and which module they import, worked out from the folder of its
/// sources: checked against the package's targets, so that SwiftPM compiles every file written, or
/// guessed from SwiftPM's conventions when the targets are not checked.
struct FeaturePlacement: Equatable {
    let module: String
    let testsDirectory: URL
    /// The test target the tests go in, when it is known not to depend on ReduxSwiftTesting, which
    /// the tests import; nil when it does, or when the targets are not checked.
    var testTargetLackingTestingLibrary: String? = nil
    /// The feature's target, when it is known not to depend on ReduxSwift, which the feature
    /// imports; nil when it does, or when the targets are not checked.
    var targetLackingLibrary: String? = nil
    /// How `Package.swift` names the package that provides ReduxSwift, for the lines suggested.
    var libraryPackage = "ReduxSwift"

    /// Checks `sources`, and `tests` if given, against `targets`.
    ///
    /// The sources must be compiled by a library or executable target, which gives the module. The
    /// tests go in the folder given, which a test target must compile; or else in the test target
    /// that depends on the sources' target (the one named after it with `Tests` if several do), in
    /// the same subfolder: `Sources/TodoKit/Features/Wishlist` gives
    /// `Tests/TodoKitTests/Features/Wishlist`.
    init(
        sources: URL, tests: URL?, module: String?, targets: PackageTargets, packageRoot root: URL
    ) throws(ScaffoldError) {
        let relative = { (url: URL) in url.path(relativeTo: root) }
        guard let owner = targets.target(containing: sources) else {
            throw .misplaced(
                relative(sources),
                reason: Self.noTargetAdvice(for: relative(sources), targets: targets, packageRoot: root))
        }
        switch owner.kind {
        case .code: break
        case .test:
            throw .misplaced(
                relative(sources),
                reason:
                    "it is in the test target \(owner.name); a feature goes in a library or executable target"
            )
        case .other(let type):
            throw .misplaced(
                relative(sources),
                reason:
                    "it is in \(owner.name), a \(type) target; a feature goes in a library or executable target"
            )
        }
        guard owner.compiles(sources) else {
            throw .misplaced(relative(sources), reason: Self.leftOut(by: owner))
        }
        // The tests `@testable import` the feature's internal types, which only the module that
        // compiles them opens: importing another one, even one that re-exports it, cannot compile.
        if let module, module != owner.module {
            throw .misplaced(
                relative(sources),
                reason: """
                    the tests must import \(owner.module), the module of the target \(owner.name) that \
                    holds it, since they test its internal types; leave out --module \(module)
                    """)
        }
        self.module = owner.module
        if let tests {
            try Self.check(tests: tests, for: owner, targets: targets, packageRoot: root)
            testsDirectory = tests
        } else {
            testsDirectory = try Self.testsDirectory(
                for: sources, in: owner, targets: targets, packageRoot: root)
        }
        if let testTarget = targets.target(containing: testsDirectory),
            !testTarget.dependsOn(library: Self.testingLibrary)
        {
            testTargetLackingTestingLibrary = testTarget.name
        }
        if !owner.dependsOn(library: "ReduxSwift") { targetLackingLibrary = owner.name }
        libraryPackage = targets.libraryPackage
    }

    /// The library the generated tests import, for `TestStore`.
    static let testingLibrary = "ReduxSwiftTesting"

    /// Without the package's targets, as SwiftPM lays out a package by default: in
    /// `Sources/TodoKit/Features/Wishlist` the target, and so the module, is `TodoKit`, and the tests
    /// go in `Tests/TodoKitTests/Features/Wishlist`. A folder outside the predefined ones is taken to
    /// be a target of its own.
    init(unchecked sources: URL, tests: URL?, module: String?, packageRoot root: URL) {
        let parts = sources.path(relativeTo: root).split(separator: "/").map(String.init)
        let (target, subfolders): (String, [String]) =
            parts.count >= 2 && PackageTargets.sourcesFolders.contains(parts[0])
            ? (parts[1], Array(parts.dropFirst(2))) : (parts.last ?? "", [])
        self.module = module ?? ScaffoldRequest.moduleName(fromDirectory: target)
        testsDirectory =
            tests
            ?? (["Tests", target + "Tests"] + subfolders).reduce(root) {
                $0.appendingPathComponent($1, isDirectory: true)
            }
    }

    private static func check(
        tests: URL, for owner: PackageTarget, targets: PackageTargets,
        packageRoot root: URL
    ) throws(ScaffoldError) {
        let path = tests.path(relativeTo: root)
        guard let testTarget = targets.target(containing: tests) else {
            throw .misplaced(
                path,
                reason: """
                    it is in no target of the package, so SwiftPM would never compile the tests. Add a \
                    test target to the targets in Package.swift, as in
                        \(testTargetDeclaration(for: owner.name, package: targets.libraryPackage))
                    and choose a folder in it; or pass --skip-target-check to write anyway
                    """)
        }
        guard testTarget.kind == .test else {
            throw .misplaced(
                path,
                reason: "it is in \(testTarget.name), which is not a test target; tests go in a test target")
        }
        guard testTarget.compiles(tests) else {
            throw .misplaced(path, reason: leftOut(by: testTarget))
        }
        guard testTarget.dependencies.contains(owner.name) else {
            throw .misplaced(
                path,
                reason: """
                    the test target \(testTarget.name) does not depend on \(owner.name), so the tests \
                    cannot import it; add "\(owner.name)" to its dependencies in Package.swift
                    """)
        }
    }

    private static func testsDirectory(
        for sources: URL, in owner: PackageTarget, targets: PackageTargets, packageRoot root: URL
    ) throws(ScaffoldError) -> URL {
        let dependents = targets.targets.filter { $0.kind == .test && $0.dependencies.contains(owner.name) }
        let preferred = owner.name + "Tests"
        guard
            let testTarget = dependents.first(where: { $0.name == preferred })
                ?? (dependents.count == 1 ? dependents.first : nil)
        else {
            throw .noTestTarget(
                owner.name,
                reason: dependents.isEmpty
                    ? noTestTargetAdvice(for: owner.name, targets: targets)
                    : "several test targets depend on it ("
                        + dependents.map(\.name).sorted().joined(separator: ", ")
                        + "); pass --tests-output with a folder in the one the tests go in")
        }
        let subfolder = sources.path(relativeTo: owner.directory)
        let tests =
            subfolder.isEmpty ? testTarget.directory : testTarget.directory.appendingPathComponent(subfolder)
        guard tests.isInside(root), tests != root else {
            throw .outsidePackage(tests.path, package: root.path)
        }
        guard testTarget.compiles(tests) else {
            throw .misplaced(
                tests.path(relativeTo: root), reason: leftOut(by: testTarget) + "; pass --tests-output")
        }
        return tests
    }

    // MARK: Advice

    private static func leftOut(by target: PackageTarget) -> String {
        """
        the target \(target.name) leaves it out of its sources (with `sources`, `exclude` or `resources` \
        in Package.swift), so SwiftPM would never compile what is written there
        """
    }

    private static func noTargetAdvice(for path: String, targets: PackageTargets, packageRoot root: URL)
        -> String
    {
        // `Sources/App/Features` suggests a target `App`, which SwiftPM looks for in `Sources/App`
        // by default; any other folder, a target of its own with a `path`.
        let parts = path.split(separator: "/").map(String.init)
        let inPredefinedFolder =
            parts.count >= 2
            && parts[0] + "/" + parts[1]
                == PackageTargets.predefinedPath(of: parts[1], test: false, packageRoot: root)
        let target = inPredefinedFolder ? parts[1] : parts.last ?? path
        let pathArgument = inPredefinedFolder ? "" : ", path: \"\(path)\""
        let existing = targets.targets.filter { $0.kind == .code }
            .map { "\($0.name) in \($0.directory.path(relativeTo: root))" }
        return [
            "it is in no target of the package, so SwiftPM would never compile the files. Add the target "
                + "and its tests to the targets in Package.swift:",
            "    .target(name: \"\(target)\", dependencies: [.product(name: \"ReduxSwift\", package: \"\(targets.libraryPackage)\")]"
                + "\(pathArgument)),",
            "    " + testTargetDeclaration(for: target, package: targets.libraryPackage),
            "then run the scaffold again; "
                + (existing.isEmpty
                    ? "" : "or choose a folder in a target (" + existing.joined(separator: ", ") + "); ")
                + "or pass --skip-target-check to write anyway",
        ].joined(separator: "\n")
    }

    private static func noTestTargetAdvice(for target: String, targets: PackageTargets) -> String {
        if let named = targets.targets.first(where: { $0.kind == .test && $0.name == target + "Tests" }) {
            return """
                the test target \(named.name) does not depend on \(target), so the tests could not import \
                it; add "\(target)" to its dependencies in Package.swift, or pass --tests-output
                """
        }
        return """
            no test target depends on it, so SwiftPM would never compile the tests. Add one to the \
            targets in Package.swift:
                \(testTargetDeclaration(for: target, package: targets.libraryPackage))
            or pass --tests-output with a folder in a test target that depends on \(target)
            """
    }

    private static func testTargetDeclaration(for target: String, package: String) -> String {
        ".testTarget(name: \"\(target)Tests\", dependencies: [\"\(target)\", "
            + ".product(name: \"ReduxSwiftTesting\", package: \"\(package)\")]),"
    }
}

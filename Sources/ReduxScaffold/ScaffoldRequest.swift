import Foundation

/// What to generate, checked: a valid name, and output folders inside the package, in targets that
/// SwiftPM compiles.
struct ScaffoldRequest: Equatable {
    var name: String
    var module: String
    var packageRoot: URL
    var sourcesDirectory: URL
    var testsDirectory: URL
    var force: Bool
    /// The test target the tests go in, when it is known not to depend on ReduxSwiftTesting.
    var testTargetLackingTestingLibrary: String?
    /// The feature's target, when it is known not to depend on ReduxSwift.
    var targetLackingLibrary: String?
    /// How `Package.swift` names the package that provides ReduxSwift.
    var libraryPackage = "ReduxSwift"

    /// Checks the options and resolves every path against the package.
    ///
    /// With `checkTargets`, reads the package's targets with `swift package` and refuses folders that
    /// SwiftPM would not compile (see ``FeaturePlacement``); without, follows SwiftPM's conventions.
    init(
        name: String, output: String, testsOutput: String?, module: String?, packagePath: String, force: Bool,
        checkTargets: Bool
    ) throws(ScaffoldError) {
        try Self.validateTypeName(name)
        if let module { try Self.validateModuleName(module) }
        let root = URL(fileURLWithPath: packagePath, isDirectory: true).standardizedFileURL
            .resolvingSymlinksInPath()
        guard FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) else {
            throw .notAPackage(root.path)
        }
        let sources = try Self.resolve(output, inside: root)
        var tests: URL?
        if let testsOutput { tests = try Self.resolve(testsOutput, inside: root) }
        let placement =
            checkTargets
            ? try FeaturePlacement(
                sources: sources, tests: tests, module: module,
                targets: PackageTargets.read(packageRoot: root),
                packageRoot: root)
            : FeaturePlacement(unchecked: sources, tests: tests, module: module, packageRoot: root)
        try Self.validateModuleName(placement.module)
        self.name = name
        self.module = placement.module
        packageRoot = root
        sourcesDirectory = sources
        // The tests' folder may come from the targets or the conventions rather than an option: it
        // passes the same check, so a link on its way (`Tests/AppTests` to another folder) cannot
        // lead the files out.
        testsDirectory = try Self.contained(
            placement.testsDirectory, named: placement.testsDirectory.path, inside: root)
        self.force = force
        testTargetLackingTestingLibrary = placement.testTargetLackingTestingLibrary
        targetLackingLibrary = placement.targetLackingLibrary
        libraryPackage = placement.libraryPackage
    }

    /// The name of the member of the app's state that holds the feature's state: the feature's
    /// name in lower camel case (`ShoppingList` gives `shoppingList`, `URLCache` gives `urlCache`,
    /// `IDs` gives `ids`), in backquotes if that is a keyword.
    static func memberName(for name: String) -> String {
        let characters = Array(name)
        let leadingUppercase = characters.prefix { $0.isUppercase }.count
        var lowered = leadingUppercase
        if lowered < characters.count, characters[lowered] == "s",
            lowered + 1 == characters.count || !characters[lowered + 1].isLowercase
        {
            lowered += 1  // a plural's `s` ends the capitals' word: `URLs` gives `urls`
        } else if lowered > 1, lowered < characters.count, characters[lowered].isLowercase {
            lowered -= 1  // the last capital starts the next word: `URLCache` gives `urlCache`
        }
        let member =
            characters.prefix(lowered).map { $0.lowercased() }.joined()
            + String(characters.dropFirst(lowered))
        return keywords.contains(member) ? "`\(member)`" : member
    }

    /// What to do once the files are written: the lines that join the feature to the app's store,
    /// and the dependency its tests need if the test target lacks it.
    var nextSteps: [String] {
        let member = Self.memberName(for: name)
        var lines = [
            "Next, add the feature's state to the app's state, and register its reducers in the app store's init:",
            "    var \(member) = \(name)State()",
            "    register(\(name)Reducers.reducers(at: \\.\(member)))",
        ]
        if let target = targetLackingLibrary {
            lines.append(
                "The feature imports ReduxSwift: add .product(name: \"ReduxSwift\", package: \"\(libraryPackage)\") "
                    + "to the dependencies of \(target) in Package.swift.")
        }
        if let testTarget = testTargetLackingTestingLibrary {
            lines.append(
                "The tests use TestStore: add .product(name: \"ReduxSwiftTesting\", package: \"\(libraryPackage)\") "
                    + "to the dependencies of \(testTarget) in Package.swift.")
        }
        return lines
    }

    static let keywords: Set<String> = [
        "Any", "Self", "Type", "Protocol", "associatedtype", "class", "deinit", "enum", "extension", "func",
        "import", "init", "inout", "let", "operator", "protocol", "static", "struct", "subscript",
        "typealias",
        "var", "break", "case", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard",
        "if", "in", "repeat", "return", "switch", "where", "while", "as", "catch", "false", "is", "nil",
        "rethrows", "super", "self", "throw", "throws", "true", "try", "private", "fileprivate", "internal",
        "public", "precedencegroup",
    ]

    /// A type name: an uppercase ASCII letter, then ASCII letters, digits or underscores.
    static func validateTypeName(_ name: String) throws(ScaffoldError) {
        guard let first = name.unicodeScalars.first else {
            throw .invalidName(name, reason: "it is empty")
        }
        guard
            name.unicodeScalars.allSatisfy({
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_")
            })
        else {
            throw .invalidName(
                name,
                reason:
                    "use only ASCII letters (A-Z, a-z), digits (0-9) and underscores, as in a Swift type name"
            )
        }
        guard CharacterSet.uppercaseLetters.contains(first) else {
            throw .invalidName(
                name, reason: "a type name starts with an uppercase ASCII letter (A-Z), as in Counter")
        }
        guard !keywords.contains(name) else {
            throw .invalidName(name, reason: "it is a Swift keyword")
        }
    }

    /// A module name as SwiftPM makes one: characters other than letters, digits and `_` become `_`.
    static func moduleName(fromDirectory name: String) -> String {
        let scalars = name.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "_")
                ? Character(scalar) : "_"
        }
        let module = String(scalars)
        return module.first?.isNumber == true ? "_" + module : module
    }

    static func validateModuleName(_ name: String) throws(ScaffoldError) {
        let valid =
            !name.isEmpty && name.first?.isNumber == false
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_")
            }
        if !valid {
            throw .usage(
                "'\(name)' is not a module name: use ASCII letters, digits and underscores, not starting with a digit"
            )
        }
    }

    /// Resolves `path` (relative to the package, or absolute) and checks it stays inside the package,
    /// following symbolic links of the parts that exist.
    static func resolve(_ path: String, inside root: URL) throws(ScaffoldError) -> URL {
        guard !path.isEmpty else { throw .usage("an output path is empty") }
        let url =
            path.hasPrefix("/")
            ? URL(fileURLWithPath: path, isDirectory: true)
            : root.appendingPathComponent(path, isDirectory: true)
        return try contained(url, named: path, inside: root)
    }

    /// `url` without `..` components and with the symbolic links of its existing parts followed
    /// (a link whose target is missing too), if that is inside the package: the check every path
    /// the scaffold writes passes, whatever gave it. `name` is how the error names it.
    static func contained(_ url: URL, named name: String, inside root: URL) throws(ScaffoldError) -> URL {
        let resolved = url.standardizedFileURL.resolvingExistingSymlinks()
        guard resolved.path.hasPrefix(root.path + "/") else {
            throw .outsidePackage(name, package: root.path)
        }
        return resolved
    }
}

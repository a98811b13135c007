import Foundation

/// What to generate, checked: a valid name, and output folders inside the package.
struct ScaffoldRequest: Equatable {
    var name: String
    var module: String
    var packageRoot: URL
    var sourcesDirectory: URL
    var testsDirectory: URL
    var force: Bool

    /// Checks the options and resolves every path against the package.
    init(
        name: String, output: String, testsOutput: String?, module: String?, packagePath: String, force: Bool
    ) throws(ScaffoldError) {
        try Self.validateTypeName(name)
        let root = URL(fileURLWithPath: packagePath, isDirectory: true).standardizedFileURL
            .resolvingSymlinksInPath()
        guard FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) else {
            throw .notAPackage(root.path)
        }
        let sources = try Self.resolve(output, inside: root)
        let moduleName = module ?? Self.moduleName(fromDirectory: sources.lastPathComponent)
        try Self.validateModuleName(moduleName)
        self.name = name
        self.module = moduleName
        packageRoot = root
        sourcesDirectory = sources
        testsDirectory = try Self.resolve(testsOutput ?? "Tests/\(moduleName)Tests", inside: root)
        self.force = force
    }

    static let keywords: Set<String> = [
        "Any", "Self", "Type", "Protocol", "associatedtype", "class", "deinit", "enum", "extension", "func",
        "import", "init", "inout", "let", "operator", "protocol", "static", "struct", "subscript",
        "typealias",
        "var", "break", "case", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard",
        "if", "in", "repeat", "return", "switch", "where", "while", "as", "catch", "false", "is", "nil",
        "rethrows", "super", "self", "throw", "throws", "true", "try",
    ]

    /// A type name: an ASCII letter, then letters, digits or underscores; upper camel case.
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
                name, reason: "use only letters, digits and underscores, as in a Swift type name")
        }
        guard CharacterSet.uppercaseLetters.contains(first) else {
            throw .invalidName(name, reason: "a type name starts with an uppercase letter, as in Counter")
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
        if !valid { throw .usage("'\(name)' is not a valid module name; pass --module") }
    }

    /// Resolves `path` (relative to the package, or absolute) and checks it stays inside the package,
    /// following symbolic links of the parts that exist.
    static func resolve(_ path: String, inside root: URL) throws(ScaffoldError) -> URL {
        guard !path.isEmpty else { throw .usage("an output path is empty") }
        let url =
            path.hasPrefix("/")
            ? URL(fileURLWithPath: path, isDirectory: true)
            : root.appendingPathComponent(path, isDirectory: true)
        let resolved = resolvingExistingSymlinks(url.standardizedFileURL)
        guard resolved.path.hasPrefix(root.path + "/") else {
            throw .outsidePackage(path, package: root.path)
        }
        return resolved
    }

    /// Resolves symbolic links in the longest part of `url` that exists, and keeps the rest.
    private static func resolvingExistingSymlinks(_ url: URL) -> URL {
        var existing = url
        var rest: [String] = []
        while !FileManager.default.fileExists(atPath: existing.path), existing.path != "/" {
            rest.insert(existing.lastPathComponent, at: 0)
            existing.deleteLastPathComponent()
        }
        var resolved = existing.resolvingSymlinksInPath()
        for component in rest { resolved.appendPathComponent(component) }
        return resolved
    }
}

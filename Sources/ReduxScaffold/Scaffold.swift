import Foundation

/// Why the scaffold refused to run; each case reads as one line for the terminal.
enum ScaffoldError: Error, Equatable, CustomStringConvertible {
    case usage(String)
    case invalidName(String, reason: String)
    case notAPackage(String)
    case outsidePackage(String, package: String)
    case wouldOverwrite([String])
    case templatesMissing(String)
    case unrenderedPlaceholder(String, file: String)
    case writeFailed(String, reason: String)

    var description: String {
        switch self {
        case .usage(let message):
            return message
        case .invalidName(let name, let reason):
            return "'\(name)' is not a valid feature name: \(reason)"
        case .notAPackage(let path):
            return "\(path) is not a Swift package (it has no Package.swift)"
        case .outsidePackage(let path, let package):
            return "\(path) is outside the package at \(package)"
        case .wouldOverwrite(let paths):
            return "these files exist; pass --force to overwrite them: " + paths.joined(separator: ", ")
        case .templatesMissing(let path):
            return "cannot read the templates at \(path); pass --templates with the Templates folder"
        case .unrenderedPlaceholder(let placeholder, let file):
            return "the template for \(file) uses \(placeholder), which the scaffold does not know"
        case .writeFailed(let path, let reason):
            return "cannot write \(path): \(reason)"
        }
    }

    /// 2 for a mistake in the command line, 1 for everything else.
    var exitCode: Int32 {
        switch self {
        case .usage, .invalidName, .outsidePackage: return 2
        default: return 1
        }
    }
}

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

/// One file the scaffold will write.
struct PlannedFile: Equatable {
    let url: URL
    let contents: String
}

enum Scaffold {
    /// Renders every template file for `request`; writes nothing.
    static func plan(_ request: ScaffoldRequest, templates: TemplateSet) throws(ScaffoldError)
        -> [PlannedFile]
    {
        var planned: [PlannedFile] = []
        for (template, directory) in [
            (templates.feature, request.sourcesDirectory), (templates.tests, request.testsDirectory),
        ] {
            for file in template.files {
                let name = TemplateSet.render(
                    file.name, feature: request.name, module: request.module, fileName: "")
                let contents = TemplateSet.render(
                    file.contents, feature: request.name, module: request.module, fileName: name)
                if let range = contents.range(of: #"___[A-Za-z_:]+___"#, options: .regularExpression) {
                    throw .unrenderedPlaceholder(
                        String(contents[range]), file: "\(template.name)/\(file.name)")
                }
                planned.append(PlannedFile(url: directory.appendingPathComponent(name), contents: contents))
            }
        }
        return planned
    }

    /// Writes the planned files, all or nothing, refusing to replace any existing entry (a file, or
    /// a symbolic link even if its target is missing) unless `force` is set. `force` replaces the
    /// entry itself, never the target of a link, and never replaces a directory.
    ///
    /// - Returns: The paths written, relative to the package root.
    static func write(
        _ files: [PlannedFile], packageRoot: URL, force: Bool, fileSystem: ScaffoldFileSystem = .posix
    ) throws(ScaffoldError) -> [String] {
        let relative = { (url: URL) in String(url.path.dropFirst(packageRoot.path.count + 1)) }
        var existing: [String] = []
        for file in files {
            switch ScaffoldWriter.entry(at: file.url.path) {
            case .none: break
            case .replaceable: existing.append(relative(file.url))
            case .notAFile(let reason): throw .writeFailed(relative(file.url), reason: reason)
            }
        }
        if !existing.isEmpty, !force { throw .wouldOverwrite(existing) }
        var writer = ScaffoldWriter(packageRoot: packageRoot, fileSystem: fileSystem)
        try writer.write(files)
        return files.map { relative($0.url) }
    }
}

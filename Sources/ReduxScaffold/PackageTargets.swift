import Foundation

/// A target of the package as SwiftPM builds it: where its sources are, what it compiles of them,
/// and which targets of the package it depends on.
struct PackageTarget: Equatable {
    /// What SwiftPM makes of a target, as far as the scaffold cares.
    enum Kind: Equatable {
        /// A library or executable target: where a feature's code can go.
        case code
        /// A test target.
        case test
        /// Any other kind (macro, plugin, system library, binary), named as the manifest names it.
        case other(String)
    }

    let name: String
    /// The module its code is compiled into: what `import` names.
    let module: String
    let kind: Kind
    /// The folder of its sources, with symbolic links resolved as the scaffold resolves its folders.
    let directory: URL
    /// The parts of `directory` it compiles, when the manifest lists `sources`; nil for all of it.
    let sources: [URL]?
    /// The parts of `directory` it does not compile: its `exclude` and `resources` entries.
    let excluded: [URL]
    /// The targets of the package it depends on, by name.
    let dependencies: [String]
    /// The products of other packages it depends on.
    var products: [ProductDependency] = []

    /// A product of another package, as `.product(name:package:)` names it.
    struct ProductDependency: Equatable {
        let name: String
        let package: String
    }

    /// Whether it depends on `library`: the product of another package, or this package's target.
    func dependsOn(library: String) -> Bool {
        products.contains { $0.name == library } || dependencies.contains(library)
    }

    /// Whether SwiftPM compiles the Swift files in `folder`, a folder inside `directory`.
    func compiles(_ folder: URL) -> Bool {
        // A `sources` entry inside the folder compiles only part of it; the scaffold's files are
        // not in that part unless the entry holds the whole folder.
        (sources?.contains { folder.isInside($0) } ?? true) && !excluded.contains { folder.isInside($0) }
    }
}

/// The targets of a package, read with `swift package`: the manifest as SwiftPM evaluates it
/// (`dump-package`), and the folders SwiftPM found for them (`describe`).
///
/// Neither command builds anything or uses the network. `describe` is the authority on where a
/// target's sources are, but it fails when a declared target's folder does not exist yet and
/// leaves out a target whose folder holds no source yet: the state of a target just added for the
/// scaffold to fill. Such a target is placed where SwiftPM will look for it, in the first of the
/// predefined folders that exists, as `describe` will once its folder has a file.
struct PackageTargets {
    let targets: [PackageTarget]
    /// How the manifest names the package that provides ReduxSwift, for the lines the scaffold
    /// suggests: as a target already names it in `.product(name:package:)`, or else the identity
    /// of the one dependency whose identity contains `reduxswift`; `ReduxSwift` otherwise.
    var libraryPackage = "ReduxSwift"

    /// SwiftPM's predefined folders for the sources of a target without a `path`, in its order.
    static let sourcesFolders = ["Sources", "Source", "src", "srcs"]
    /// The same for a test target.
    static let testsFolders = ["Tests"] + sourcesFolders

    /// Reads the targets of the package at `packageRoot` by running `swift package`.
    static func read(packageRoot: URL) throws(ScaffoldError) -> PackageTargets {
        let manifest: Data
        switch swiftPackage(["dump-package"], packageRoot: packageRoot) {
        case .success(let output): manifest = output
        case .failure(let failure): throw .targetsUnreadable(failure.reason)
        }
        // Only a missing folder should make `describe` fail once `dump-package` has succeeded;
        // the targets it cannot describe are placed by SwiftPM's rules instead.
        let description = try? swiftPackage(["describe", "--type", "json"], packageRoot: packageRoot).get()
        return try PackageTargets(manifest: manifest, description: description, packageRoot: packageRoot)
    }

    /// Reads the JSON output of `swift package dump-package` and, if there is one, of
    /// `swift package describe --type json`.
    init(manifest: Data, description: Data?, packageRoot root: URL) throws(ScaffoldError) {
        guard
            let manifestObject = try? JSONSerialization.jsonObject(with: manifest) as? [String: Any],
            let declared = manifestObject["targets"] as? [[String: Any]]
        else {
            throw .targetsUnreadable("`swift package dump-package` printed no list of targets")
        }
        var described: [String: (path: String, module: String?)] = [:]
        if let description,
            let object = try? JSONSerialization.jsonObject(with: description) as? [String: Any],
            let targets = object["targets"] as? [[String: Any]]
        {
            for target in targets {
                if let name = target["name"] as? String, let path = target["path"] as? String {
                    described[name] = (path, target["c99name"] as? String)
                }
            }
        }
        targets = declared.compactMap { target -> PackageTarget? in
            guard let name = target["name"] as? String, let type = target["type"] as? String else {
                return nil
            }
            let kind: PackageTarget.Kind =
                switch type {
                case "regular", "executable": .code
                case "test": .test
                default: .other(type)
                }
            let path =
                described[name]?.path ?? target["path"] as? String
                ?? Self.predefinedPath(of: name, test: kind == .test, packageRoot: root)
            let directory = Self.folder(path, in: root)
            let resources = (target["resources"] as? [[String: Any]] ?? []).compactMap {
                $0["path"] as? String
            }
            let dependencies = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency in
                // `.target(name:)` and a plain string name a target as the first element;
                // `.product(…)` names a product of another package, never a target of this one.
                ((dependency["target"] ?? dependency["byName"]) as? [Any])?.first as? String
            }
            let products = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency in
                (dependency["product"] as? [Any]).flatMap { product -> PackageTarget.ProductDependency? in
                    guard product.count > 1, let name = product[0] as? String,
                        let package = product[1] as? String
                    else { return nil }
                    return PackageTarget.ProductDependency(name: name, package: package)
                }
            }
            return PackageTarget(
                name: name,
                module: described[name]?.module ?? ScaffoldRequest.moduleName(fromDirectory: name),
                kind: kind, directory: directory,
                sources: (target["sources"] as? [String])?.map { Self.folder($0, in: directory) },
                excluded: ((target["exclude"] as? [String] ?? []) + resources).map {
                    Self.folder($0, in: directory)
                },
                dependencies: dependencies, products: products)
        }
        let named = targets.lazy.flatMap(\.products).first {
            ["ReduxSwift", "ReduxSwiftTesting"].contains($0.name)
        }
        let identities = (manifestObject["dependencies"] as? [[String: Any]] ?? []).flatMap { dependency in
            // Each is `{"<kind>": [{"identity": …, …}]}`, whatever the kind (path, URL, registry).
            dependency.values.compactMap { ($0 as? [[String: Any]])?.first?["identity"] as? String }
        }
        let likely = identities.filter { $0.lowercased().contains("reduxswift") }
        if let package = named?.package ?? (likely.count == 1 ? likely.first : nil) {
            libraryPackage = package
        }
    }

    /// The target whose folder holds `folder`; the innermost one if folders nest.
    func target(containing folder: URL) -> PackageTarget? {
        targets.filter { folder.isInside($0.directory) }.max {
            $0.directory.path.count < $1.directory.path.count
        }
    }

    /// Where SwiftPM looks for a target declared without a `path`: the predefined folder that holds
    /// a folder named after it. When none does yet, a test target goes in `Tests`, the one place
    /// SwiftPM keeps looking once any test folder exists (a test target put in `Sources` because
    /// `Tests` did not exist yet breaks the build as soon as it does); a code target goes in the
    /// first predefined folder that exists, since creating another would move where SwiftPM looks
    /// for the others.
    static func predefinedPath(of name: String, test: Bool, packageRoot: URL) -> String {
        let candidates = test ? testsFolders : sourcesFolders
        func isFolder(_ path: String) -> Bool {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(
                atPath: packageRoot.appendingPathComponent(path).path, isDirectory: &isDirectory)
                && isDirectory.boolValue
        }
        if let holder = candidates.first(where: { isFolder($0 + "/" + name) }) { return holder + "/" + name }
        if test { return "Tests/" + name }
        return (candidates.first(where: isFolder) ?? candidates[0]) + "/" + name
    }

    private static func folder(_ path: String, in base: URL) -> URL {
        let url =
            path.hasPrefix("/")
            ? URL(fileURLWithPath: path, isDirectory: true)
            : base.appendingPathComponent(path, isDirectory: true)
        return url.standardizedFileURL.resolvingExistingSymlinks()
    }

    // MARK: Running swift package

    /// Why a `swift package` command gave no output: its error, for the terminal.
    struct CommandFailure: Error {
        let reason: String
    }

    /// Runs `swift package <arguments>` on the package found on the `PATH`, and returns its output.
    static func swiftPackage(_ arguments: [String], packageRoot: URL) -> Result<Data, CommandFailure> {
        let command = (["swift", "package"] + arguments).joined(separator: " ")
        // Files rather than pipes: a pipe that fills up while the other one is read would block
        // the command forever.
        let base = FileManager.default.temporaryDirectory
            .appendingPathComponent("redux-scaffold-\(UUID().uuidString)").path
        let (outputPath, errorPath) = (base + ".out", base + ".err")
        defer {
            try? FileManager.default.removeItem(atPath: outputPath)
            try? FileManager.default.removeItem(atPath: errorPath)
        }
        guard FileManager.default.createFile(atPath: outputPath, contents: nil),
            FileManager.default.createFile(atPath: errorPath, contents: nil),
            let output = FileHandle(forWritingAtPath: outputPath),
            let errors = FileHandle(forWritingAtPath: errorPath)
        else {
            return .failure(
                CommandFailure(reason: "`\(command)` cannot be run: no temporary file for its output"))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "package", "--package-path", packageRoot.path] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            return .failure(
                CommandFailure(reason: "`\(command)` cannot be run: \(error.localizedDescription)"))
        }
        process.waitUntilExit()
        output.closeFile()
        errors.closeFile()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let lines = String(
                decoding: FileManager.default.contents(atPath: errorPath) ?? Data(), as: UTF8.self
            )
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let cause =
                lines.first { $0.contains("error:") } ?? lines.last
                ?? "it stopped with status \(process.terminationStatus)"
            return .failure(CommandFailure(reason: "`\(command)` failed: \(cause)"))
        }
        return .success(FileManager.default.contents(atPath: outputPath) ?? Data())
    }
}

extension URL {
    /// Whether this folder is `folder` or inside it; both standardized and resolved alike.
    func isInside(_ folder: URL) -> Bool {
        path == folder.path || path.hasPrefix(folder.path.hasSuffix("/") ? folder.path : folder.path + "/")
    }

    /// This path relative to `folder`, which holds it: `""` for `folder` itself.
    func path(relativeTo folder: URL) -> String {
        path == folder.path ? "" : String(path.dropFirst(folder.path.count).drop { $0 == "/" })
    }

    /// Resolves symbolic links in the longest part of this path that exists, and keeps the rest.
    /// A link whose target is missing counts as that target: it is where a folder made through it
    /// would go.
    func resolvingExistingSymlinks() -> URL {
        var existing = self
        var rest: [String] = []
        var linksFollowed = 0
        while !FileManager.default.fileExists(atPath: existing.path), existing.path != "/" {
            // At most as many as a path lookup follows (`MAXSYMLINKS`), so that a cycle ends.
            if linksFollowed < 32,
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: existing.path)
            {
                linksFollowed += 1
                existing =
                    URL(fileURLWithPath: target, relativeTo: existing.deletingLastPathComponent())
                    .absoluteURL.standardizedFileURL
                continue
            }
            rest.insert(existing.lastPathComponent, at: 0)
            existing.deleteLastPathComponent()
        }
        var resolved = existing.resolvingSymlinksInPath()
        for component in rest { resolved.appendPathComponent(component) }
        return resolved
    }
}

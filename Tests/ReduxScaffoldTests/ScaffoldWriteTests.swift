import Foundation
import Testing

@testable import ReduxScaffold

/// Writing is all or nothing, never follows or replaces what it should not, and a failure names
/// the path and the cause.
@Suite(.offThePool) struct ScaffoldWriteTests {
    let package = ScratchPackage()
    // How files are written does not depend on the targets: without the check, these tests do not
    // run `swift package` each time, and `Sources/App` still gives `Tests/AppTests`.
    let arguments = ["--name", "Counter", "--output", "Sources/App", "--skip-target-check"]
    let sources = [
        "Sources/App/CounterActions.swift", "Sources/App/CounterReducers.swift",
        "Sources/App/CounterService.swift", "Sources/App/CounterState.swift",
    ]
    let testsFile = "Tests/AppTests/CounterTests.swift"

    private func url(_ path: String) -> URL { package.root.appendingPathComponent(path) }

    /// Runs the scaffold once, then replaces each source with `// mine`.
    private func scaffoldThenEdit() throws {
        _ = try package.run(arguments)
        for path in sources { try Data("// mine \(path)".utf8).write(to: url(path)) }
    }

    @Test func aDanglingSymbolicLinkAtAnOutputPathIsNotReplacedWithoutForce() throws {
        try FileManager.default.createDirectory(at: url("Sources/App"), withIntermediateDirectories: true)
        let target = url("missing.swift").path
        try FileManager.default.createSymbolicLink(
            atPath: url("Sources/App/CounterState.swift").path, withDestinationPath: target)
        let before = package.tree()
        let error = #expect(throws: ScaffoldError.self) { try package.run(arguments) }
        #expect(error == .wouldOverwrite(["Sources/App/CounterState.swift"]))
        #expect(package.tree() == before)
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test func forceReplacesASymbolicLinkItselfAndNotItsTarget() throws {
        try FileManager.default.createDirectory(at: url("Sources/App"), withIntermediateDirectories: true)
        try Data("// target".utf8).write(to: url("target.swift"))
        try FileManager.default.createSymbolicLink(
            atPath: url("Sources/App/CounterState.swift").path, withDestinationPath: url("target.swift").path)
        _ = try package.run(arguments + ["--force"])
        #expect(package.contents("target.swift") == "// target")
        #expect(package.tree()["Sources/App/CounterState.swift"]?.contains("struct CounterState") == true)
    }

    @Test func aForcedRunThatMeetsADirectoryWritesNothing() throws {
        try scaffoldThenEdit()
        try FileManager.default.removeItem(at: url(testsFile))
        try FileManager.default.createDirectory(at: url(testsFile), withIntermediateDirectories: true)
        let before = package.tree()
        let error = #expect(throws: ScaffoldError.self) { try package.run(arguments + ["--force"]) }
        #expect(error?.description == "cannot write \(testsFile): it is a directory")
        #expect(error?.exitCode == 1)
        #expect(package.tree() == before)
    }

    @Test func aForcedRunWhoseTestsFolderCannotBeCreatedWritesNothing() throws {
        try scaffoldThenEdit()
        try FileManager.default.removeItem(at: url("Tests/AppTests"))
        try Data("a file, not a folder".utf8).write(to: url("Tests/AppTests"))
        let before = package.tree()
        let error = #expect(throws: ScaffoldError.self) { try package.run(arguments + ["--force"]) }
        #expect(error?.description == "cannot write Tests/AppTests: \(String(cString: strerror(ENOTDIR)))")
        #expect(package.tree() == before)
    }

}

/// A rename that fails part-way through the commit, injected: every file is put back as it was.
/// Like ``ScaffoldWriteTests``, without reading the package's targets.
@Suite(.offThePool) struct ScaffoldRollbackTests {
    let package = ScratchPackage()

    private func writeFailingAtRename(_ failing: Int) throws -> ScaffoldError? {
        let request = try ScaffoldRequest(
            name: "Counter", output: "Sources/App", testsOutput: nil, module: nil,
            packagePath: package.root.path, force: true, checkTargets: false)
        let files = try Scaffold.plan(
            request, templates: TemplateSet(directory: TemplateSet.defaultDirectory))
        var renames = 0
        let fileSystem = ScaffoldFileSystem { from, to in
            defer { renames += 1 }
            return renames == failing ? EIO : ScaffoldFileSystem.posix.rename(from, to)
        }
        return #expect(throws: ScaffoldError.self) {
            try Scaffold.write(files, packageRoot: package.root, force: true, fileSystem: fileSystem)
        }
    }

    /// 4 of the 5 files exist (so 4 are set aside, then 5 are moved in): 9 renames.
    @Test(arguments: 0..<9)
    func aForcedRunIsRolledBackWhicheverRenameFails(failing: Int) throws {
        _ = try package.run(["--name", "Counter", "--output", "Sources/App", "--skip-target-check"])
        for path in [
            "Sources/App/CounterActions.swift", "Sources/App/CounterState.swift",
            "Tests/AppTests/CounterTests.swift",
        ] {
            try Data("// mine".utf8).write(to: package.root.appendingPathComponent(path))
        }
        try FileManager.default.removeItem(
            at: package.root.appendingPathComponent("Sources/App/CounterService.swift"))
        let before = package.tree()
        let error = try writeFailingAtRename(failing)
        #expect(error?.description.hasPrefix("cannot write ") == true)
        #expect(
            error?.description.hasSuffix(".swift: \(String(cString: strerror(EIO)))") == true,
            "\(String(describing: error))")
        #expect(package.tree() == before)
    }

    @Test(arguments: [0, 2, 4])
    func aFirstRunThatFailsRemovesTheFoldersItCreated(failing: Int) throws {
        let before = package.tree()
        _ = try writeFailingAtRename(failing)
        #expect(package.tree() == before)
        #expect(before.isEmpty)
    }
}

extension ScratchPackage {
    /// Every entry under the package but `Package.swift`, with a regular file's contents.
    func tree() -> [String: String] {
        var entries: [String: String] = [:]
        let root = self.root.path
        for case let path as String in FileManager.default.enumerator(atPath: root)?.allObjects ?? [] {
            let full = root + "/" + path
            var info = stat()
            guard lstat(full, &info) == 0, path != "Package.swift" else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFREG: entries[path] = contents(path) ?? "?"
            case S_IFLNK:
                entries[path] =
                    "-> " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: full)) ?? "?")
            case S_IFDIR: entries[path] = "/"
            default: entries[path] = "other"
            }
        }
        return entries
    }
}

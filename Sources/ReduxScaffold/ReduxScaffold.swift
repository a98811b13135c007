import Foundation

/// `swift run redux-scaffold --name Counter --output Sources/App`: writes a feature from the
/// package's Xcode templates.
@main
enum ReduxScaffold {
    static let usage = """
        usage: redux-scaffold --name NAME --output DIR [options]

        Writes a ReduxSwift feature (state, actions, reducers, a service) into DIR and Swift
        Testing tests for it, with TestStore, from the Xcode templates in Templates/; then prints
        the two lines that join it to the app's one store.

          --name NAME           the feature's name, a Swift type name such as Counter: an
                                uppercase ASCII letter, then ASCII letters, digits or underscores
          --output DIR          where the sources go, a folder of a library or executable target
                                of the package (e.g. Sources/App or Sources/App/Features/Counter)
          --tests-output DIR    where the tests go, a folder of a test target (default: the same
                                subfolder of the test target that depends on the target of DIR)
          --module NAME         with --skip-target-check, the module the tests import
                                (default: the target of DIR); otherwise it must be that target's
          --package-path DIR    the package to write into (default: the current directory)
          --templates DIR       the Templates folder (default: the one in this package)
          --force               replace files (or links) that exist; never a directory
          --skip-target-check   write without reading the package's targets: the target is the
                                folder under Sources/ in DIR, its tests go in Tests/<target>Tests

        The package's targets are read with `swift package dump-package` and `describe`, which
        neither build nor use the network; a folder that no target compiles is refused, with the
        lines to add to Package.swift. Writing is all or nothing: if one file cannot be written,
        none is, and the files that were there are kept as they were.
        """

    static func main() {
        do {
            for line in try run(Array(CommandLine.arguments.dropFirst())) { print(line) }
        } catch {
            FileHandle.standardError.write(Data("redux-scaffold: \(error)\n".utf8))
            exit(error.exitCode)
        }
    }

    /// Runs the command and returns the lines to print.
    static func run(_ arguments: [String]) throws(ScaffoldError) -> [String] {
        var options: [String: String] = [:]
        var force = false
        var checkTargets = true
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--help", "-h":
                return [usage]
            case "--force":
                force = true
            case "--skip-target-check":
                checkTargets = false
            case "--name", "--output", "--tests-output", "--module", "--package-path", "--templates":
                guard let value = remaining.popFirst() else {
                    throw .usage("\(argument) needs a value\n\(usage)")
                }
                options[argument] = value
            default:
                throw .usage("unknown argument '\(argument)'\n\(usage)")
            }
        }
        guard let name = options["--name"] else { throw .usage("--name is required\n\(usage)") }
        guard let output = options["--output"] else { throw .usage("--output is required\n\(usage)") }
        let request = try ScaffoldRequest(
            name: name, output: output, testsOutput: options["--tests-output"], module: options["--module"],
            packagePath: options["--package-path"] ?? FileManager.default.currentDirectoryPath, force: force,
            checkTargets: checkTargets)
        let templates = try TemplateSet(
            directory: options["--templates"].map { URL(fileURLWithPath: $0, isDirectory: true) }
                ?? TemplateSet.defaultDirectory)
        let files = try Scaffold.plan(request, templates: templates)
        let written = try Scaffold.write(files, packageRoot: request.packageRoot, force: request.force)
        return written.map { "wrote \($0)" } + request.nextSteps
    }
}

import Foundation

/// Why the scaffold refused to run; each case reads as a message for the terminal.
enum ScaffoldError: Error, Equatable, CustomStringConvertible {
    case usage(String)
    case invalidName(String, reason: String)
    case notAPackage(String)
    case outsidePackage(String, package: String)
    /// `swift package` could not tell the package's targets.
    case targetsUnreadable(String)
    /// A folder where SwiftPM would not compile the files, or not as the right kind of target.
    case misplaced(String, reason: String)
    /// No test target, or no single one, to put the tests in.
    case noTestTarget(String, reason: String)
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
        case .targetsUnreadable(let reason):
            return """
                cannot read the package's targets to check that SwiftPM will compile the files: \(reason)
                Fix that, or pass --skip-target-check to write without checking
                """
        case .misplaced(let path, let reason):
            return "will not write to \(path): \(reason)"
        case .noTestTarget(let target, let reason):
            return "cannot choose where the tests of \(target) go: \(reason)"
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

    /// 2 for a mistake in the command line, a folder in the wrong place included; 1 for everything else.
    var exitCode: Int32 {
        switch self {
        case .usage, .invalidName, .outsidePackage, .misplaced, .noTestTarget: return 2
        default: return 1
        }
    }
}

import Foundation

/// The Xcode file templates in the package's `Templates` folder, read and rendered for a feature.
///
/// The scaffold has no copy of its own: it renders the same `.xctemplate` folders that Xcode users
/// install, replacing the placeholders Xcode would.
struct TemplateSet {
    /// One `.xctemplate` folder: its files, by the name each will have once rendered.
    struct Template {
        let name: String
        /// File name (with placeholders) and contents (with placeholders), sorted by name.
        let files: [(name: String, contents: String)]
    }

    /// The feature's sources: state, actions, reducers and a service.
    static let featureTemplate = "ReduxSwift Feature.xctemplate"
    /// The feature's Swift Testing tests.
    static let testsTemplate = "ReduxSwift Feature Tests.xctemplate"

    /// Where the templates are in a checkout of this package.
    static var defaultDirectory: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // ReduxScaffold
            .deletingLastPathComponent()  // Sources
            .deletingLastPathComponent()  // the package
            .appendingPathComponent("Templates", isDirectory: true)
    }

    let feature: Template
    let tests: Template

    /// Reads both templates from `directory`.
    init(directory: URL) throws(ScaffoldError) {
        feature = try Self.read(directory.appendingPathComponent(Self.featureTemplate))
        tests = try Self.read(directory.appendingPathComponent(Self.testsTemplate))
    }

    private static func read(_ folder: URL) throws(ScaffoldError) -> Template {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw .templatesMissing(folder.path)
        }
        var files: [(name: String, contents: String)] = []
        for name in names.sorted() where name.hasSuffix(".swift") {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path)
            else {
                throw .templatesMissing(folder.appendingPathComponent(name).path)
            }
            files.append((name, String(decoding: data, as: UTF8.self)))
        }
        if files.isEmpty { throw .templatesMissing(folder.path) }
        return Template(name: folder.lastPathComponent, files: files)
    }

    /// Replaces the placeholders Xcode would: the header, the feature's name and the module's name.
    ///
    /// The templates write `//___FILEHEADER___`, as Xcode's own do. The module is the tests
    /// template's `moduleName` option, which Xcode starts at the project's name; here it is the
    /// request's module, already a Swift identifier, so the `:identifier` modifier changes nothing.
    static func render(_ text: String, feature: String, module: String, fileName: String) -> String {
        text.replacingOccurrences(of: "//___FILEHEADER___", with: "// \(fileName)")
            .replacingOccurrences(of: "___VARIABLE_featureName___", with: feature)
            .replacingOccurrences(of: "___VARIABLE_moduleName:identifier___", with: module)
    }
}

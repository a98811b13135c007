import Foundation

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

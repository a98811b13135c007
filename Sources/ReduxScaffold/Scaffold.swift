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
        var clashes: Set<String> = []
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
                clashes.formUnion(declaredTypes(in: contents).filter(libraryTypes.contains))
                planned.append(PlannedFile(url: directory.appendingPathComponent(name), contents: contents))
            }
        }
        if !clashes.isEmpty {
            let names = clashes.sorted()
            throw .invalidName(
                request.name,
                reason: """
                    the feature would declare \(names.joined(separator: " and ")), \
                    \(names.count == 1 ? "a name" : "names") ReduxSwift declares too, and code that imports \
                    both, as its tests do, could not tell them apart; choose another name
                    """)
        }
        return planned
    }

    /// The top-level types `ReduxSwift` and `ReduxSwiftTesting` declare in public: a feature must
    /// not declare one of these names (`ScaffoldTests` checks the list against the sources).
    static let libraryTypes: Set<String> = [
        "Action", "ActionBatch", "ActionList", "ActionLog", "ActionLogError", "ActionProtocol",
        "ActionRecording", "ArchiveBackend", "ArchiveDefaults", "ArchiveMigration", "AsyncAction",
        "AsyncActionContext", "AsyncActionError", "DispatchLock", "DispatchLockError", "DispatchOutcome",
        "FileArchiveBackend", "HistoryAction", "HistoryError", "HistoryLimit", "HistoryStatus",
        "IdleTimeoutError", "MainQueue", "Middleware", "MiddlewareContext", "MiddlewareHandler",
        "MiddlewareRegistration", "ObservedValue", "ObserverToken", "PersistenceError", "PersistenceService",
        "Reducer", "ReducerProtocol", "RestoreProblem", "SavePolicy", "SnapshotError", "StateArchive",
        "StateProtocol", "Store",
        "StoreHistory", "StoreNotification", "StoreNotificationCenter", "StoreTransaction", "TestStore",
        "TransactionError",
        "UserDefaultsArchiveBackend",
    ]

    /// The names of the types `source` declares at the start of a line (top-level declarations).
    static func declaredTypes(in source: String) -> [String] {
        let pattern =
            #"(?m)^(?:[@a-z]+\s+)*(?:struct|enum|class|protocol|actor|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)"#
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        let text = source as NSString
        return expression.matches(in: source, range: NSRange(location: 0, length: text.length)).map {
            text.substring(with: $0.range(at: 1))
        }
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
            // Each file, not just its folder: the same check as the options', so that nothing is
            // written outside the package whatever planned it.
            _ = try ScaffoldRequest.contained(file.url, named: file.url.path, inside: packageRoot)
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

import Foundation

/// The file operations the scaffold commits with; tests replace `rename` to fail part-way.
struct ScaffoldFileSystem {
    /// Renames `from` to `to`, replacing a file or link at `to`; returns 0, or the `errno` value.
    var rename: (_ from: String, _ to: String) -> Int32

    /// The real file system.
    static var posix: ScaffoldFileSystem {
        ScaffoldFileSystem(rename: systemRename)
    }
}

// Outside the types, where `rename` and `write` name the C functions, not members.

private func systemRename(_ from: String, _ to: String) -> Int32 {
    rename(from, to) == 0 ? 0 : errno
}

/// Writes all of `data`; returns 0, or the `errno` value.
private func writeAll(_ descriptor: Int32, _ data: Data) -> Int32 {
    var written = 0
    while written < data.count {
        let count = data.withUnsafeBytes {
            write(descriptor, $0.baseAddress! + written, data.count - written)
        }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return count < 0 ? errno : EIO }
        written += count
    }
    return 0
}

/// Writes a set of files all or nothing.
///
/// Each file is first written in full to a temporary beside its destination; then, one by one,
/// the entry at each destination (a file or a symbolic link, never followed) is set aside and the
/// temporary renamed into its place. If any step fails, every destination is put back as it was,
/// the temporaries are deleted and the folders created for the run are removed; the error names
/// the path and the cause (`strerror`).
struct ScaffoldWriter {
    private let packageRoot: URL
    private let fileSystem: ScaffoldFileSystem
    /// Folders this run created, in the order it created them.
    private var createdDirectories: [String] = []
    /// Temporaries written and not yet renamed into place.
    private var temporaries: [String] = []
    /// Destinations changed so far, each with where its previous entry was set aside, if it had one.
    private var committed: [(destination: String, backup: String?)] = []

    init(packageRoot: URL, fileSystem: ScaffoldFileSystem) {
        self.packageRoot = packageRoot
        self.fileSystem = fileSystem
    }

    /// What is at a destination, without following a symbolic link.
    enum Entry {
        case none
        /// A regular file or a symbolic link (even one whose target is missing): `--force` replaces it.
        case replaceable
        /// A directory or a special file: never replaced.
        case notAFile(String)
    }

    static func entry(at path: String) -> Entry {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .none }
        switch info.st_mode & S_IFMT {
        case S_IFREG, S_IFLNK: return .replaceable
        case S_IFDIR: return .notAFile("it is a directory")
        default: return .notAFile("it is not a regular file")
        }
    }

    /// Writes `files`, replacing the entries at their paths; on failure nothing has changed.
    mutating func write(_ files: [PlannedFile]) throws(ScaffoldError) {
        do {
            for directory in Set(files.map { $0.url.deletingLastPathComponent().path }).sorted() {
                try createDirectories(directory)
            }
            var pending: [(temporary: String, destination: String)] = []
            for file in files {
                pending.append((try writeTemporary(file), file.url.path))
            }
            for (temporary, destination) in pending {
                try moveIntoPlace(temporary, destination)
            }
        } catch {
            throw rollBack(after: error)
        }
        for case (_, let backup?) in committed { unlink(backup) }
        committed = []
    }

    // MARK: Steps

    private mutating func createDirectories(_ path: String) throws(ScaffoldError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else { throw failure(path, ENOTDIR) }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try createDirectories(parent) }
        guard mkdir(path, 0o777) == 0 else {
            // EEXIST here is an entry that `stat` could not follow: a dangling symbolic link.
            throw failure(path, errno == EEXIST ? ENOTDIR : errno)
        }
        createdDirectories.append(path)
    }

    private mutating func writeTemporary(_ file: PlannedFile) throws(ScaffoldError) -> String {
        let destination = file.url.path
        let temporary = Self.sibling(of: destination, tag: "new")
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw failure(destination, errno) }
        temporaries.append(temporary)
        defer { close(descriptor) }
        let code = writeAll(descriptor, Data(file.contents.utf8))
        guard code == 0 else { throw failure(destination, code) }
        guard fsync(descriptor) == 0 else { throw failure(destination, errno) }
        return temporary
    }

    private mutating func moveIntoPlace(_ temporary: String, _ destination: String) throws(ScaffoldError) {
        var backup: String?
        if case .replaceable = Self.entry(at: destination) {
            let aside = Self.sibling(of: destination, tag: "old")
            let code = fileSystem.rename(destination, aside)
            guard code == 0 else { throw failure(destination, code) }
            backup = aside
        }
        let code = fileSystem.rename(temporary, destination)
        guard code == 0 else {
            // Put the entry back now; if that fails too, the rollback tries again and reports it.
            if let backup, fileSystem.rename(backup, destination) != 0 {
                committed.append((destination, backup))
            }
            throw failure(destination, code)
        }
        temporaries.removeAll { $0 == temporary }
        committed.append((destination, backup))
    }

    /// Puts every destination back, deletes the temporaries and the folders this run created.
    /// Returns `error`, extended with any path that could not be put back.
    private mutating func rollBack(after error: ScaffoldError) -> ScaffoldError {
        var unrestored: [String] = []
        for (destination, backup) in committed.reversed() {
            if let backup {
                if fileSystem.rename(backup, destination) != 0 {
                    unrestored.append("\(relative(destination)) is at \(relative(backup))")
                }
            } else if unlink(destination) != 0 {
                unrestored.append("\(relative(destination)) could not be removed")
            }
        }
        for temporary in temporaries { unlink(temporary) }
        for directory in createdDirectories.reversed() { rmdir(directory) }
        (committed, temporaries, createdDirectories) = ([], [], [])
        guard case .writeFailed(let path, let reason) = error, !unrestored.isEmpty else { return error }
        return .writeFailed(path, reason: reason + "; and " + unrestored.joined(separator: ", "))
    }

    // MARK: Helpers

    /// A hidden name beside `path`, unique to this run: `.CounterState.swift.redux-scaffold-new-…`.
    private static func sibling(of path: String, tag: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).redux-scaffold-\(tag)-\(UUID().uuidString)")
            .path
    }

    private func relative(_ path: String) -> String {
        path.hasPrefix(packageRoot.path + "/") ? String(path.dropFirst(packageRoot.path.count + 1)) : path
    }

    private func failure(_ path: String, _ code: Int32) -> ScaffoldError {
        .writeFailed(relative(path), reason: String(cString: strerror(code)))
    }
}

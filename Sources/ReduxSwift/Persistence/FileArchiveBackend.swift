import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// Keeps an archive in one JSON file, replaced atomically on every save.
///
/// A save writes a temporary file in the same directory with mode `0600`, flushes it to the disk
/// (`fsync`, or `F_FULLFSYNC` on Apple platforms), renames it over the old file and flushes the
/// directory. A crash at any moment therefore leaves either the old file or the new one, never a
/// mix. Missing parent directories are created with mode `0700`.
///
/// ```swift
/// let directory = FileArchiveBackend.defaultDirectory(forApplication: "MyApp")
/// let backend = FileArchiveBackend(url: directory.appendingPathComponent("AppState.json"))
/// ```
///
/// Temporary files left behind by a process that was killed mid-save are removed the next time
/// the archive is read: at once when their process no longer exists, and in any case once they
/// have not been modified for an hour, since in a sandbox (iOS, a sandboxed Mac app) another
/// process cannot be checked.
public struct FileArchiveBackend: ArchiveBackend, SiblingStorage {
    /// The archive file.
    public let url: URL

    /// The file's path.
    public var location: String { url.path }

    /// Creates a backend for the file at `url`.
    ///
    /// ```swift
    /// let backend = FileArchiveBackend(url: FileArchiveBackend.defaultDirectory(forApplication: "MyApp")
    ///     .appendingPathComponent("AppState.json"))
    /// ```
    ///
    /// - Precondition: `url` is a file URL (`url.isFileURL`); the program stops otherwise.
    ///
    /// - Parameter url: A file URL. The file and its directories need not exist yet.
    public init(url: URL) {
        precondition(url.isFileURL, "FileArchiveBackend needs a file URL, not \(url)")
        self.url = url.standardizedFileURL
    }

    /// The directory where an application keeps its data by default.
    ///
    /// On Apple platforms but tvOS it is `Application Support/<name>` in the user's Library.
    /// Elsewhere it is `$XDG_DATA_HOME/<name>`, or `~/.local/share/<name>` when `XDG_DATA_HOME` is
    /// not set to an absolute path, as the XDG Base Directory specification says.
    ///
    /// On tvOS it is `Caches/<name>` in the app's Library: on a device, an app may write only to
    /// its Caches and temporary directories, and Application Support cannot be created (the
    /// simulator allows it, so only a device shows the difference). tvOS may empty Caches when
    /// the device runs low on space, so an app there should treat the archive as a cache it can
    /// do without, and keep what must survive in iCloud key-value storage
    /// (`NSUbiquitousKeyValueStore`) or CloudKit.
    ///
    /// - Precondition: `name` is one path component: not empty, not `.` or `..`, and without `/`
    ///   or a NUL character. The program stops otherwise, rather than return the shared data
    ///   directory itself or a directory outside it.
    ///
    /// - Parameter name: The application's name, used as the last path component.
    public static func defaultDirectory(forApplication name: String) -> URL {
        precondition(
            !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.contains("\0"),
            "defaultDirectory(forApplication:) needs a name that is one path component (not empty, not "
                + "\".\" or \"..\", without \"/\" or NUL), not \"\(name)\"")
        #if canImport(Darwin)
        let searchPath = appleSearchPath(for: .current)
        let base =
            FileManager.default.urls(for: searchPath.directory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(searchPath.fallback)
        #else
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share")
        }
        #endif
        return base.appendingPathComponent(name, isDirectory: true)
    }

    /// Where ``defaultDirectory(forApplication:)`` keeps data on an Apple platform: the directory
    /// to search for, and its path under the home directory should the search find nothing.
    ///
    /// Caches on tvOS, where a device lets an app write only to Caches and tmp; Application
    /// Support everywhere else.
    static func appleSearchPath(
        for platform: Platform
    ) -> (directory: FileManager.SearchPathDirectory, fallback: String) {
        platform == .tvOS
            ? (.cachesDirectory, "Library/Caches")
            : (.applicationSupportDirectory, "Library/Application Support")
    }

    // MARK: Reading

    /// Reads the whole file; `nil` when it does not exist.
    ///
    /// Only a regular file is read: a FIFO, a device or a socket at the path (or where a symbolic
    /// link points) is refused with ``PersistenceError/Kind/notRegularFile(fileType:)`` without
    /// waiting for a writer, and no more than `limit` bytes are ever read.
    public func read(limit: Int) throws(PersistenceError) -> Data? {
        removeAbandonedTemporaryFiles()
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, possibly forever.
        let descriptor = open(location, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw failure(.load, "open", code)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure(.load, "fstat", errno) }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            break
        case S_IFDIR:
            throw PersistenceError(.isDirectory, stage: .load, location: location)
        case let type:
            throw PersistenceError(
                .notRegularFile(fileType: Self.kind(of: type)), stage: .load, location: location)
        }
        if info.st_size > limit {
            throw PersistenceError(
                .tooLarge(bytes: Int(info.st_size), limit: limit), stage: .load, location: location)
        }
        return try readAll(expectedSize: Int(info.st_size), limit: limit) { buffer, count in
            systemRead(descriptor, buffer, count)
        }
    }

    /// Reads with `read` (which behaves like the C function) until it reports the end, and refuses
    /// with ``PersistenceError/Kind/tooLarge(bytes:limit:)`` as soon as more than `limit` bytes
    /// have come: a file that grows while it is read is never read past the limit.
    func readAll(
        expectedSize: Int, limit: Int, _ read: (UnsafeMutableRawPointer, Int) -> Int
    ) throws(PersistenceError) -> Data {
        // One byte more than the limit tells data that ends at the limit from data that goes on.
        let capacity = limit == .max ? limit : limit + 1
        var data = Data(count: max(0, min(expectedSize, capacity)))
        var total = 0
        while true {
            if total > limit {
                throw PersistenceError(
                    .tooLarge(bytes: total, limit: limit), stage: .load, location: location)
            }
            if total == data.count {
                data.count = min(capacity, data.count + max(4096, data.count / 2))
            }
            let count = data.withUnsafeMutableBytes { buffer in
                read(buffer.baseAddress! + total, buffer.count - total)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(.load, "read", errno)
            }
            if count == 0 { break }
            total += count
        }
        data.count = total
        return data
    }

    /// Names a file type (`st_mode & S_IFMT`) for ``PersistenceError/Kind/notRegularFile(fileType:)``.
    private static func kind(of type: mode_t) -> String {
        switch type {
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "a special file"
        }
    }

    // MARK: Writing

    /// Replaces the file atomically and durably; on failure the old file is unchanged.
    ///
    /// When the path is a symbolic link, the file it points to is replaced (through any chain of
    /// links) and the link is kept. Only a regular file is replaced: when the path, or the end of
    /// its links, is a FIFO, a device or a socket, the save is refused with
    /// ``PersistenceError/Kind/notRegularFile(fileType:)`` (``PersistenceError/Kind/isDirectory``
    /// for a directory), as a read is, and that node is left as it is.
    public func write(_ data: Data) throws(PersistenceError) {
        let target = try writeTarget()
        let directory = (target as NSString).deletingLastPathComponent
        try createDirectories(directory)
        let temporary = temporaryPath(for: target)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(.save, "create \(temporary)", errno) }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            defer { close(descriptor) }
            // The mode given to `open` is masked by the umask; make it exactly 0600.
            guard fchmod(descriptor, 0o600) == 0 else { throw failure(.save, "fchmod", errno) }
            try writeAll(data, to: descriptor)
            guard synchronize(descriptor) == 0 else { throw failure(.save, "fsync", errno) }
        }
        guard rename(temporary, target) == 0 else {
            let code = errno
            if code == EISDIR || code == ENOTEMPTY || code == EEXIST {
                throw PersistenceError(.isDirectory, stage: .save, location: location)
            }
            throw failure(.save, "rename", code)
        }
        renamed = true
        try synchronizeDirectory(directory, stage: .save)
    }

    /// The path a save replaces: the archive's path or, when that is a symbolic link, the path at
    /// the end of the chain of links, so that renaming over it keeps the links.
    ///
    /// - Throws: ``PersistenceError/Kind/notRegularFile(fileType:)`` or
    ///   ``PersistenceError/Kind/isDirectory`` when that path exists and is not a regular file:
    ///   renaming over it would replace a FIFO or a device node with a file.
    private func writeTarget() throws(PersistenceError) -> String {
        var path = location
        // 32 links at most, as Darwin's MAXSYMLINKS (Linux allows 40); a loop ends here with ELOOP.
        for _ in 0..<32 {
            var info = stat()
            // A path that does not exist (or cannot be examined) is written as it is.
            guard lstat(path, &info) == 0 else { return path }
            switch info.st_mode & S_IFMT {
            case S_IFLNK:
                break
            case S_IFREG:
                return path
            case S_IFDIR:
                throw PersistenceError(.isDirectory, stage: .save, location: location)
            case let type:
                throw PersistenceError(
                    .notRegularFile(fileType: Self.kind(of: type)), stage: .save, location: location)
            }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(path, &buffer, buffer.count - 1)
            guard length >= 0 else { throw failure(.save, "readlink \(path)", errno) }
            let link = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            path =
                link.hasPrefix("/")
                ? link
                : ((path as NSString).deletingLastPathComponent as NSString)
                    .appendingPathComponent(link)
        }
        throw failure(.save, "follow the symbolic links of \(location)", ELOOP)
    }

    private func writeAll(_ data: Data, to descriptor: Int32) throws(PersistenceError) {
        let code: Int32 = data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return 0
        }
        if code != 0 { throw failure(.save, "write", code) }
    }

    /// Creates `path` and its missing parents with mode 0700.
    private func createDirectories(_ path: String) throws(PersistenceError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw failure(.save, "create directory \(path)", ENOTDIR)
            }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try createDirectories(parent) }
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw failure(.save, "create directory \(path)", errno)
        }
    }

    /// Flushes a file or a directory to the storage medium: 0, or -1 with `errno` set as `fsync` sets it.
    private func synchronize(_ descriptor: Int32) -> Int32 {
        #if canImport(Darwin)
        // `fsync` on Apple platforms only reaches the drive's cache; F_FULLFSYNC reaches the medium.
        // File systems that do not support it (some network and FAT volumes) get `fsync`.
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return 0 }
        #endif
        return fsync(descriptor)
    }

    /// Flushes a directory so that a rename in it survives a power loss, with `F_FULLFSYNC` on Apple
    /// platforms as for the file.
    private func synchronizeDirectory(_ path: String, stage: PersistenceError.Stage)
        throws(PersistenceError)
    {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(stage, "open directory \(path)", errno) }
        defer { close(descriptor) }
        // Some file systems cannot flush a directory and say so with EINVAL; nothing more can be done.
        if synchronize(descriptor) != 0, errno != EINVAL {
            throw failure(stage, "fsync directory \(path)", errno)
        }
    }

    // MARK: Setting aside

    /// Renames the file to `<name><suffix>` (adding `-2`, `-3`… if that exists).
    public func setAside(suffix: String) throws(PersistenceError) -> String? {
        var info = stat()
        guard lstat(location, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw failure(.setAside, "lstat", errno)
        }
        var target = location + suffix
        var attempt = 1
        while lstat(target, &info) == 0 {
            attempt += 1
            target = location + suffix + "-\(attempt)"
        }
        guard rename(location, target) == 0 else { throw failure(.setAside, "rename to \(target)", errno) }
        try synchronizeDirectory(url.deletingLastPathComponent().path, stage: .setAside)
        return target
    }

    // MARK: Files beside the archive

    /// The file whose path is the archive's with `suffix` added.
    func sibling(_ suffix: String) -> any SiblingStorage {
        FileArchiveBackend(url: URL(fileURLWithPath: location + suffix))
    }

    /// Whether something is at the path; a path that cannot be examined counts as holding something.
    func exists() -> Bool {
        var info = stat()
        return lstat(location, &info) == 0 || errno != ENOENT
    }

    /// Removes the file (a symbolic link, not what it points to) and flushes its directory.
    func remove() throws(PersistenceError) {
        guard unlink(location) == 0 else {
            let code = errno
            if code == ENOENT { return }
            throw failure(.save, "unlink", code)
        }
        try synchronizeDirectory(url.deletingLastPathComponent().path, stage: .save)
    }

    /// The suffixes of the files in the archive's directory whose names are the archive's followed by
    /// `prefix` and more.
    func siblingSuffixes(startingWith prefix: String) -> [String] {
        let start = url.lastPathComponent + prefix
        let names =
            (try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)) ?? []
        return names.filter { $0.hasPrefix(start) }.map { String($0.dropFirst(url.lastPathComponent.count)) }
    }

    // MARK: Temporary files

    private static let temporaryCounter = LockedValue<UInt64>(0)

    /// `.<name>.<pid>.<n>.tmp` beside `target`: unique in this process, and naming the process so
    /// that a later one can tell an abandoned file from one being written.
    private func temporaryPath(for target: String) -> String {
        let number = Self.temporaryCounter.withLock { counter in
            counter += 1
            return counter
        }
        let name = (target as NSString).lastPathComponent
        return ((target as NSString).deletingLastPathComponent as NSString)
            .appendingPathComponent(".\(name).\(getpid()).\(number).tmp")
    }

    /// How long a temporary file may go unmodified before it counts as abandoned whatever `kill`
    /// says of its process: one hour. A save modifies its file until it renames it, within seconds.
    static let abandonedTemporaryFileAge: TimeInterval = 3600

    /// Removes temporary files of this archive that no save will rename.
    private func removeAbandonedTemporaryFiles() {
        removeAbandonedTemporaryFiles(now: Date()) { pid in kill(pid, 0) == 0 ? 0 : errno }
    }

    /// Removes this archive's temporary files whose process no longer exists (`probe` answers
    /// `ESRCH`), and those not modified for ``abandonedTemporaryFileAge``, whatever `probe` answers.
    ///
    /// The age catches what `kill(pid, 0)` cannot tell: in a sandbox (iOS, sandboxed macOS apps) it
    /// answers `EPERM` for every other process, and a pid may have been reused, even by this process.
    ///
    /// - Parameters:
    ///   - now: The time to measure ages from.
    ///   - probe: `kill(pid, 0)`'s answer for a pid: 0 when the process exists, else the `errno`.
    func removeAbandonedTemporaryFiles(now: Date, probe: (pid_t) -> Int32) {
        let target = (try? writeTarget()) ?? location
        let directory = (target as NSString).deletingLastPathComponent
        let prefix = ".\((target as NSString).lastPathComponent)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            let middle = name.dropFirst(prefix.count).dropLast(".tmp".count)
            guard let pidText = middle.split(separator: ".").first, let pid = pid_t(pidText) else { continue }
            let path = (directory as NSString).appendingPathComponent(name)
            if pid != getpid(), probe(pid) == ESRCH {
                unlink(path)
                continue
            }
            // Measured both ways: a file dated an hour ahead was not written by a save under way
            // either, but by one before the clock was set back.
            guard
                let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate]
                    as? Date,
                abs(now.timeIntervalSince(modified)) > Self.abandonedTemporaryFileAge
            else { continue }
            unlink(path)
        }
    }

    private func failure(_ stage: PersistenceError.Stage, _ call: String, _ code: Int32)
        -> PersistenceError
    {
        if code == EISDIR { return PersistenceError(.isDirectory, stage: stage, location: location) }
        return PersistenceError(
            .system(call: call, errno: code, message: String(cString: strerror(code))), stage: stage,
            location: location)
    }
}

// `read` and `write` name this type's own methods inside it; these reach the C functions.

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    Darwin.read(descriptor, buffer, count)
    #elseif canImport(Glibc)
    Glibc.read(descriptor, buffer, count)
    #elseif canImport(Musl)
    Musl.read(descriptor, buffer, count)
    #elseif canImport(Android)
    Android.read(descriptor, buffer, count)
    #endif
}

private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    Darwin.write(descriptor, buffer, count)
    #elseif canImport(Glibc)
    Glibc.write(descriptor, buffer, count)
    #elseif canImport(Musl)
    Musl.write(descriptor, buffer, count)
    #elseif canImport(Android)
    Android.write(descriptor, buffer, count)
    #endif
}

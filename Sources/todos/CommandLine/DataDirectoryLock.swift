import Foundation

/// An advisory lock on the data directory: `flock` on `todos.lock` inside it.
///
/// `main` takes it before the store reads the archive and releases it after the last save, so two
/// `todos` on one directory run one after the other and neither loses the other's changes. A
/// launch that finds the directory in use waits for it, up to `--wait` seconds. The lock goes
/// with the process: a `todos` that dies leaves nothing to clean up.
final class DataDirectoryLock {
    static let fileName = "todos.lock"

    private var descriptor: Int32

    /// Creates the directory if needed and takes its lock, waiting up to `timeout` seconds.
    ///
    /// - Parameter onWait: Called once if the lock is not free at once, with the holder's process
    ///   ID when known.
    /// - Throws: ``CommandError/notADirectory(_:)`` when `directory` cannot be one, else
    ///   ``CommandError/dataDirectoryUnavailable(_:)`` naming the directory and the cause.
    init(directory: URL, timeout: Double, onWait: (Int32?) -> Void = { _ in }) throws(CommandError) {
        let path = directory.appendingPathComponent(Self.fileName).path
        try Self.createDirectories(directory.path, for: directory.path)
        descriptor = try Self.openLockFile(path)
        let deadline = Date(timeIntervalSinceNow: timeout)
        var pause: useconds_t = 1_000
        var hasWaited = false
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            guard code == EWOULDBLOCK else {
                close(descriptor)
                throw Self.failure("cannot lock \(path)", code)
            }
            if !hasWaited {
                hasWaited = true
                onWait(holder())
            }
            guard Date() < deadline else {
                let holder = holder().map { " (process \($0))" } ?? ""
                close(descriptor)
                throw .dataDirectoryUnavailable(
                    "\(directory.path) is in use by another todos\(holder); gave up after \(timeout) s"
                        + " (--wait sets how long to wait)")
            }
            // `flock` cannot wait with a deadline, so the wait polls, backing off to 20 ms.
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
        // Who holds the directory, for the message of a launch that waits; best effort.
        let pid = Data("\(getpid())\n".utf8)
        if ftruncate(descriptor, 0) == 0 {
            _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
    }

    deinit {
        release()
    }

    /// Releases the lock; calling it again does nothing.
    func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    /// The process ID written in the lock file by the launch that holds it, if readable.
    private func holder() -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(
            String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Opens (creating) the lock file without following a link or blocking on a FIFO, and checks
    /// that it is a regular file. A directory the user may only read is locked through a
    /// read-only descriptor.
    private static func openLockFile(_ path: String) throws(CommandError) -> Int32 {
        let flags = O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
        var descriptor = open(path, O_RDWR | O_CREAT | flags, 0o600)
        // The first refusal says why: a read-only retry of a file that could not be created
        // fails with "no such file", which would hide the "permission denied".
        let firstError = errno
        if descriptor < 0, firstError == EACCES || firstError == EROFS {
            descriptor = open(path, O_RDONLY | flags)
        }
        guard descriptor >= 0 else {
            throw failure(
                "cannot open \(path)", firstError == EACCES || firstError == EROFS ? firstError : errno)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw .dataDirectoryUnavailable("cannot lock \(path): it is not a regular file")
        }
        return descriptor
    }

    /// Creates `path` and its missing parents with mode 0700, as the archive does.
    ///
    /// - Throws: ``CommandError/notADirectory(_:)`` when `path` or a folder on its way is
    ///   something else, such as a regular file; `directory` is the data directory, for the message.
    private static func createDirectories(_ path: String, for directory: String) throws(CommandError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw .notADirectory(
                    path == directory
                        ? "cannot use \(path) as the data directory: it is not a directory"
                        : "cannot create the data directory \(directory): \(path) is not a directory")
            }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try createDirectories(parent, for: directory) }
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw failure("cannot create the data directory \(path)", errno)
        }
    }

    private static func failure(_ what: String, _ code: Int32) -> CommandError {
        .dataDirectoryUnavailable("\(what): \(String(cString: strerror(code)))")
    }
}

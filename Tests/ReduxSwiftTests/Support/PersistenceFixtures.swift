import Foundation

@testable import ReduxSwift

/// A fresh directory under the system's temporary directory, removed with everything in it on deinit.
final class TemporaryDirectory {
    let url: URL

    init() {
        url = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("ReduxSwiftTests-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    /// The names in the directory, sorted.
    var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }
}

/// Runs `body` on a new thread and waits for it at most `timeout` seconds, so that a call that
/// hangs fails the test instead of the whole suite.
///
/// - Returns: What `body` returned, or `nil` if it had not returned in time (it keeps running).
func finishing<Result: Sendable>(
    within timeout: TimeInterval = 20, _ body: @escaping @Sendable () -> Result
) -> Result? {
    let outcome = Recorder<Result>()
    Thread { outcome.append(body()) }.start()
    guard outcome.wait(forCount: 1, timeout: timeout) else { return nil }
    return outcome.values.first
}

/// A backend in memory that counts writes and can be told to fail them.
final class MemoryBackend: ArchiveBackend, @unchecked Sendable {
    // `@unchecked Sendable`: every stored property is read and written only while `lock` is held.
    private let lock = NSLock()
    private var stored: Data?
    private var writes = 0
    private var failure: PersistenceError.Kind?
    private var hook: (@Sendable () -> Void)?

    init(_ data: Data? = nil) {
        stored = data
    }

    var location: String { "memory" }

    /// Every successful write, in order, for tests to wait on.
    let written = Recorder<Data>()

    var data: Data? { lock.withLock { stored } }
    var writeCount: Int { lock.withLock { writes } }

    /// Makes later writes fail with `kind`, or succeed again when `nil`.
    func failWrites(_ kind: PersistenceError.Kind?) {
        lock.withLock { failure = kind }
    }

    func read(limit: Int) throws(PersistenceError) -> Data? {
        lock.withLock { stored }
    }

    /// Runs `hook` at the start of every write, with no lock held, or nothing when `nil`.
    func onWrite(_ hook: (@Sendable () -> Void)?) {
        lock.withLock { self.hook = hook }
    }

    func write(_ data: Data) throws(PersistenceError) {
        lock.withLock { hook }?()
        let failure = lock.withLock { self.failure }
        if let failure { throw PersistenceError(failure, stage: .save, location: location) }
        lock.withLock {
            stored = data
            writes += 1
        }
        written.append(data)
    }

    func setAside(suffix: String) throws(PersistenceError) -> String? {
        lock.withLock {
            defer { stored = nil }
            return stored == nil ? nil : location + suffix
        }
    }
}

/// A scheduler whose clock moves only when a test calls `advance(by:)`, which runs due work
/// on the calling thread, in deadline order.
final class ManualScheduler: SaveScheduler, @unchecked Sendable {
    // `@unchecked Sendable`: `time`, `queue` and `nextID` are touched only while `condition` is locked.
    private let condition = NSCondition()
    private var time: Double = 1000
    private var queue: [(id: Int, deadline: Double, work: @Sendable () -> Void)] = []
    private var nextID = 0

    func now() -> Double {
        condition.lock()
        defer { condition.unlock() }
        return time
    }

    func schedule(at deadline: Double, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        condition.lock()
        nextID += 1
        let id = nextID
        queue.append((id, deadline, work))
        condition.broadcast()
        condition.unlock()
        return ScheduledWork { [weak self] in self?.cancel(id) }
    }

    /// Work runs on the thread that advances the clock, so there is nothing to lend priority to.
    func lendPriority() {}

    private func cancel(_ id: Int) {
        condition.lock()
        queue.removeAll { $0.id == id }
        condition.unlock()
    }

    /// The deadlines of the work waiting to run, earliest first.
    var deadlines: [Double] {
        condition.lock()
        defer { condition.unlock() }
        return queue.map(\.deadline).sorted()
    }

    /// Waits until some work is scheduled (the service heard a change), or the timeout passes.
    @discardableResult
    func waitForWork(timeout: TimeInterval = 20) -> Bool {
        let limit = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty {
            if !condition.wait(until: limit) { return !queue.isEmpty }
        }
        return true
    }

    /// Moves the clock forward and runs, in order, the work that has become due.
    func advance(by seconds: Double) {
        condition.lock()
        time += seconds
        condition.unlock()
        while true {
            condition.lock()
            let due = queue.enumerated().filter { $0.element.deadline <= time }.min {
                $0.element.deadline < $1.element.deadline
            }
            if let due { queue.remove(at: due.offset) }
            condition.unlock()
            guard let work = due?.element.work else { return }
            work()
        }
    }
}

#if os(Linux)
// `setfsuid` is Linux's, whichever C library the toolchain uses.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs `body` without the superuser's right to ignore file permissions, so tests of read-only
/// locations mean something when the suite runs as root (as it does in CI containers).
///
/// As root, `body` runs on a new thread whose file-system user is `nobody`: Linux keeps that user
/// per thread and drops the permission-override capabilities with it, so the rest of the process
/// is unaffected. As anyone else, `body` runs here.
func withoutPermissionOverride<Result: Sendable>(_ body: @escaping @Sendable () -> Result) -> Result {
    guard getuid() == 0 else { return body() }
    typealias SetFileSystemUser = @convention(c) (UInt32) -> Int32
    guard let symbol = dlsym(nil, "setfsuid") else { preconditionFailure("setfsuid not found") }
    let setFileSystemUser = unsafeBitCast(symbol, to: SetFileSystemUser.self)
    let outcome = Recorder<Result>()
    let thread = Thread {
        _ = setFileSystemUser(65534)
        defer { _ = setFileSystemUser(0) }
        outcome.append(body())
    }
    thread.start()
    outcome.wait(forCount: 1)
    guard let result = outcome.values.first else {
        preconditionFailure("the unprivileged thread did not finish")
    }
    return result
}
#endif

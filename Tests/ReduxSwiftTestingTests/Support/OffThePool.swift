import Foundation
import Testing

/// Runs every test of a suite on threads of its own instead of the cooperative pool.
///
/// Swift Testing runs each test, synchronous ones included, as a task on the cooperative pool,
/// which has one thread per core: two on a 2-core machine. A test that waits synchronously (for a
/// delivery on a store's thread, a gate, a semaphore) holds one of them until the wait ends, and
/// async work beside it (an `AsyncAction`'s task, a `TestStore.receive`) waits for a thread. With
/// this trait a suite's tests prefer ``TestThreads``, which hands a job to an idle thread or starts
/// another, so a test that blocks holds up only itself, and the pool stays free for the tasks that
/// need it.
struct OffThePool: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            try await withTaskExecutorPreference(TestThreads.shared) { try await function() }
        } else {
            try await function()
        }
    }
}

extension Trait where Self == OffThePool {
    /// Runs the tests on ``TestThreads`` rather than the cooperative pool.
    static var offThePool: Self { OffThePool() }
}

/// A task executor whose threads tests may block: a job goes to an idle thread, or to a new one
/// while there are fewer than ``limit``.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class TestThreads: TaskExecutor, @unchecked Sendable {
    // `@unchecked Sendable`: `jobs`, `idle` and `threads` are only used while `condition` is held.

    static let shared = TestThreads()

    /// How many threads it starts at most: enough that tests blocked at once do not hold up the
    /// others, few enough that tests running at once do not crowd the machine.
    static let limit = 24

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var idle = 0
    private var threads = 0

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        let starts = idle == 0 && threads < Self.limit
        if starts { threads += 1 }
        condition.signal()
        condition.unlock()
        if starts {
            let thread = Thread { [self] in work() }
            thread.name = "TestThreads"
            thread.stackSize = 4 << 20
            thread.start()
        }
    }

    private func work() {
        condition.lock()
        while true {
            while jobs.isEmpty {
                idle += 1
                condition.wait()
                idle -= 1
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
            condition.lock()
        }
    }
}

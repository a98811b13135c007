import Foundation

/// A thread-safe list that tests append to from any thread and wait on with a timeout.
final class Recorder<Element>: @unchecked Sendable {
    // `@unchecked Sendable`: `items` is only touched while `condition` is locked.
    private let condition = NSCondition()
    private var items: [Element] = []

    func append(_ item: Element) {
        condition.lock()
        items.append(item)
        condition.broadcast()
        condition.unlock()
    }

    var values: [Element] {
        condition.lock()
        defer { condition.unlock() }
        return items
    }

    var count: Int { values.count }

    /// Waits until `predicate` holds for the recorded items, or `timeout` seconds pass.
    /// - Returns: Whether the predicate held.
    @discardableResult
    func wait(timeout: TimeInterval = 20, until predicate: ([Element]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(items) {
            if !condition.wait(until: deadline) { return predicate(items) }
        }
        return true
    }

    /// Waits like ``wait(timeout:until:)``, on a thread of its own, so that an async test never
    /// blocks a thread of the cooperative pool (which has two threads on two cores).
    func waitOffThePool(
        timeout: TimeInterval = 20, until predicate: @escaping @Sendable ([Element]) -> Bool
    ) async -> Bool {
        await onOwnThread { self.wait(timeout: timeout, until: predicate) }
    }

    /// Waits until at least `count` items are recorded.
    @discardableResult
    func wait(forCount count: Int, timeout: TimeInterval = 20) -> Bool {
        wait(timeout: timeout) { $0.count >= count }
    }
}

/// A one-shot gate: `wait` blocks until `open` is called or the timeout passes.
final class Gate: @unchecked Sendable {
    // `@unchecked Sendable`: `isOpen` is only touched while `condition` is locked.
    private let condition = NSCondition()
    private var isOpen = false

    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }

    /// - Returns: Whether the gate opened before the timeout.
    @discardableResult
    func wait(timeout: TimeInterval = 20) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !isOpen {
            if !condition.wait(until: deadline) { return isOpen }
        }
        return true
    }
}

/// Code a test sets after making the value that runs it (an action's `encode(to:)`, a value's
/// `deinit`), so that the code can reach objects made later, such as a recording or a store.
final class Hook: @unchecked Sendable {
    // `@unchecked Sendable`: `body` and `calls` are only touched while `lock` is held.
    private let lock = NSLock()
    private var body: (@Sendable () -> Void)?
    private var calls = 0

    /// Sets what ``run()`` runs; `nil` runs nothing, and breaks a cycle through the hook.
    func set(_ body: (@Sendable () -> Void)?) {
        lock.withLock { self.body = body }
    }

    /// Whether this is the first call of this method, on any thread.
    func isFirstCall() -> Bool {
        lock.withLock {
            calls += 1
            return calls == 1
        }
    }

    /// Runs the body, with no lock held.
    func run() {
        lock.withLock { body }?()
    }
}

/// Runs `body` on `count` threads at once and returns when all have finished.
func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    DispatchQueue.concurrentPerform(iterations: count) { body($0) }
}

/// Runs `body` on `count` new threads, started together, and waits for all of them.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let finished = DispatchGroup()
    let start = Gate()
    for index in 0..<count {
        finished.enter()
        let thread = Thread {
            start.wait()
            body(index)
            finished.leave()
        }
        thread.start()
    }
    start.open()
    finished.wait()
}

/// A one-shot gate that async tests wait on without blocking a thread of the cooperative pool
/// (which the work they wait for may need).
final class AsyncGate: @unchecked Sendable {
    // `@unchecked Sendable`: `isOpen` and `waiters` are only touched while `lock` is held.
    private let lock = NSLock()
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func open() {
        lock.lock()
        isOpen = true
        let resumed = waiters
        waiters.removeAll()
        lock.unlock()
        for waiter in resumed { waiter.resume() }
    }

    /// Returns once `open()` has been called.
    func opened() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if isOpen {
                lock.unlock()
                continuation.resume()
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }
}

/// Runs `body`, which may block (a wait with a deadline, a child process), on a thread of its own,
/// and awaits its result without holding a thread of the cooperative pool.
func onOwnThread<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { (continuation: CheckedContinuation<Result, Never>) in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

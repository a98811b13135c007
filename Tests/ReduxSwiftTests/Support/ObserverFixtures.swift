import Foundation
import Testing

@testable import ReduxSwift

/// A flag that tests set on one thread and read on another.
final class LockedFlag: @unchecked Sendable {
    // `@unchecked Sendable`: `value` is only touched while `lock` is held.
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

/// A counter that tests increment on one thread and read on another.
final class LockedCounter: @unchecked Sendable {
    // `@unchecked Sendable`: `count` is only touched while `lock` is held.
    private let lock = NSLock()
    private var count = 0

    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// Waits until `condition` holds, checking it every millisecond, or until `timeout` seconds pass.
///
/// For conditions that nothing announces, such as how many threads wait inside a store's kernel;
/// tests wait for anything announced (a delivery, a gate) on that event instead. It blocks the
/// calling thread, so it is called only from suites that run ``OffThePool``.
/// - Returns: Whether the condition held.
@discardableResult
func waitUntil(timeout: TimeInterval = 20, _ condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while !condition() {
        if Date() >= deadline { return condition() }
        Thread.sleep(forTimeInterval: 0.001)
    }
    return true
}

/// Runs `body` on a new thread; the returned gate opens when it returns.
func onNewThread(_ body: @escaping @Sendable () -> Void) -> Gate {
    let finished = Gate()
    Thread {
        body()
        finished.open()
    }.start()
    return finished
}

/// Repeats `trial` while `count` threads dispatch increments to `store` as fast as they can, for
/// `seconds` and at most 500 trials, but at least `minimum` trials however slow the machine (under
/// the thread sanitizer beside six busy processes, one trial took five seconds), with a last-resort
/// deadline of two minutes. `trial` gets whether to go on waiting inside the trial. Returns the
/// number of trials, and whether every dispatcher stopped in time.
func trialsWhileDispatching(
    threads count: Int, to store: Store<TestState>, for seconds: TimeInterval = 5, minimum: Int = 2,
    _ trial: (_ goesOn: () -> Bool) -> Void
) -> (trials: Int, dispatchersStopped: Bool) {
    let stop = LockedFlag()
    let dispatchers = (0..<count).map { _ in
        onNewThread {
            while !stop.isSet {
                store.dispatch(TestAction.increment)
                for _ in 0..<8 { sched_yield() }
            }
        }
    }
    let deadline = Date(timeIntervalSinceNow: seconds)
    let lastResort = Date(timeIntervalSinceNow: 120)
    var trials = 0
    func goesOn() -> Bool { Date() < (trials < minimum ? lastResort : deadline) }
    while trials < 500, goesOn() {
        trial(goesOn)
        trials += 1
    }
    stop.set()
    let stopped = dispatchers.map { $0.wait() }.allSatisfy { $0 }
    return (trials, stopped)
}

/// Makes `encode(to:)` of a ``HookedState`` stop until released, once armed.
final class EncodeHook: Sendable {
    private let armed = LockedFlag()
    let entered = Gate()
    let release = Gate()

    func arm() { armed.set() }

    func encodeWillBegin() {
        guard armed.isSet else { return }
        entered.open()
        release.wait()
    }
}

/// A counter whose live copy (the one inside the store) can make encoding wait; decoded copies
/// have no hook.
struct HookedState: StateProtocol {
    var counter = 0
    var hook: EncodeHook?

    enum CodingKeys: String, CodingKey { case counter }

    init(hook: EncodeHook) {
        self.hook = hook
    }

    init(from decoder: any Decoder) throws {
        counter = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .counter)
    }

    func encode(to encoder: any Encoder) throws {
        hook?.encodeWillBegin()
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(counter, forKey: .counter)
    }
}

let hookedReducer: Reducer<HookedState> = { state, action in
    if case .increment? = action as? TestAction { state.counter += 1 }
}

/// Holds a token that a block registered with it needs to reach.
final class TokenBox: @unchecked Sendable {
    // `@unchecked Sendable`: `token` is only touched while `lock` is held.
    private let lock = NSLock()
    private var token: ObserverToken?

    var value: ObserverToken? {
        get { lock.withLock { token } }
        set { lock.withLock { token = newValue } }
    }
}

/// A value that calls `onDeinit` with its own value when it is released, so that a test can run
/// code in a `deinit`.
final class DeinitProbe: Sendable {
    let value: Int
    private let onDeinit: @Sendable (Int) -> Void

    init(_ value: Int, onDeinit: @escaping @Sendable (Int) -> Void) {
        self.value = value
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit(value)
    }
}

/// Opens its gate when freed. Captured by a selector, it shows when the store lets go of the
/// observer: cancelling a value observer releases its selector.
final class ReleaseWitness: Sendable {
    private let released: Gate

    init(_ released: Gate) {
        self.released = released
    }

    deinit { released.open() }
}

/// `select`, holding a ``ReleaseWitness`` that opens `released` once the selector is freed.
func witnessed<State, Value>(
    _ released: Gate, _ select: @escaping @Sendable (State) -> Value
) -> @Sendable (State) -> Value {
    let witness = ReleaseWitness(released)
    return { state in withExtendedLifetime(witness) { select(state) } }
}

/// Dispatches `action` and returns once `store` has announced it (a change or a failure), so that
/// every delivery of the values it made on the delivery thread has run, and every delivery to a
/// queue is queued. Blocks the calling thread; the store's delivery thread needs nothing from it.
func dispatchAndAwaitAnnouncement(_ action: any ActionProtocol, to store: Store<TestState>) {
    let announced = Recorder<Int>()
    let witness = store.notificationCenter.addObserver(forName: nil, object: store, queue: nil) { _ in
        announced.append(1)
    }
    store.dispatch(action)
    #expect(announced.wait(forCount: 1))
    witness.cancel()
}

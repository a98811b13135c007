import Dispatch
import Foundation
import ReduxSwift

/// A store for tests: send actions, and assert the exact state change each one makes and the
/// actions that asynchronous work dispatches.
///
/// ```swift
/// @Test func addingATodo() async {
///     let store = TestStore(reducers: TodoReducers.reducers, state: AppState())
///     store.send(TodoAction.add("Milk")) {
///         $0.todos = [Todo(id: 0, title: "Milk")]
///     }
///     store.send(TodoAction.load)
///     await store.receive(TodoAction.loaded([])) {
///         $0.todos = []
///     }
/// }
/// ```
///
/// Each ``send(_:assert:fileID:filePath:line:column:)`` dispatches an action, waits until the store
/// has handled it, and compares the state with the last asserted state changed by your closure.
/// By default the check is exhaustive: any difference fails the test with a list of the values
/// that differ, and so does an action dispatched by reducers or async work that the test has not
/// asserted with ``receive(_:timeout:assert:fileID:filePath:line:column:)``.
///
/// A `TestStore` belongs to the test that created it; use it from one task at a time.
///
/// ## Reporting failures
///
/// Failures are reported to Swift Testing when a Swift Testing test is running, and to XCTest
/// otherwise. `ReduxSwiftTesting` uses each framework only where it can be imported, so it builds
/// on every platform the package supports and with the Command Line Tools alone, which have no
/// XCTest; link it from test targets only. A failure with no framework to go to (the module was
/// built without XCTest and no Swift Testing test is running, or it runs on a watchOS older than
/// 7.4, which has no XCTest) stops the process with the message and the line of the assertion, so
/// that no test passes without its checks.
public final class TestStore<State: StateProtocol & Equatable> {
    /// How strictly a ``TestStore`` checks.
    public enum Exhaustivity: Sendable, Equatable {
        /// Every change must be asserted, and every received action too.
        case on
        /// Only what the assertions describe is checked: the closure is applied to the actual new
        /// state, and unasserted received actions are allowed.
        case off
    }

    /// The store under test; dispatch to it, observe it or read it as the app would.
    public let store: Store<State>
    /// The state as the test has asserted it so far.
    public private(set) var state: State
    /// How strictly the store checks; ``Exhaustivity/on`` unless changed.
    public var exhaustivity: Exhaustivity
    /// How long ``receive(_:timeout:assert:fileID:filePath:line:column:)`` waits by default: 30
    /// seconds. Generous on purpose: async work runs on the shared cooperative pool, which a test
    /// runner can keep busy with blocked tests for a while; a receive that succeeds returns at once.
    public var timeout: TimeInterval = 30

    private let recorder: ReductionRecorder<State>
    /// Observes the store's failures, so that the store does not report them as failures nothing
    /// observes: the test store reports each one itself, as a change the test must assert.
    private let failureWatch: ObserverToken
    private var sends = 0
    /// Where failures go. Tests of this module replace it with a recorder, to check each message
    /// and location without failing; everywhere else it is the test framework.
    var reportFailure: (TestStoreFailure) -> Void = { $0.reportToTestFramework() }

    /// Creates a test store around a new `Store`.
    ///
    /// ```swift
    /// let store = TestStore(
    ///     reducers: TodoReducers.reducers, state: AppState(),
    ///     middleware: [.asyncActions(dependencies: API.fake)])
    /// ```
    ///
    /// - Parameters:
    ///   - reducers: The reducers under test.
    ///   - state: The initial state.
    ///   - middleware: Middleware under test, such as `.asyncActions(dependencies: FakeAPI())`.
    ///   - exhaustivity: Whether every change and every received action must be asserted.
    public init(
        reducers: [Reducer<State>], state: State, middleware: [Middleware<State>] = [],
        exhaustivity: Exhaustivity = .on
    ) {
        let recorder = ReductionRecorder<State>(state: state)
        self.recorder = recorder
        self.state = state
        self.exhaustivity = exhaustivity
        store = Store(
            reducers: reducers, state: state, middleware: [recorder.sendTagger] + middleware,
            notificationCenter: StoreNotificationCenter())
        // The store's own failures (a lock freed without being released, a state that cannot
        // round-trip) have no action: they come through their own tap, in order with the rest.
        store.installTap(recorder.tap, storeFailures: recorder.recordStoreFailure)
        failureWatch = store.observeFailures(queue: nil) { _ in }
    }

    /// Dispatches `action`, waits until the store has handled it, and checks the state change.
    ///
    /// - Parameters:
    ///   - action: The action to send.
    ///   - updateExpected: Changes the last asserted state into the state you expect; leave it out
    ///     when the action must not change the state.
    ///   - fileID: The file of the assertion, for a failure; leave it out.
    ///   - filePath: The path of the assertion's file, for a failure; leave it out.
    ///   - line: The line of the assertion, for a failure; leave it out.
    ///   - column: The column of the assertion, for a failure; leave it out.
    public func send(
        _ action: any ActionProtocol,
        assert updateExpected: ((inout State) throws -> Void)? = nil,
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
        column: UInt = #column
    ) {
        let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        if exhaustivity == .on {
            // Actions queued by earlier ones (a reducer's or middleware's dispatches) are reduced
            // after the earlier send returned: wait for them before asking what was received.
            waitUntilHandled()
            let unasserted = recorder.takeReceived()
            if let last = unasserted.last {
                // Reported once: the state they left becomes the asserted state.
                state = last.after
                fail(
                    "\(unasserted.count) received action(s) were not asserted before sending \(action): "
                        + unasserted.map(\.summary).joined(separator: ", "),
                    at: location)
            }
        }
        let records = dispatchAndWait(action)
        if let failure = records.lazy.compactMap(\.error).first {
            fail("\(action) failed: \(failure)", at: location)
        }
        check(records.last?.after ?? state, against: updateExpected, after: "\(action)", location)
    }

    /// Sends an action that must fail, and checks that the state did not change.
    ///
    /// ```swift
    /// let error = store.sendExpectingFailure(TodoAction.toggle(id: 42))
    /// #expect((error as? UnknownTodo)?.id == 42)
    /// ```
    ///
    /// - Parameters:
    ///   - action: The action to send.
    ///   - fileID: The file of the assertion, for a failure; leave it out.
    ///   - filePath: The path of the assertion's file, for a failure; leave it out.
    ///   - line: The line of the assertion, for a failure; leave it out.
    ///   - column: The column of the assertion, for a failure; leave it out.
    /// - Returns: The error a reducer or middleware threw, or `nil` (and a test failure) if none did.
    @discardableResult
    public func sendExpectingFailure(
        _ action: any ActionProtocol,
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
        column: UInt = #column
    ) -> (any Error)? {
        let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let records = dispatchAndWait(action)
        guard let error = records.lazy.compactMap(\.error).first else {
            fail("\(action) was expected to fail, but it did not", at: location)
            return nil
        }
        check(records.last?.after ?? state, against: nil, after: "\(action)", location)
        return error
    }

    /// Dispatches `action` tagged as sent, waits until the store has handled it, and returns what
    /// the reducers made of it.
    private func dispatchAndWait(_ action: any ActionProtocol) -> [Reduction<State>] {
        sends += 1
        let id = sends
        store.dispatch(TestStoreSend(id: id, action: action))
        waitUntilHandled()
        return recorder.takeSent(id: id)
    }

    /// Waits until the store has handled everything dispatched so far: what it made of it,
    /// a failure of its own included (a state that cannot round-trip), is recorded by then.
    private func waitUntilHandled() {
        _ = store.currentState()
    }

    /// Waits for the next action that reached the reducers without being sent by the test (from
    /// async work, a reducer or a middleware), checks it equals `expected`, and checks its change.
    ///
    /// - Parameters:
    ///   - expected: The action that must come next.
    ///   - timeout: How long to wait; ``timeout`` when `nil`.
    ///   - updateExpected: Changes the last asserted state into the state you expect.
    ///   - fileID: The file of the assertion, for a failure; leave it out.
    ///   - filePath: The path of the assertion's file, for a failure; leave it out.
    ///   - line: The line of the assertion, for a failure; leave it out.
    ///   - column: The column of the assertion, for a failure; leave it out.
    nonisolated(nonsending) public func receive<Expected: ActionProtocol & Equatable>(
        _ expected: Expected, timeout: TimeInterval? = nil,
        assert updateExpected: ((inout State) throws -> Void)? = nil,
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
        column: UInt = #column
    ) async {
        _ = await receive(
            "\(expected)", timeout: timeout, matching: { ($0 as? Expected) == expected },
            assert: updateExpected, expectingFailure: false, storeFailure: false,
            location: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Waits for the next received action, checks it satisfies `matches`, and checks its change:
    /// for actions that are not `Equatable`.
    ///
    /// ```swift
    /// await store.receive("the loaded todos", where: { $0 is TodoAction }, assert: { $0.todos = [] })
    /// ```
    ///
    /// - Parameters:
    ///   - description: What the action is, for a failure's message.
    ///   - timeout: How long to wait; ``timeout`` when `nil`.
    ///   - matches: Whether an action is the one expected.
    ///   - updateExpected: Changes the last asserted state into the state you expect.
    ///   - fileID: The file of the assertion, for a failure; leave it out.
    ///   - filePath: The path of the assertion's file, for a failure; leave it out.
    ///   - line: The line of the assertion, for a failure; leave it out.
    ///   - column: The column of the assertion, for a failure; leave it out.
    nonisolated(nonsending) public func receive(
        _ description: String, timeout: TimeInterval? = nil,
        where matches: @escaping (any ActionProtocol) -> Bool,
        assert updateExpected: ((inout State) throws -> Void)? = nil,
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
        column: UInt = #column
    ) async {
        _ = await receive(
            description, timeout: timeout, matching: matches, assert: updateExpected,
            expectingFailure: false, storeFailure: false,
            location: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Waits for the next received failure, checks its action satisfies `matches`, and checks that
    /// the state did not change: for async work that throws, a middleware that throws on an action
    /// the test did not send, or this store's part of a transaction that a reducer rejected.
    ///
    /// ```swift
    /// let load = AsyncAction<AppState, API>("todos.load") { _ in throw Offline() }
    /// store.send(load)
    /// let error = await store.receiveFailure("the load", where: { $0 is AsyncAction<AppState, API> })
    /// #expect(error is Offline)
    /// ```
    ///
    /// - Parameters:
    ///   - description: What the failed action is, for a failure's message.
    ///   - timeout: How long to wait; ``timeout`` when `nil`.
    ///   - matches: Whether a failed action is the one expected.
    ///   - fileID: The file of the assertion, for a failure; leave it out.
    ///   - filePath: The path of the assertion's file, for a failure; leave it out.
    ///   - line: The line of the assertion, for a failure; leave it out.
    ///   - column: The column of the assertion, for a failure; leave it out.
    /// - Returns: The error, or `nil` (and a test failure) if the next received action did not fail.
    @discardableResult
    nonisolated(nonsending) public func receiveFailure(
        _ description: String, timeout: TimeInterval? = nil,
        where matches: @escaping (any ActionProtocol) -> Bool,
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
        column: UInt = #column
    ) async -> (any Error)? {
        await receive(
            description, timeout: timeout, matching: matches, assert: nil, expectingFailure: true,
            storeFailure: false,
            location: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Waits for the next failure the store reported without an action, and returns its error: a
    /// `DispatchLock` freed without being released (`DispatchLock.ReleaseError`), or a state that cannot
    /// round-trip (`SnapshotError`). The test fails at the next check while one goes unexpected.
    ///
    /// Such a failure is a condition of the store, not a step: it is taken wherever it comes among
    /// the received actions, which ``receive(_:timeout:assert:fileID:filePath:line:column:)``
    /// takes in order without it. A stretch of states that cannot round-trip is one failure,
    /// however the store grouped them; the next state that fails after one that round-trips is
    /// another.
    ///
    /// ```swift
    /// store.send(PriceAction.set(Decimal.nan)) { $0.price = Decimal.nan }  // JSON cannot hold NaN
    /// let error = await store.receiveStoreFailure()
    /// #expect(error is SnapshotError)
    /// ```
    ///
    /// - Parameters:
    ///   - timeout: How long to wait; ``timeout`` when `nil`.
    ///   - fileID: The file of the assertion, for a failure; leave it out.
    ///   - filePath: The path of the assertion's file, for a failure; leave it out.
    ///   - line: The line of the assertion, for a failure; leave it out.
    ///   - column: The column of the assertion, for a failure; leave it out.
    /// - Returns: The error, or `nil` (and a test failure) if the next received record is not one.
    @discardableResult
    nonisolated(nonsending) public func receiveStoreFailure(
        timeout: TimeInterval? = nil,
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
        column: UInt = #column
    ) async -> (any Error)? {
        await receive(
            "the store's own failure", timeout: timeout, matching: { $0 is StoreFailure }, assert: nil,
            expectingFailure: true, storeFailure: true,
            location: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    nonisolated(nonsending) private func receive(
        _ description: String, timeout: TimeInterval?, matching matches: (any ActionProtocol) -> Bool,
        assert updateExpected: ((inout State) throws -> Void)?, expectingFailure: Bool,
        storeFailure: Bool, location: TestLocation
    ) async -> (any Error)? {
        let deadline = Date(timeIntervalSinceNow: timeout ?? self.timeout)
        while true {
            if exhaustivity == .off {
                // Skip what does not match; only the described action is checked.
                recorder.dropReceived(storeFailure: storeFailure) {
                    !matches($0.action) || expectingFailure && $0.error == nil
                }
            }
            let (received, seen) = recorder.takeFirstReceived(storeFailure: storeFailure)
            if let record = received {
                guard matches(record.action) else {
                    fail("expected to receive \(description), received \(record.summary)", at: location)
                    state = record.after
                    return nil
                }
                if expectingFailure, record.error == nil {
                    fail("\(record.action) was expected to fail, but it did not", at: location)
                } else if !expectingFailure, let error = record.error {
                    fail("\(record.action) failed: \(error)", at: location)
                }
                check(record.after, against: updateExpected, after: "\(record.action)", location)
                return record.error
            }
            guard await recorder.waitForRecord(after: seen, until: deadline) else {
                fail(
                    "expected to receive \(description) within \(timeout ?? self.timeout) s, "
                        + (storeFailure
                            ? "but the store reported no failure of its own"
                            : "but no unasserted action reached the reducers"),
                    at: location)
                return nil
            }
        }
    }

    /// Forgets the received actions the test has not asserted, and takes the store's state as the
    /// asserted state.
    public func skipReceivedActions() {
        waitUntilHandled()
        let skipped = recorder.takeReceived()
        if let last = skipped.last { state = last.after }
    }

    /// Ends the test: with exhaustivity on, fails if received actions were not asserted.
    ///
    /// It checks what the store has received by the time it is called. The result of async work
    /// still running then arrives later and is not seen: `receive` it, or await the
    /// `AsyncAction`'s `finished()`, before calling this.
    ///
    /// - Parameters:
    ///   - fileID: The file of the assertion, for a failure; leave it out.
    ///   - filePath: The path of the assertion's file, for a failure; leave it out.
    ///   - line: The line of the assertion, for a failure; leave it out.
    ///   - column: The column of the assertion, for a failure; leave it out.
    public func finish(
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
        column: UInt = #column
    ) {
        waitUntilHandled()
        let unasserted = recorder.takeReceived()
        if let last = unasserted.last { state = last.after }
        guard exhaustivity == .on, !unasserted.isEmpty else { return }
        fail(
            "\(unasserted.count) received action(s) were not asserted: "
                + unasserted.map(\.summary).joined(separator: ", "),
            at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    private func fail(_ message: String, at location: TestLocation) {
        reportFailure(TestStoreFailure(message: message, location: location))
    }

    /// Compares `actual` with the expected state, reports differences, and makes `actual` the
    /// asserted state.
    private func check(
        _ actual: State, against updateExpected: ((inout State) throws -> Void)?, after what: String,
        _ location: TestLocation
    ) {
        defer { state = actual }
        var expected = exhaustivity == .on ? state : actual
        do {
            try updateExpected?(&expected)
        } catch {
            fail("the assertion closure threw: \(error)", at: location)
            return
        }
        guard expected != actual else { return }
        fail(
            "state after \(what) differs from the expected state:\n" + difference(expected, actual),
            at: location)
    }

    private func difference(_ expected: State, _ actual: State) -> String {
        guard let changes = try? StateChange.changes(from: expected, to: actual), !changes.isEmpty else {
            return "    (the states differ in a way their JSON does not show)\n    expected: \(expected)\n"
                + "    actual:   \(actual)"
        }
        return changes.map { change in
            "    \(change.path): expected \(change.oldValue?.description ?? "absent"), "
                + "actual \(change.newValue?.description ?? "absent")"
        }.joined(separator: "\n")
    }
}

/// An action sent by a ``TestStore``, so that its middleware can tell sent actions from received ones.
struct TestStoreSend: ActionProtocol {
    let id: Int
    let action: any ActionProtocol

    var identifier: String { action.identifier }
}

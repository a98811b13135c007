import Foundation

/// Why an action log could not be replayed; names the line.
public struct ActionLogError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What is wrong with the line.
    public enum Reason: Error, Sendable, Equatable {
        /// The line is not JSON, or not a record of an action.
        case malformed(String)
        /// The line holds an action type the codec does not know.
        case unknownType(String)
    }

    /// The 1-based line number.
    public let line: Int
    /// What is wrong with it.
    public let reason: Reason
    /// How many actions before it were replayed.
    public let replayedActions: Int

    /// `Line 7: …; the 6 actions before it were replayed.`
    public var description: String {
        let what: String
        switch reason {
        case .malformed(let detail): what = "it is not an action record (\(detail))"
        case .unknownType(let name): what = "the action type \"\(name)\" is not registered with the codec"
        }
        return "Line \(line): \(what); replay stopped there, after the \(replayedActions) actions before it."
    }
}

/// Records a store's committed actions as JSON Lines, with timestamps, and replays them.
///
/// ```swift
/// let codec = ActionCodec()
/// codec.register(TodoAction.self)
///
/// let log = ActionLog(codec: codec)
/// let recording = log.record(store)           // keep it while recording
/// // … later …
/// let lines = recording.stop()                // the log, one JSON object per line
///
/// let fresh = Store(reducers: AppReducers.reducers, state: AppState())
/// try log.replay(lines, into: fresh)          // fresh now has the same state
/// ```
///
/// Each line is `{"action":{…},"time":"2026-11-22T10:15:30.123Z","type":"MyApp.TodoAction"}`.
/// Only actions that committed are recorded, in the order they were reduced, so replaying them
/// with the same reducers into a store with the same initial state reaches the same state.
/// Actions whose types are not registered are left out and counted. The recording hears actions
/// from ``Foundation/NSNotification/Name/stateDidChange``, so stop it once the notifications of
/// the actions you want have been delivered.
public struct ActionLog: Sendable {
    /// How actions are named and encoded.
    public let codec: ActionCodec

    /// Creates a log that encodes actions with `codec`.
    public init(codec: ActionCodec) {
        self.codec = codec
    }

    /// Starts recording `store`'s committed actions.
    public func record<State>(_ store: Store<State>) -> ActionRecording {
        let recording = ActionRecording(codec: codec)
        recording.start(observing: store.notificationCenter, store: store)
        return recording
    }

    /// Dispatches the actions of `lines` into `store`, in order, and waits until they are reduced.
    ///
    /// The whole log is read before anything is dispatched. If a line is corrupt, the actions
    /// before it are replayed, and the error names the line; nothing after it reaches the store.
    ///
    /// - Returns: How many actions were replayed.
    @discardableResult
    public func replay<State>(_ lines: Data, into store: Store<State>) throws(ActionLogError) -> Int {
        let decoder = JSONDecoder()
        var actions: [any ActionProtocol] = []
        var failure: ActionLogError?
        var number = 0
        for line in lines.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) { continue }
            do throws(ActionLogError.Reason) {
                actions.append(try codec.action(from: Data(line), with: decoder))
            } catch {
                failure = ActionLogError(line: number, reason: error, replayedActions: actions.count)
                break
            }
        }
        for action in actions { store.dispatch(action) }
        _ = store.currentState()
        if let failure { throw failure }
        return actions.count
    }
}

/// A recording in progress; see ``ActionLog/record(_:)``.
public final class ActionRecording: @unchecked Sendable {
    // `@unchecked Sendable`: `lines`, `skipped` and `token` are read and written only while `lock`
    // is held; `codec`, `encoder` and `formatter` are used only inside the lock too.
    private let lock = NSLock()
    private let codec: ActionCodec
    private let encoder = JSONEncoder()
    private let formatter = ISO8601DateFormatter()
    private var lines = Data()
    private var skipped = 0
    private var token: ObserverToken?

    init(codec: ActionCodec) {
        self.codec = codec
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        encoder.outputFormatting = [.sortedKeys]
    }

    func start(observing center: StoreNotificationCenter, store: any AnyObject & Sendable) {
        let token = center.addObserver(forName: .stateDidChange, object: store, queue: nil) {
            [weak self] notification in
            self?.append(notification.actions)
        }
        lock.withLock { self.token = token }
    }

    private func append(_ actions: ActionList) {
        lock.lock()
        defer { lock.unlock() }
        guard token != nil else { return }
        let time = formatter.string(from: Date())
        for action in actions {
            guard let data = codec.line(for: action, time: time, with: encoder) else {
                skipped += 1
                continue
            }
            lines.append(data)
            lines.append(UInt8(ascii: "\n"))
        }
    }

    /// The lines recorded so far.
    public var data: Data {
        lock.withLock { lines }
    }

    /// How many committed actions were left out because their types are not registered.
    public var skippedActions: Int {
        lock.withLock { skipped }
    }

    /// Stops recording and returns the log.
    @discardableResult
    public func stop() -> Data {
        let token = lock.withLock { () -> ObserverToken? in
            defer { self.token = nil }
            return self.token
        }
        token?.cancel()
        return data
    }
}

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

/// Records a store's committed and failed actions as JSON Lines, with timestamps, and replays them.
///
/// A log needs to know which type each line holds: register every `Codable` action type you want
/// recorded and replayed, then record a store and replay what it recorded:
///
/// ```swift
/// let log = ActionLog()
/// log.register(TodoAction.self)
/// log.register(FilterAction.self)
///
/// let recording = log.record(store)           // keep it while recording
/// // … later …
/// let data = recording.stop()                 // the log, one JSON object per line
///
/// let fresh = Store(reducers: AppReducers.reducers, state: AppState())
/// try log.replay(data, into: fresh)           // fresh now has the same state
/// ```
///
/// Each line is `{"action":{…},"time":"2026-11-22T10:15:30.123Z","type":"MyApp.TodoAction"}`.
/// A recording holds exactly the actions that commit between ``record(_:)`` and
/// ``ActionLog/Recording/stop()``, in the order they were reduced: the store notes them on its own
/// queue as they commit, so replaying them with the same reducers into a store with the state the
/// recording started from reaches the same state, whatever the reducers and middleware dispatched
/// (see ``replay(_:into:)``).
///
/// **Failed actions.** An action that fails in that time (a reducer or a middleware threw on it,
/// the store refused it, as an async action no middleware runs, or its asynchronous work threw)
/// is recorded too, in order with the committed ones, as its usual line with its error's
/// description (`String(describing:)`):
/// `{"action":{…},"error":"no todo has ID 9","failed":true,"time":…,"type":"MyApp.TodoAction"}`.
/// A batch that fails is one such line holding the whole batch, with the error of the action that
/// failed; a store's part of a transaction whose commit threw is its batch marked as a
/// transaction, and a history move that failed (a jump to a missing step) is a move's line
/// without a state. Those lines changed nothing: a replay skips them. Failures that are not an
/// action's (a dispatch lock released by its deinitializer, a state that does not round-trip) are
/// not recorded. Lines without `"failed"`, as earlier versions wrote every line, committed.
///
/// Floats that JSON cannot hold (`nan`,
/// `±infinity`) are written as strings, as in snapshots. An action whose type is not registered,
/// whose own `encode(to:)` throws, or whose payload JSON cannot hold (a `Decimal` NaN, a cyclic
/// object graph, checked as snapshots are) is left out, committed or failed, and counted in
/// ``ActionLog/Recording/skippedActions``; in a batch, only that action is left out, and the batch is
/// recorded with the others. A batch is recorded flat, as one ``ActionBatch`` of the actions of
/// every level in the order reducers see them, so it replays the same at any depth of nesting. A
/// store's part of a committed ``StoreTransaction`` is recorded as its batch, marked as one:
/// `{"actions":[…],"time":…,"transaction":true,"type":"ActionBatch"}`.
///
/// **Follow-ups.** An action that a reducer or a middleware dispatched to its own store while
/// another action passed through it is reduced right after that action (see
/// <doc:TheDispatchPipeline>), and its line says so: `"causeOffset":-2` means that the action
/// that dispatched it is on the line two lines above. So the link survives recordings appended one
/// after another to one file, and the inspector page nests each follow-up under its cause (see
/// <doc:InspectingARecording>). What counts is where the dispatch is made: a function kept from
/// ``Middleware/Context/dispatchLater()`` and called by a middleware while another action passes
/// through it makes a follow-up of that action. A follow-up whose cause has no line (it was left
/// out, a middleware dropped it, or a history move moved nothing) has no link, and neither has an
/// action dispatched from anywhere else: an async action's work, another store's code, a kept
/// function called later from outside store code. Replays ignore the link.
///
/// **History moves.** The undos, redos and jumps of the store's history
/// (``Store/recordHistory(limit:makesStep:)``) are recorded too, each as one line holding the
/// move and the whole state it landed on:
/// `{"action":{"move":"jump","state":{…},"step":2},"time":…,"type":"ReduxSwift.HistoryAction"}`
/// (`"move"` is `"undo"`, `"redo"` or `"jump"`; only a jump has a `"step"`). What a move sets the
/// state to depends on the history that made it: its limit, the steps it kept from before the
/// recording started, what `makesStep` accepted. None of that is in the log, so the line keeps
/// the state, and a recording made while undoing and redoing replays to the same state into a
/// store with any history or none (see ``replay(_:into:)``). Writing it encodes the state once
/// per move, as a read of a new version does; only a recorded store pays for it. A move that
/// changes nothing (nothing to undo) is not recorded; one that fails is recorded as failed.
///
/// Types may be registered from any thread, at any time; a recording encodes each action with
/// the registrations in place when it is read.
public final class ActionLog: Sendable {
    /// The registered action types, by name and by type.
    private let registeredTypes = LockedValue<
        (byName: [String: RegisteredType], byType: [ObjectIdentifier: RegisteredType])
    >(([:], [:]))

    /// Creates a log that knows no action types yet.
    ///
    /// ```swift
    /// let log = ActionLog()
    /// log.register(TodoAction.self)
    /// ```
    public init() {}

    /// Registers an action type under `name` (by default its full type name).
    ///
    /// Registering a type again is harmless. Two types under one name are a programming error,
    /// which stops the program: the log could not tell their lines apart when it replays them.
    /// The names `"ActionBatch"` and `"ReduxSwift.HistoryAction"` are taken by batches and by
    /// history moves.
    ///
    /// - Parameters:
    ///   - type: A `Codable` action type.
    ///   - name: The name written in the log; keep it stable across versions of your app.
    public func register<Recorded: ActionProtocol & Codable>(_ type: Recorded.Type, name: String? = nil) {
        let name = name ?? String(reflecting: type)
        precondition(name != Self.batchName, "\"\(Self.batchName)\" is the name of batches")
        precondition(name != Self.moveName, "\"\(Self.moveName)\" is the name of history moves")
        let registered = RegisteredType(
            name: name, type: ObjectIdentifier(type),
            encode: { action, encoder in try (action as? Recorded)?.encode(to: encoder) },
            decode: { decoder in try Recorded(from: decoder) })
        registeredTypes.withLock { types in
            if let earlier = types.byName[name], earlier.type != registered.type {
                preconditionFailure(
                    "the action log already registers another type as \"\(name)\"; give \(Recorded.self) a name "
                        + "of its own")
            }
            types.byName[name] = registered
            types.byType[ObjectIdentifier(type)] = registered
        }
    }

    /// The registered name of `action`'s type, or `nil` if it is not registered; batches and
    /// history moves have their own names, `"ActionBatch"` and `"ReduxSwift.HistoryAction"`.
    public func name(of action: any ActionProtocol) -> String? {
        if action is ActionBatch { return Self.batchName }
        if action is HistoryAction { return Self.moveName }
        return registeredType(for: action)?.name
    }

    func registeredType(for action: any ActionProtocol) -> RegisteredType? {
        registeredTypes.withLock { $0.byType[ObjectIdentifier(type(of: action))] }
    }

    func registeredType(named name: String) -> RegisteredType? {
        registeredTypes.withLock { $0.byName[name] }
    }

    /// Starts recording `store`'s actions: the recording holds every action dispatched after this
    /// call returns that commits, or fails, before ``ActionLog/Recording/stop()``.
    ///
    /// The start is queued like a dispatch that passes dispatch locks: actions a lock holds now
    /// are recorded when they are reduced. Called from a reducer or a middleware of the store, it
    /// is made like a dispatch from there: right after the current action, so that the follow-ups
    /// dispatched after it are recorded, and not at all if that action fails. A reducer runs again
    /// for an action the store re-applies while it rolls back a later one (see
    /// <doc:TheDispatchPipeline>); a recording made by that second run records nothing, and the
    /// first keeps recording, so keep the recording the first call returned, or start recording
    /// from a middleware, which never runs again for an action.
    public func record<State>(_ store: Store<State>) -> ActionLog.Recording {
        ActionLog.Recording(log: self, kernel: store.kernel)
    }

    /// Dispatches the actions of `lines` into `store`, in order, and waits until they are reduced.
    ///
    /// Each action is applied as it was recorded, by the reducers alone: middleware do not see it
    /// again, and what the reducers dispatch while applying it is dropped, because the recording
    /// holds what those dispatches committed (to another store too). Otherwise it is an ordinary
    /// dispatch: announced, recorded by the histories and action logs that record the store, and
    /// held by its locks; like a read, the wait does not cover actions a dispatch lock holds.
    ///
    /// A history move's line makes the store's state the state the move landed on, as one change
    /// announced with its ``HistoryAction`` (rollbacks never go back across it); middleware do not
    /// see it. If the store has a history that makes the same move and lands on that very state,
    /// the history keeps its steps, as if it had made the move itself: it does when it records as
    /// the recorded history did, from the state the recording started from (same limit and
    /// `makesStep`, started right before the replay), and the state is `Equatable`, which is how it
    /// tells. Any other history restarts from the recorded state, as after a rollback that drops
    /// actions: it cannot go back across it. A move's line holds the state as the recorded
    /// store's state type: replayed into a store of another state type, or of a version of it
    /// whose `init(from:)` does not read it or that does not keep every value it holds (a member
    /// renamed, to an optional too), the line is reported as malformed, naming the type.
    ///
    /// A transaction's line (a batch marked `"transaction":true`) is applied as its batch and, as
    /// the store applied the transaction, is no step of the store's history; a batch line without
    /// the marker is a plain batch.
    ///
    /// A failed action's line (`"failed":true`) is skipped: the action changed nothing when it was
    /// recorded, so it is not dispatched, fails nothing again and is not counted.
    ///
    /// The whole log is read before anything is dispatched. If a line is corrupt, the actions
    /// before it are replayed, and the error names the line; nothing after it reaches the store.
    ///
    /// - Returns: How many actions were replayed, failed lines not counted.
    @discardableResult
    public func replay<State>(_ lines: Data, into store: Store<State>) throws(ActionLog.ReplayError) -> Int {
        let (actions, failure) = decodeLines(lines, as: State.self)
        var replayed = 0
        // A failed action's line changed nothing: it is skipped, so nothing fails again.
        for action in actions where !(action.action is FailedLine) {
            dispatchReplayed(action.action, into: store.kernel)
            replayed += 1
        }
        _ = store.currentState()
        if let failure { throw failure }
        return replayed
    }

    /// The actions of `lines`, each with the number of its line, up to the first line that cannot
    /// be read, and the error that line makes; a history move's state is read as `State`. The line
    /// of an action that failed is read as a ``FailedLine``.
    func decodeLines<State: StateProtocol>(_ lines: Data, as _: State.Type) -> (
        actions: [(line: Int, action: any ActionProtocol)], failure: ActionLog.ReplayError?
    ) {
        let (strict, lenient) = (SnapshotCoder.makeDecoder(floatStrings: nil), SnapshotCoder.makeDecoder())
        // A history move's line holds the state it landed on, read as this store's state type.
        let landing = LandingDecoding(State.self)
        strict.userInfo[ReplayedMove.landingKey] = landing
        lenient.userInfo[ReplayedMove.landingKey] = landing
        var actions: [(line: Int, action: any ActionProtocol)] = []
        var number = 0
        for line in lines.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) { continue }
            let line = Data(line)
            do throws(UnreadableLine) {
                actions.append(
                    (
                        number,
                        Self.isMoveLine(line)
                            ? try move(from: line, strict: strict, lenient: lenient)
                            : try action(from: line, strict: strict, lenient: lenient)
                    ))
            } catch {
                let replayed = actions.count { !($0.action is FailedLine) }
                return (actions, ActionLog.ReplayError(error.kind, line: number, replayedActions: replayed))
            }
        }
        return (actions, nil)
    }

    /// Queues one action read from a log into `kernel`, as ``replay(_:into:)`` applies it.
    func dispatchReplayed(_ action: any ActionProtocol, into kernel: StoreKernel) {
        if let move = action as? ReplayedMove {
            kernel.dispatch(.command(ReplayMove(move: move)))
        } else if let transaction = action as? ReplayedTransaction {
            kernel.dispatch(.command(ReplayTransactionPart(batch: transaction.batch)))
        } else {
            kernel.dispatch(.command(ReplayAction(action: action)))
        }
    }
}

extension ActionLog {
    /// A recording in progress; see ``ActionLog/record(_:)``.
    ///
    /// The store hands the recording its committed actions on its own queue, cheaply; they are
    /// encoded when you read ``data`` or ``skippedActions``, or call ``stop()``. Releasing a recording
    /// without stopping it stops it.
    ///
    /// No lock is held while actions are encoded, so an action's `encode(to:)` may read the recording
    /// too: on the thread that is encoding it, ``data`` returns the lines encoded before it. Readers
    /// on other threads never wait for each other: each encodes what has not been written yet (two at
    /// once may both encode an action; its line is written once, in order).
    public final class Recording: Sendable {
        /// Handed-over actions that committed together, numbered in the order the store handed them
        /// over, with their timestamp.
        private struct Handover {
            let number: Int
            let time: String
            let events: [RecordedEvent]
        }

        private struct Progress {
            /// The store's kernel, weakly: a recording does not keep its store alive.
            weak var kernel: StoreKernel?
            var isStopped = false
            /// The lines of the handovers written so far, in order.
            var lines = Data()
            var skipped = 0
            /// Handovers taken from the sink and not written yet: the numbers `nextToWrite...`.
            var unwritten: [Handover] = []
            var nextNumber = 0
            var nextToWrite = 0
            /// The threads encoding now; an `encode(to:)` that reads the recording again runs on one.
            var encodingThreads: [pthread_t] = []
            let formatter: ISO8601DateFormatter
            /// The number of lines written.
            var lineCount = 0
            /// The newest line written at each depth of follow-ups, by number from 1; `nil` where
            /// that action was left out. A follow-up's cause is the newest line one level up.
            var causeLines: [Int?] = []

            /// Writes one action's line, if it has one, as the next line: a follow-up whose cause has
            /// a line gets `"causeOffset"`, the cause's line number minus its own.
            mutating func write(_ line: Data?, depth: Int) {
                let cause = depth > 0 && depth <= causeLines.count ? causeLines[depth - 1] : nil
                if causeLines.count > depth { causeLines.removeSubrange(depth...) }
                while causeLines.count < depth { causeLines.append(nil) }
                guard let line else {
                    causeLines.append(nil)
                    return
                }
                lineCount += 1
                causeLines.append(lineCount)
                if let cause, line.last == UInt8(ascii: "}") {
                    lines.append(line.dropLast())
                    lines.append(contentsOf: #","causeOffset":\#(cause - lineCount)}"#.utf8)
                } else {
                    lines.append(line)
                }
                lines.append(UInt8(ascii: "\n"))
            }
        }

        /// The log whose registered types the recording encodes.
        private let log: ActionLog
        private let sink = RecordingSink()
        private let progress: LockedValue<Progress>

        init(log: ActionLog, kernel: StoreKernel) {
            self.log = log
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            progress = LockedValue(Progress(kernel: kernel, formatter: formatter))
            if let scope = StoreCodeScope.current, scope.reducingKernel === kernel {
                // Ordered like a dispatch from here, so that the recording starts right after this
                // action, ahead of the follow-ups it is about to dispatch (none if it fails).
                if !scope.isReplaying {
                    scope.deferDispatch(.command(StartRecording(sink: sink)), to: .queue(kernel))
                }
            } else {
                kernel.enqueue(.command(StartRecording(sink: sink)), .neverHeld)
            }
        }

        deinit {
            let (isStopped, kernel) = progress.withLock { ($0.isStopped, $0.kernel) }
            guard !isStopped else { return }
            kernel?.enqueue(.command(StopRecording(sink: sink)), .neverHeld)
        }

        /// The lines recorded so far.
        public var data: Data {
            encodeRecorded().lines
        }

        /// How many committed or failed actions were left out so far: their type is not registered
        /// with the log, their own `encode(to:)` threw, or their payload holds what JSON cannot (a `Decimal`
        /// NaN, a cycle). Each action of a batch counts on its own. A history move is left out when
        /// the state it landed on cannot be encoded (the store reports such a state to readers with
        /// ``SnapshotError``).
        public var skippedActions: Int {
            encodeRecorded().skipped
        }

        /// Stops recording and returns the log: every action dispatched to the store before this call
        /// (and after ``ActionLog/record(_:)``) that committed, except those a dispatch lock still
        /// holds, which have not committed.
        ///
        /// It waits until the store has reduced those actions, like ``Store/currentState()``. Called
        /// from a reducer, a middleware or an `encode(to:)`, where waiting could wait for the caller
        /// itself, it does not wait: it returns the lines recorded so far, and ``data`` has the
        /// complete recording once the store has reduced the actions dispatched before the call.
        /// Called from a reducer or a middleware of the recorded store, the recording also holds the
        /// follow-ups that code dispatches to its own store after the call: they are handled right
        /// after the current action, ahead of the stop, which is queued.
        /// Calling it again returns ``data``.
        @discardableResult
        public func stop() -> Data {
            let (wasStopped, kernel) = progress.withLock { progress in
                defer { progress.isStopped = true }
                return (progress.isStopped, progress.kernel)
            }
            if !wasStopped, let kernel {
                kernel.enqueue(.command(StopRecording(sink: sink)), .neverHeld)
                if StoreCodeScope.current == nil { sink.waitUntilDetached() }
            }
            return data
        }

        /// Encodes what the store handed over and has not been written yet, with no lock held (an
        /// action's `encode(to:)` is user code), then writes it in order; returns the lines and the
        /// count of actions left out. Called on a thread that is encoding already, from inside an
        /// `encode(to:)`, it encodes nothing and returns what is written.
        private func encodeRecorded() -> (lines: Data, skipped: Int) {
            let thisThread = pthread_self()
            let pending = progress.withLock { log -> [Handover] in
                if log.encodingThreads.contains(where: { pthread_equal($0, thisThread) != 0 }) { return [] }
                for (time, events) in sink.take() {
                    let stamp = log.formatter.string(from: time)
                    log.unwritten.append(Handover(number: log.nextNumber, time: stamp, events: events))
                    log.nextNumber += 1
                }
                if !log.unwritten.isEmpty { log.encodingThreads.append(thisThread) }
                return log.unwritten
            }
            guard !pending.isEmpty else { return progress.withLock { ($0.lines, $0.skipped) } }
            // Checked as snapshots are: a payload that would crash `JSONEncoder` (a cycle) or write what
            // cannot be read back (a `Decimal` NaN) is left out and counted, like any that throws.
            let encoder = SnapshotEncoder(sortingKeys: true)
            let encoded = pending.map { handover in (handover.number, encode(handover, with: encoder)) }
            return progress.withLock { log in
                if let index = log.encodingThreads.firstIndex(where: { pthread_equal($0, thisThread) != 0 }) {
                    log.encodingThreads.remove(at: index)
                }
                // Another reader may have written some of these handovers meanwhile: write the rest.
                for (number, handover) in encoded where number == log.nextToWrite {
                    for action in handover.actions { log.write(action.line, depth: action.depth) }
                    log.skipped += handover.skipped
                    log.nextToWrite += 1
                }
                log.unwritten.removeAll { $0.number < log.nextToWrite }
                return (log.lines, log.skipped)
            }
        }

        /// The line of each action of one handover (`nil` for one left out) with how deep in
        /// follow-ups it was reduced, and how many of its actions were left out.
        private func encode(_ handover: Handover, with encoder: SnapshotEncoder) -> (
            actions: [(line: Data?, depth: Int)], skipped: Int
        ) {
            var actions: [(line: Data?, depth: Int)] = []
            var skipped = 0
            for event in handover.events {
                switch event {
                case .committed(let list, let depths):
                    for (index, run) in list.runs.enumerated() {
                        let depth = depths.isEmpty ? 0 : depths[index]
                        for entry in run.entries[run.range] {
                            let (line, left) = logLine(for: entry, time: handover.time, with: encoder)
                            skipped += left
                            actions.append((line, depth))
                        }
                    }
                case .failed(let action, let error, let transaction, let depth):
                    let (line, left) = log.line(
                        for: action, transaction: transaction, failure: String(describing: error),
                        time: handover.time, with: encoder)
                    skipped += left
                    actions.append((line, depth))
                case .causeWithoutLine(let depth):
                    actions.append((nil, depth))
                }
            }
            return (actions, skipped)
        }

        /// The line of one committed entry, and how many of its actions were left out; a
        /// transaction's part, replayed or not, is marked as one.
        private func logLine(for entry: QueueEntry, time: String, with encoder: SnapshotEncoder) -> (
            line: Data?, leftOut: Int
        ) {
            if let transaction = entry.transactionPart {
                return log.line(for: transaction, transaction: true, time: time, with: encoder)
            }
            return log.line(for: entry.announcedAction, time: time, with: encoder)
        }
    }
}

/// What a store hands the recordings of an action log: actions that committed together, or one
/// that failed, with its error.
///
/// Each comes with how deep in follow-ups it was reduced (see
/// ``ReductionPipeline/followUpDepths``): `depths` holds one per run of `committed`, or is empty
/// when every run's is 0.
enum RecordedEvent: Sendable {
    case committed(StoreNotification.ActionList, depths: [Int] = [])
    /// An action (or batch) that failed; `transaction` when it is a store's part of a
    /// ``StoreTransaction`` whose commit threw.
    case failed(any ActionProtocol, any Error, transaction: Bool, depth: Int)
    /// An action at `depth` that left no line (a middleware dropped it, or a move moved nothing),
    /// whose follow-ups come next: they name no line as their cause.
    case causeWithoutLine(depth: Int)
}

/// Where a store puts the actions it commits, and those that fail, while an
/// ``ActionLog/Recording`` records it.
///
/// The store's queue calls ``record(_:at:)`` and ``detach()``; the recording takes the actions
/// and waits for the detach from any thread.
final class RecordingSink: Sendable {
    private let recorded = LockedValue<[(time: Date, events: [RecordedEvent])]>([])
    private let detached = DispatchSemaphore(value: 0)

    /// Called by the store's queue with what committed or failed at `time`, in order.
    func record(_ events: [RecordedEvent], at time: Date) {
        recorded.withLock { $0.append((time, events)) }
    }

    /// Called by the store's queue when it reached the stop: nothing more will be recorded.
    func detach() {
        detached.signal()
    }

    /// Waits until the store has reached the stop; only the recording's first `stop()` waits.
    func waitUntilDetached() {
        detached.wait()
    }

    /// Hands over what was recorded since the last call.
    func take() -> [(time: Date, events: [RecordedEvent])] {
        recorded.withLock { recorded in
            defer { recorded.removeAll() }
            return recorded
        }
    }
}

/// A position in the events of one pass: the event, and the run within it when it is a change.
struct EventPosition: Comparable {
    var event = 0
    var run = 0

    /// Where the next event or run of `events` goes: a run joins the last event when it is a change.
    static func end(of events: [StoreEvent]) -> EventPosition {
        if let last = events.indices.last, case .changed(let changed) = events[last] {
            return EventPosition(event: last, run: changed.count)
        }
        return EventPosition(event: events.count, run: 0)
    }

    static func < (lhs: EventPosition, rhs: EventPosition) -> Bool {
        (lhs.event, lhs.run) < (rhs.event, rhs.run)
    }
}

extension ReductionPipeline {
    /// Hands the recorders the committed and failed actions of `events` they have not seen yet, in
    /// order, and moves `recordedEvents` past them. Runs are handed over as they are (no action is
    /// copied), with one timestamp per call. Failures that are no action's (an abandoned lock, a
    /// snapshot that failed) are not handed over.
    mutating func feedRecorders(_ events: [StoreEvent]) {
        var recorded: [RecordedEvent] = []
        if !recorders.isEmpty {
            var runs: [ActionRun] = []
            var depths: [Int] = []
            func closeRuns() {
                guard !runs.isEmpty else { return }
                let nested = depths.contains { $0 > 0 }
                recorded.append(
                    .committed(StoreNotification.ActionList(runs: runs), depths: nested ? depths : []))
                runs = []
                depths = []
            }
            for index in recordedEvents.event..<events.count {
                switch events[index] {
                case .changed(let changed):
                    let first = index == recordedEvents.event ? recordedEvents.run : 0
                    for run in first..<changed.count {
                        let markers = takeFollowUpMarks(through: EventPosition(event: index, run: run))
                        if !markers.isEmpty {
                            closeRuns()
                            recorded.append(contentsOf: markers)
                        }
                        runs.append(changed[run])
                        depths.append(recordedDepth)
                    }
                case .failed(let action, let error, let site):
                    closeRuns()
                    recorded.append(
                        contentsOf: takeFollowUpMarks(through: EventPosition(event: index, run: 0)))
                    let isTransaction = if case .transaction = site { true } else { false }
                    recorded.append(.failed(action, error, transaction: isTransaction, depth: recordedDepth))
                case .lockAbandoned, .snapshotFailed:
                    continue
                }
            }
            closeRuns()
        }
        markRecorded(events)
        guard !recorded.isEmpty else { return }
        let time = Date()
        for recorder in recorders { recorder.record(recorded, at: time) }
    }

    /// Moves `recordedEvents` past every event of `events`, recorded or not.
    mutating func markRecorded(_ events: [StoreEvent]) {
        recordedEvents = EventPosition.end(of: events)
    }

    /// Takes the marks of ``followUpDepths`` up to `position` that the recorders have not been
    /// given: the depth of what is recorded next becomes theirs (``recordedDepth``), and follow-ups
    /// whose cause left no event get a ``RecordedEvent/causeWithoutLine(depth:)`` before them, so
    /// that they name no line.
    mutating func takeFollowUpMarks(through position: EventPosition) -> [RecordedEvent] {
        var markers: [RecordedEvent] = []
        while followUpMarksTaken < followUpDepths.count, followUpDepths[followUpMarksTaken].from <= position {
            let mark = followUpDepths[followUpMarksTaken]
            followUpMarksTaken += 1
            recordedDepth = mark.depth
            if !mark.causeHasEvent { markers.append(.causeWithoutLine(depth: mark.depth - 1)) }
        }
        return markers
    }
}

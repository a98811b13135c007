import Foundation

/// How an action log records the moves of a store's history, and replays them.
///
/// A move's line holds the move and the state it landed on:
/// `{"action":{"move":"jump","state":{…},"step":2},"time":…,"type":"ReduxSwift.HistoryAction"}`
/// (`"move"` is `"undo"`, `"redo"` or `"jump"`, and only a jump has a `"step"`). What a move sets
/// the state to depends on the history that made it: its steps, its limit, the actions it kept
/// from before the recording started. None of that is in the log, so the log keeps the state
/// itself, and a replay reaches it into any store, with any history or none.
extension ActionLog {
    /// The type name of a history move's line; no registered type may take it.
    static let moveName = "ReduxSwift.HistoryAction"

    /// Whether `line` is the line of a history move, as this log writes them: its `"type"`, the
    /// last member, names one. A line that says so otherwise is still read, only not on the deep
    /// stack.
    static func isMoveLine(_ line: Data) -> Bool {
        var end = line.endIndex
        while end > line.startIndex, [UInt8(ascii: " "), UInt8(ascii: "\r")].contains(line[end - 1]) {
            end -= 1
        }
        return line[line.startIndex..<end].hasSuffix(moveLineEnd)
    }

    private static let moveLineEnd = Data(#""type":"ReduxSwift.HistoryAction"}"#.utf8)

    /// Decodes the line of a history move on a thread with a deep stack: it holds a whole state,
    /// which may nest deeper than the caller's thread can decode (see ``DeepStack``).
    func move(from line: Data, strict: JSONDecoder, lenient: JSONDecoder) throws(UnreadableLine)
        -> any ActionProtocol
    {
        let decode = { () throws(UnreadableLine) -> any ActionProtocol in
            try self.action(from: line, strict: strict, lenient: lenient)
        }
        let decoded: Result<any ActionProtocol, UnreadableLine>
        do {
            decoded = try DeepStack.run { Result(catching: decode) }
        } catch {
            preconditionFailure("the deep stack threw what its work returned: \(error)")
        }
        return try decoded.get()
    }
}

extension Data {
    fileprivate func hasSuffix(_ suffix: Data) -> Bool {
        count >= suffix.count && self[(endIndex - suffix.count)...] == suffix
    }
}

/// A history move as a store hands it to the recordings of an action log: the move, and the state
/// it landed on, encoded as the store encodes a snapshot.
struct LandedMove: ActionProtocol {
    let move: HistoryAction
    let state: Snapshot

    /// The move's log line, `{"action":{"move":…,"state":…},"time":…,"type":…}`; `nil` when the
    /// state could not be encoded. The state's JSON is written as it is, not encoded again; the
    /// members are in the order the log's encoder sorts them.
    func line(time: String) -> Data? {
        guard case .success(let json) = state.result else { return nil }
        var line = Data(#"{"action":{"move":""#.utf8)
        let step: Int?
        switch move {
        case .undo:
            line.append(contentsOf: "undo".utf8)
            step = nil
        case .redo:
            line.append(contentsOf: "redo".utf8)
            step = nil
        case .jump(let target):
            line.append(contentsOf: "jump".utf8)
            step = target
        }
        line.append(contentsOf: #"","state":"#.utf8)
        line.append(json)
        if let step { line.append(contentsOf: #","step":\#(step)"#.utf8) }
        line.append(UInt8(ascii: "}"))
        // Says which strings the state's floats are written as, as an action's line does.
        if let variant = state.floatStrings { line.append(contentsOf: #","floatStrings":\#(variant)"#.utf8) }
        line.append(contentsOf: #","time":"\#(time)","type":"\#(ActionLog.moveName)"}"#.utf8)
        return line
    }
}

/// A history move read from a log, with the state it landed on when it was recorded.
final class ReplayedMove: ActionProtocol {
    static let landingKey = CodingUserInfoKey(rawValue: "ReduxSwift.ActionLog.landing")!

    private enum CodingKeys: String, CodingKey {
        case move
        case state
        case step
    }

    let move: HistoryAction
    let landing: any LandingState

    /// Decodes the payload of a move's line, `{"move":…,"state":…}`, with the state type of the
    /// store it is replayed into.
    init(from decoder: any Decoder) throws {
        guard let decodeLanding = decoder.userInfo[Self.landingKey] as? LandingDecoding else {
            throw UnreadableLine(.malformed(detail: "a history move is replayed only into a store"))
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        move = try Self.move(from: decoder)
        guard container.contains(.state) else {
            throw UnreadableLine(.malformed(detail: "the history move has no \"state\""))
        }
        do {
            landing = try decodeLanding.decode(container.superDecoder(forKey: .state))
        } catch {
            // A log of a store of another state type, or of an older version of this one.
            let path = SnapshotError(.decodingFailed, stateType: ReplayedMove.self, underlyingError: error)
                .codingPath
            throw UnreadableLine(
                .malformed(
                    detail:
                        "the state the history move landed on does not decode as \(decodeLanding.stateName)"
                        + (path.isEmpty ? "" : " (at \(path))")))
        }
        stateName = decodeLanding.stateName
    }

    /// The state type's full name, for errors.
    private let stateName: String

    /// The move of a move's payload, `{"move":…,"step":…}`, without the state it landed on.
    static func move(from decoder: any Decoder) throws -> HistoryAction {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .move)
        switch name {
        case "undo": return .undo
        case "redo": return .redo
        case "jump": return .jump(to: try container.decode(Int.self, forKey: .step))
        default: throw UnreadableLine(.malformed(detail: "\"\(name)\" is no history move"))
        }
    }

    /// Encodes the payload of a move that failed, `{"move":…,"step":…}`: there is no state it
    /// landed on.
    static func encode(_ move: HistoryAction, to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch move {
        case .undo: try container.encode("undo", forKey: .move)
        case .redo: try container.encode("redo", forKey: .move)
        case .jump(let step):
            try container.encode("jump", forKey: .move)
            try container.encode(step, forKey: .step)
        }
    }

    /// Throws when the landing state does not keep every value `line`, the move's line, holds: the
    /// state type changed since the recording (a member renamed, to an optional too), and replaying
    /// the move would lose what the user had.
    func checkKeepsEveryValue(of line: Data) throws(UnreadableLine) {
        guard let json = try? JSONValue(parsing: line), let state = json.child("action")?.child("state")
        else {
            return
        }
        let variant = SnapshotCoder.declaredFloatStrings(in: line, last: true)
        let lost = landing.valuesNotKept(of: state, floatStrings: variant)
        guard !lost.isEmpty else { return }
        throw UnreadableLine(
            .malformed(
                detail: "the state the history move landed on holds values \(stateName) does not read (at "
                    + lost.prefix(3).joined(separator: ", ") + (lost.count > 3 ? ", …" : "") + ")"))
    }
}

/// Decodes the state a replayed move landed on as the state type of the store it is replayed into.
struct LandingDecoding: Sendable {
    let decode: @Sendable (any Decoder) throws -> any LandingState
    /// The state type's full name, for errors.
    let stateName: String

    init<State: StateProtocol>(_: State.Type) {
        decode = { decoder in DecodedLanding(state: try State(from: decoder)) }
        stateName = String(reflecting: State.self)
    }
}

/// The state a replayed move landed on, with the state type erased like the reducers'.
protocol LandingState: AnyObject, Sendable {
    /// Whether the state at `state` is the landing state; `false` when that cannot be told (the
    /// state is not `Equatable`).
    func matches(_ state: StatePointer) -> Bool
    /// Makes the state at `state` the landing state.
    func apply(to state: StatePointer)
    /// The paths of the values of `json`, the state as the line holds it, that the landing state
    /// does not keep: members a later version of the state type renamed, to an optional too.
    func valuesNotKept(of json: JSONValue, floatStrings variant: Int?) -> [String]
}

/// `@unchecked Sendable`: `state` was decoded from the log for this landing alone, so nothing else
/// refers to its storage or to the objects it holds; the replay hands it to the store's queue
/// once, and only the holder of the store's state reads it there.
final class DecodedLanding<State: StateProtocol>: LandingState, @unchecked Sendable {
    private let state: State
    private let isEqual = Equality.of(State.self)

    init(state: State) {
        self.state = state
    }

    func matches(_ pointer: StatePointer) -> Bool {
        guard let isEqual else { return false }
        return isEqual(pointer.assuming(State.self).pointee, state)
    }

    func valuesNotKept(of json: JSONValue, floatStrings variant: Int?) -> [String] {
        let lost = try? StateArchive<State>.valuesNotKept(by: state, of: json, floatStrings: variant)
        return lost?.map(\.path) ?? []
    }

    func apply(to pointer: StatePointer) {
        pointer.assuming(State.self).pointee = state
    }
}

extension ReductionPipeline {
    /// Announces a committed move, `move`, whose state is at `state`, and hands it to the action
    /// logs recording the store with that state, encoded: what a move lands on depends on the
    /// history, which a replay may not have.
    mutating func announceMove(
        _ move: HistoryAction, state: StatePointer, scope: StoreCodeScope, into result: inout ReducedPass
    ) {
        result.changes += 1
        // What committed before the move is recorded before it.
        if !recorders.isEmpty { feedRecorders(result.events) }
        let position = EventPosition.end(of: result.events)
        result.events.appendChange([ActionRun(entries: [.action(move)], range: 0..<1)])
        tap?(move, nil, state)
        guard !recorders.isEmpty else { return }
        markRecorded(result.events)
        // Encoded as a snapshot is, outside any reducer: an `encode(to:)` may read stores.
        let snapshot = StoreCodeScope(reducing: nil, holding: scope.heldLiveState).install {
            checkpoints.encode(state)
        }
        let landed = StoreNotification.ActionList([LandedMove(move: move, state: snapshot)])
        let time = Date()
        var recorded = takeFollowUpMarks(through: position)
        recorded.append(.committed(landed, depths: recordedDepth > 0 ? [recordedDepth] : []))
        for recorder in recorders { recorder.record(recorded, at: time) }
    }

    /// Applies a move an ``ActionLog`` replays: the state becomes the one the move landed on when
    /// it was recorded. The store's own history makes the move first; if it lands on that very
    /// state (an `Equatable` state tells), the history keeps its steps, as it would have had it
    /// made the move itself. Otherwise the state is set to the recorded one, and the history
    /// restarts there, since re-applying what it kept does not give that state.
    mutating func replay(
        _ replayed: ReplayedMove, state: StatePointer, scope: StoreCodeScope,
        into result: inout ReducedPass
    ) {
        var mover: (any AnyHistoryRecorder)?
        if let history = historyRecorders.first,
            (try? history.move(replayed.move, state: state, scope: scope)) == true,
            replayed.landing.matches(state)
        {
            mover = history
        } else {
            replayed.landing.apply(to: state)
        }
        checkpoints.take(state)
        clearReplayList()
        tellHistoryRecordersDiverged(state: state, except: mover)
        announceMove(replayed.move, state: state, scope: scope, into: &result)
        if !historyRecorders.isEmpty { tellHistoryRecordersFinished(replayed.move) }
    }
}

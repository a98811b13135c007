import Foundation

/// How an action log turns actions into lines of JSON and back, by the name registered for each
/// action type.
///
/// Batches (``ActionBatch``) are encoded flat, with the actions they hold at any depth in the order
/// reducers see them; an action the log cannot encode is left out of its batch, and the others
/// are kept.
extension ActionLog {
    /// How one registered action type is named, encoded and decoded.
    struct RegisteredType {
        let name: String
        /// The registered type.
        let type: ObjectIdentifier
        /// Encodes the action, which has the registered type, into `encoder`.
        let encode: @Sendable (any ActionProtocol, any Encoder) throws -> Void
        let decode: @Sendable (any Decoder) throws -> any ActionProtocol
    }

    static let batchName = "ActionBatch"

    /// Encodes `action` as one log line, `{"action":…,"time":…,"type":…}`, and counts the actions
    /// left out. An action that cannot be encoded (its type is not registered, or its
    /// `encode(to:)` throws) is left out. A batch is written flat, `{"actions":[…],"type":
    /// "ActionBatch"}` holding the actions of every level in order, which replays the same, since
    /// reducers see nested batches as their actions one by one; only the actions that cannot be
    /// encoded are left out of it. A committed transaction's part, `transaction`, is written as
    /// its batch marked `"transaction":true`, so that a replay keeps it out of the history's steps
    /// as the store did. An action that failed, `failure` the description of its error, is
    /// written as usual with `"error":…,"failed":true` (a history move without a state: it landed
    /// on none). The line is `nil` when nothing is left.
    func line(
        for action: any ActionProtocol, transaction: Bool = false, failure: String? = nil, time: String,
        with encoder: SnapshotEncoder
    ) -> (line: Data?, leftOut: Int) {
        if let landed = action as? LandedMove {
            guard let line = landed.line(time: time) else { return (nil, 1) }
            return (line, 0)
        }
        guard let batch = ActionBatch.of(action) else {
            guard let line = record(action, failure: failure, time: time, with: encoder) else {
                return (nil, 1)
            }
            return (line, 0)
        }
        let flat = batch.flattened()
        if let line = record(flat, transaction: transaction, failure: failure, time: time, with: encoder) {
            return (line, 0)
        }
        // Only a batch that does not encode whole pays for finding what it can keep.
        let kept = flat.actions.filter { record($0, time: nil, with: encoder) != nil }
        let leftOut = flat.actions.count - kept.count
        guard !kept.isEmpty,
            let line = record(
                ActionBatch(kept), transaction: transaction, failure: failure, time: time, with: encoder)
        else {
            return (nil, flat.actions.count)
        }
        return (line, leftOut)
    }

    /// The line of `action`, saying so when it writes a float as a string, as archives do (see
    /// ``EncodedSnapshot/floatStrings``); `nil` when it cannot be encoded.
    private func record(
        _ action: any ActionProtocol, transaction: Bool = false, failure: String? = nil, time: String?,
        with encoder: SnapshotEncoder
    ) -> Data? {
        guard
            let encoded = try? encoder.encodeMarkingUnordered(
                ActionRecord(
                    action: action, transaction: transaction, failure: failure, time: time, log: self))
        else { return nil }
        guard let variant = encoded.floatStrings else { return encoded.data }
        return try? encoder.encode(
            ActionRecord(
                action: action, transaction: transaction, failure: failure, time: time, log: self,
                floatStrings: variant))
    }

    /// Decodes one log line: in one parsing pass when it says whether it writes floats as strings,
    /// as lines this version writes do (see ``EncodedSnapshot/floatStrings``); an older line is
    /// read without them first.
    func action(from line: Data, strict: JSONDecoder, lenient: JSONDecoder) throws(UnreadableLine)
        -> any ActionProtocol
    {
        if let variant = SnapshotCoder.declaredFloatStrings(in: line, last: true) {
            return try action(
                from: line,
                with: SnapshotCoder.decoder(floatStrings: variant, strict: strict, lenient: lenient))
        }
        do {
            return try action(from: line, with: strict)
        } catch {
            return try action(from: line, with: lenient)
        }
    }

    private func action(from line: Data, with decoder: JSONDecoder) throws(UnreadableLine)
        -> any ActionProtocol
    {
        decoder.userInfo[ActionRecord.logKey] = self
        do {
            let action = try decoder.decode(ActionRecord.self, from: line).action
            if let move = action as? ReplayedMove { try move.checkKeepsEveryValue(of: line) }
            return action
        } catch let unreadable as UnreadableLine {
            throw unreadable
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            throw UnreadableLine(.malformed(detail: "not JSON"))
        } catch {
            let path = SnapshotError(.decodingFailed, stateType: ActionRecord.self, underlyingError: error)
                .codingPath
            let detail = path.isEmpty ? "it does not decode" : "the value at \(path) does not decode"
            throw UnreadableLine(.malformed(detail: detail))
        }
    }
}

/// What is wrong with one line of a log, thrown while decoding it; ``ActionLog/replay(_:into:)``
/// adds the line number to make it an ``ActionLog/ReplayError``.
struct UnreadableLine: Error {
    let kind: ActionLog.ReplayError.Kind

    init(_ kind: ActionLog.ReplayError.Kind) {
        self.kind = kind
    }
}

/// One action of a log, with the name of its type: `{"action":…,"time":…,"type":…}`, or for a
/// batch `{"actions":[…],"type":"ActionBatch"}`, and for a transaction's part
/// `{"actions":[…],"transaction":true,"type":"ActionBatch"}` (a batch line without the marker is
/// a plain batch, as every line earlier versions wrote). An action that failed has
/// `"error":…,"failed":true` besides, and is read as a ``FailedLine`` (a line without them
/// committed, as every line earlier versions wrote). The action is written and read through the
/// registered type's own `Codable` conformance, nested in the record's encoder and decoder.
private struct ActionRecord: Codable {
    static let logKey = CodingUserInfoKey(rawValue: "ReduxSwift.ActionLog")!

    /// Thrown while encoding an action whose type is not registered.
    struct Unregistered: Error {}

    private enum CodingKeys: String, CodingKey {
        case type
        case action
        case actions
        case time
        case floatStrings
        case transaction
        case failed
        case error
    }

    /// The action; a transaction's part read from a log is a ``ReplayedTransaction``.
    let action: any ActionProtocol
    /// Whether the batch `action` is a committed transaction's part, when writing.
    private let transaction: Bool
    /// The description of the error the action failed with, when writing a failed action.
    private let failure: String?
    private let time: String?
    private let log: ActionLog?
    /// The variant of strings the line writes floats as, if it writes one (see ``SnapshotCoder``).
    private let floatStrings: Int?

    init(
        action: any ActionProtocol, transaction: Bool = false, failure: String? = nil, time: String?,
        log: ActionLog, floatStrings: Int? = nil
    ) {
        self.action = action
        self.transaction = transaction
        self.failure = failure
        self.time = time
        self.log = log
        self.floatStrings = floatStrings
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(time, forKey: .time)
        try container.encodeIfPresent(floatStrings, forKey: .floatStrings)
        if let failure {
            try container.encode(true, forKey: .failed)
            try container.encode(failure, forKey: .error)
        }
        guard let log else { throw Unregistered() }
        // A move that committed is written with its state (see ``LandedMove``); one that failed
        // landed on none.
        if failure != nil, let move = action as? HistoryAction {
            try container.encode(ActionLog.moveName, forKey: .type)
            try ReplayedMove.encode(move, to: container.superEncoder(forKey: .action))
            return
        }
        if let batch = action as? ActionBatch {
            try container.encode(ActionLog.batchName, forKey: .type)
            if transaction { try container.encode(true, forKey: .transaction) }
            try container.encode(
                batch.actions.map { ActionRecord(action: $0, time: nil, log: log) }, forKey: .actions)
            return
        }
        guard let registered = log.registeredType(for: action) else { throw Unregistered() }
        try container.encode(registered.name, forKey: .type)
        try registered.encode(action, container.superEncoder(forKey: .action))
    }

    init(from decoder: any Decoder) throws {
        guard let log = decoder.userInfo[Self.logKey] as? ActionLog else { throw Unregistered() }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        time = try container.decodeIfPresent(String.self, forKey: .time)
        self.log = nil
        floatStrings = nil
        transaction = false
        failure = nil
        // Only a line is marked failed, not an action of its batch.
        guard decoder.codingPath.isEmpty, try container.decodeIfPresent(Bool.self, forKey: .failed) == true
        else {
            action = try Self.action(in: container, log: log)
            return
        }
        let error = try container.decodeIfPresent(String.self, forKey: .error) ?? ""
        if try container.decode(String.self, forKey: .type) == ActionLog.moveName {
            guard container.contains(.action) else {
                throw UnreadableLine(.malformed(detail: "no \"action\""))
            }
            action = FailedLine(
                action: try ReplayedMove.move(from: container.superDecoder(forKey: .action)), error: error)
            return
        }
        action = FailedLine(action: try Self.action(in: container, log: log), error: error)
    }

    /// The action a line holds, read with the types registered with `log`.
    private static func action(
        in container: KeyedDecodingContainer<CodingKeys>, log: ActionLog
    ) throws -> any ActionProtocol {
        let name = try container.decode(String.self, forKey: .type)
        if name == ActionLog.batchName {
            let actions = try container.decode([ActionRecord].self, forKey: .actions).map(\.action)
            if actions.contains(where: { $0 is ReplayedMove }) {
                throw UnreadableLine(.malformed(detail: "a batch holds a history move"))
            }
            if actions.contains(where: { $0 is ReplayedTransaction }) {
                throw UnreadableLine(.malformed(detail: "a batch holds a transaction"))
            }
            let batch = ActionBatch(actions)
            let isTransaction = try container.decodeIfPresent(Bool.self, forKey: .transaction) ?? false
            return isTransaction ? ReplayedTransaction(batch: batch) : batch
        }
        if name == ActionLog.moveName {
            guard container.contains(.action) else {
                throw UnreadableLine(.malformed(detail: "no \"action\""))
            }
            return try ReplayedMove(from: container.superDecoder(forKey: .action))
        }
        guard let registered = log.registeredType(named: name) else {
            throw UnreadableLine(.unknownType(name: name))
        }
        guard container.contains(.action) else { throw UnreadableLine(.malformed(detail: "no \"action\"")) }
        return try registered.decode(container.superDecoder(forKey: .action))
    }
}

/// A line of a log whose action failed when it was recorded: it changed nothing, so a replay
/// skips it, and the inspector page shows it with its error. `action` is the action as the line
/// holds it: a registered action, a batch, a ``ReplayedTransaction`` or a ``HistoryAction``.
struct FailedLine: ActionProtocol {
    let action: any ActionProtocol
    /// The description of the error the action failed with.
    let error: String

    var identifier: String { action.identifier }
}

/// A committed transaction's part read from a log: replayed as its batch, and kept by a history
/// as the store kept the transaction, as no step of its own.
struct ReplayedTransaction: ActionProtocol {
    let batch: ActionBatch
}

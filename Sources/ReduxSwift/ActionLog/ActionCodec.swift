import Foundation

/// Turns `Codable` actions into JSON and back, by a name registered for each action type.
///
/// An action log needs to know which type each line holds; register every action type you want
/// recorded and replayed:
///
/// ```swift
/// let codec = ActionCodec()
/// codec.register(TodoAction.self)
/// codec.register(FilterAction.self)
/// ```
///
/// Batches (``ActionBatch``) are encoded with the actions they hold, at any depth; an action the
/// codec cannot encode is left out of its batch, and the others are kept.
public final class ActionCodec: Sendable {
    fileprivate struct Entry {
        let name: String
        /// Encodes the action, which has the registered type, into `encoder`.
        let encode: @Sendable (any ActionProtocol, any Encoder) throws -> Void
        let decode: @Sendable (any Decoder) throws -> any ActionProtocol
    }

    private let entries = LockedValue<(byName: [String: Entry], byType: [ObjectIdentifier: Entry])>(
        ([:], [:]))
    static let batchName = "ActionBatch"

    /// Creates a codec that knows no action types yet.
    public init() {}

    /// Registers an action type under `name` (by default its full type name).
    ///
    /// - Parameters:
    ///   - type: A `Codable` action type.
    ///   - name: The name written in the log; keep it stable across versions of your app.
    public func register<Action: ActionProtocol & Codable>(_ type: Action.Type, name: String? = nil) {
        let name = name ?? String(reflecting: type)
        precondition(name != Self.batchName, "\"\(Self.batchName)\" is the name of batches")
        let entry = Entry(
            name: name,
            encode: { action, encoder in try (action as? Action)?.encode(to: encoder) },
            decode: { decoder in try Action(from: decoder) })
        entries.withLock { entries in
            entries.byName[name] = entry
            entries.byType[ObjectIdentifier(type)] = entry
        }
    }

    /// The registered name of `action`'s type, or `nil` if it is not registered.
    public func name(of action: any ActionProtocol) -> String? {
        if action is ActionBatch { return Self.batchName }
        return entry(for: action)?.name
    }

    fileprivate func entry(for action: any ActionProtocol) -> Entry? {
        entries.withLock { $0.byType[ObjectIdentifier(type(of: action))] }
    }

    fileprivate func entry(named name: String) -> Entry? {
        entries.withLock { $0.byName[name] }
    }

    /// Encodes `action` as one log line, `{"action":…,"time":…,"type":…}`, in one encoding pass,
    /// and counts the actions left out. An action that cannot be encoded (its type is not
    /// registered, or its `encode(to:)` throws) is left out; in a batch, at any depth, only that
    /// action is, and the batch keeps the others. The line is `nil` when nothing is left.
    func line(for action: any ActionProtocol, time: String, with encoder: JSONEncoder) -> (
        line: Data?, leftOut: Int
    ) {
        if let line = try? encoder.encode(ActionRecord(action: action, time: time, codec: self)) {
            return (line, 0)
        }
        guard ActionBatch.of(action) != nil else { return (nil, 1) }
        // Only a batch that does not encode whole pays for finding what it can keep.
        var leftOut = 0
        guard let kept = encodable(action, with: encoder, leftOut: &leftOut),
            let line = try? encoder.encode(ActionRecord(action: kept, time: time, codec: self))
        else { return (nil, Self.count(action)) }
        return (line, leftOut)
    }

    /// `action` with the actions that cannot be encoded taken out of its batches, at any depth,
    /// counting them in `leftOut`; `nil` when it cannot be encoded itself, or is a batch that had
    /// actions and has none left.
    private func encodable(_ action: any ActionProtocol, with encoder: JSONEncoder, leftOut: inout Int)
        -> (any ActionProtocol)?
    {
        guard let batch = ActionBatch.of(action) else {
            guard (try? encoder.encode(ActionRecord(action: action, time: nil, codec: self))) != nil else {
                leftOut += 1
                return nil
            }
            return action
        }
        let kept = batch.actions.compactMap { encodable($0, with: encoder, leftOut: &leftOut) }
        if kept.isEmpty, !batch.actions.isEmpty { return nil }
        return kept.count == batch.actions.count ? batch : ActionBatch(kept)
    }

    /// The actions of `action` that are not batches, at any depth.
    private static func count(_ action: any ActionProtocol) -> Int {
        guard let batch = ActionBatch.of(action) else { return 1 }
        return batch.actions.reduce(0) { $0 + count($1) }
    }

    /// Decodes one log line in one parsing pass.
    func action(from line: Data, with decoder: JSONDecoder) throws(ActionLogError.Reason)
        -> any ActionProtocol
    {
        decoder.userInfo[ActionRecord.codecKey] = self
        do {
            return try decoder.decode(ActionRecord.self, from: line).action
        } catch let reason as ActionLogError.Reason {
            throw reason
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            throw .malformed("not JSON")
        } catch {
            let path = SnapshotError(.decoding, stateType: ActionRecord.self, underlyingError: error)
                .codingPath
            throw .malformed(path.isEmpty ? "it does not decode" : "the value at \(path) does not decode")
        }
    }
}

/// One action of a log, with the name of its type: `{"action":…,"time":…,"type":…}`, or for a
/// batch `{"actions":[…],"type":"ActionBatch"}`. The action is written and read through the
/// registered type's own `Codable` conformance, nested in the record's encoder and decoder.
private struct ActionRecord: Codable {
    static let codecKey = CodingUserInfoKey(rawValue: "ReduxSwift.ActionCodec")!

    /// Thrown while encoding an action whose type is not registered.
    struct Unregistered: Error {}

    private enum CodingKeys: String, CodingKey {
        case type
        case action
        case actions
        case time
    }

    let action: any ActionProtocol
    private let time: String?
    private let codec: ActionCodec?

    init(action: any ActionProtocol, time: String?, codec: ActionCodec) {
        self.action = action
        self.time = time
        self.codec = codec
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(time, forKey: .time)
        guard let codec else { throw Unregistered() }
        if let batch = action as? ActionBatch {
            try container.encode(ActionCodec.batchName, forKey: .type)
            try container.encode(
                batch.actions.map { ActionRecord(action: $0, time: nil, codec: codec) }, forKey: .actions)
            return
        }
        guard let entry = codec.entry(for: action) else { throw Unregistered() }
        try container.encode(entry.name, forKey: .type)
        try entry.encode(action, container.superEncoder(forKey: .action))
    }

    init(from decoder: any Decoder) throws {
        guard let codec = decoder.userInfo[Self.codecKey] as? ActionCodec else { throw Unregistered() }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .type)
        time = try container.decodeIfPresent(String.self, forKey: .time)
        self.codec = nil
        if name == ActionCodec.batchName {
            action = ActionBatch(try container.decode([ActionRecord].self, forKey: .actions).map(\.action))
            return
        }
        guard let entry = codec.entry(named: name) else { throw ActionLogError.Reason.unknownType(name) }
        guard container.contains(.action) else { throw ActionLogError.Reason.malformed("no \"action\"") }
        action = try entry.decode(container.superDecoder(forKey: .action))
    }
}

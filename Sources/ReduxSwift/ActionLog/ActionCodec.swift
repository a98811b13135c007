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
/// Batches (``ActionBatch``) are encoded with the actions they hold.
public final class ActionCodec: Sendable {
    private struct Entry {
        let name: String
        let encode: @Sendable (any ActionProtocol, JSONEncoder) throws -> Data?
        let decode: @Sendable (Data, JSONDecoder) throws -> any ActionProtocol
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
            encode: { action, encoder in
                guard let action = action as? Action else { return nil }
                return try encoder.encode(action)
            },
            decode: { data, decoder in try decoder.decode(Action.self, from: data) })
        entries.withLock { entries in
            entries.byName[name] = entry
            entries.byType[ObjectIdentifier(type)] = entry
        }
    }

    /// The registered name of `action`'s type, or `nil` if it is not registered.
    public func name(of action: any ActionProtocol) -> String? {
        if action is ActionBatch { return Self.batchName }
        return entries.withLock { $0.byType[ObjectIdentifier(type(of: action))]?.name }
    }

    /// Encodes `action` as `{"type":…,"action":…}`; `nil` if its type (or a batched action's) is
    /// not registered.
    func encode(_ action: any ActionProtocol, with encoder: JSONEncoder) throws -> [String: Any]? {
        if let batch = action as? ActionBatch {
            var actions: [[String: Any]] = []
            for action in batch.actions {
                guard let encoded = try encode(action, with: encoder) else { return nil }
                actions.append(encoded)
            }
            return ["type": Self.batchName, "actions": actions]
        }
        guard let entry = entries.withLock({ $0.byType[ObjectIdentifier(type(of: action))] }),
            let data = try entry.encode(action, encoder)
        else { return nil }
        return [
            "type": entry.name,
            "action": try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed),
        ]
    }

    /// Decodes an object written by `encode`.
    func decode(_ object: [String: Any], with decoder: JSONDecoder) throws(ActionLogError.Reason)
        -> any ActionProtocol
    {
        guard let name = object["type"] as? String else { throw .malformed("no \"type\"") }
        if name == Self.batchName {
            guard let actions = object["actions"] as? [[String: Any]] else {
                throw .malformed("a batch without \"actions\"")
            }
            var decoded: [any ActionProtocol] = []
            for action in actions { decoded.append(try decode(action, with: decoder)) }
            return ActionBatch(decoded)
        }
        guard let entry = entries.withLock({ $0.byName[name] }) else { throw .unknownType(name) }
        guard let payload = object["action"] else { throw .malformed("no \"action\"") }
        do {
            let data = try JSONSerialization.data(withJSONObject: payload, options: .fragmentsAllowed)
            return try entry.decode(data, decoder)
        } catch {
            throw .malformed("\(name) does not decode: \(error)")
        }
    }
}

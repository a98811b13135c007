import Foundation

/// The archive's file format: `{"schemaVersion":N,"state":<the state's JSON>}`.
///
/// Saving splices the store's cached encoding of the state between a prefix and a closing brace,
/// so the state is never encoded twice. Loading the current version is one `JSONDecoder` pass.
enum ArchiveFormat {
    /// How deep `JSONSerialization` and `JSONDecoder` let arrays and objects nest.
    static let depthLimit = 512

    static func envelope(schemaVersion: Int, state: Data) -> Data {
        var data = Data("{\"schemaVersion\":\(schemaVersion),\"state\":".utf8)
        data.reserveCapacity(data.count + state.count + 1)
        data.append(state)
        data.append(UInt8(ascii: "}"))
        return data
    }

    /// The `userInfo` key that tells ``Envelope`` the version whose state it should decode.
    static let currentVersionKey = CodingUserInfoKey(rawValue: "ReduxSwift.ArchiveFormat.currentVersion")!

    /// The archive decoded in one pass: the state only when the version is the current one.
    struct Envelope<State: Decodable>: Decodable {
        let schemaVersion: Int
        let state: State?

        private enum CodingKeys: String, CodingKey {
            case schemaVersion
            case state
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            schemaVersion = try container.decode(Int.self, forKey: .schemaVersion)
            let current = decoder.userInfo[ArchiveFormat.currentVersionKey] as? Int
            state = schemaVersion == current ? try container.decode(State.self, forKey: .state) : nil
        }
    }

    /// Explains why `JSONDecoder` rejected `data`: not JSON, too deep, or the wrong shape.
    static func classify(_ data: Data, decodingError: any Error, stateType: Any.Type)
        -> PersistenceError.Reason
    {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            if nestingDepth(of: data) > depthLimit { return .tooDeep(limit: depthLimit) }
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            return .notJSON(detail: detail ?? "\(error)")
        }
        guard let envelope = object as? [String: Any] else {
            return .wrongShape(detail: "the top level is not a JSON object")
        }
        guard envelope["schemaVersion"] is NSNumber else {
            return .wrongShape(
                detail: "it has no numeric \"schemaVersion\", so it is not a ReduxSwift archive")
        }
        guard envelope["state"] != nil else {
            return .wrongShape(detail: "it has no \"state\"")
        }
        return .wrongShape(
            detail: SnapshotError(.decoding, stateType: stateType, underlyingError: decodingError).description
        )
    }

    /// The deepest nesting of arrays and objects in `data`, ignoring brackets inside strings.
    static func nestingDepth(of data: Data) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in data {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
            default:
                break
            }
        }
        return deepest
    }

    /// Removes every object member whose name starts with `_`, at any depth.
    static func removingUnderscoredKeys(from state: Data) throws -> Data {
        let object = try JSONSerialization.jsonObject(with: state, options: [.fragmentsAllowed])
        return try JSONSerialization.data(
            withJSONObject: removingUnderscoredKeys(from: object), options: [.fragmentsAllowed])
    }

    private static func removingUnderscoredKeys(from value: Any) -> Any {
        if let object = value as? [String: Any] {
            var kept: [String: Any] = [:]
            kept.reserveCapacity(object.count)
            for (key, member) in object where !key.hasPrefix("_") {
                kept[key] = removingUnderscoredKeys(from: member)
            }
            return kept
        }
        if let array = value as? [Any] {
            return array.map(removingUnderscoredKeys(from:))
        }
        return value
    }

    /// A suffix such as `.corrupt-20261122T031500Z` for data set aside at `date`.
    static func corruptSuffix(at date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(
            format: ".corrupt-%04d%02d%02dT%02d%02d%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}

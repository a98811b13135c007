import Foundation

/// The archive's file format: `{"schemaVersion":N,"state":<the state's JSON>}`, with
/// `"floatStrings":<variant>` before `"state"` when the state writes a float as a string (see
/// ``EncodedSnapshot/floatStrings``).
///
/// Saving splices the store's cached encoding of the state between a prefix and a closing brace,
/// so the state is never encoded twice. Loading the current version is one `JSONDecoder` pass.
enum ArchiveFormat {
    /// How deep `JSONDecoder` lets arrays and objects nest.
    static let depthLimit = JSONNesting.readLimit

    /// The archive of `state`; `floatStrings` is the variant of strings it writes a `Double` or
    /// `Float` as, if it writes one, which a load reads as floats then (see
    /// ``EncodedSnapshot/floatStrings``). Versions before this member ignore it.
    static func envelope(schemaVersion: Int, state: Data, floatStrings: Int? = nil) -> Data {
        let floats = floatStrings.map { "\"floatStrings\":\($0)," } ?? ""
        var data = Data("{\"schemaVersion\":\(schemaVersion),\(floats)\"state\":".utf8)
        data.reserveCapacity(data.count + state.count + 1)
        data.append(state)
        data.append(UInt8(ascii: "}"))
        return data
    }

    /// The member that marks a state saved beside an archive that the saving program's types
    /// failed to read although it is of their own version: the types changed without a new
    /// `schemaVersion`, so the state may not have the shape of the version it is tagged with.
    /// Versions before this member ignore it.
    private static let unsureVersionMember = #""unsureVersion":true,"#

    private static func prefix(version: Int) -> String { "{\"schemaVersion\":\(version)," }

    /// `envelope`, an archive of `version` as ``envelope(schemaVersion:state:floatStrings:)``
    /// writes it, marked as a state whose version is unsure.
    static func markingVersionUnsure(_ envelope: Data, version: Int) -> Data {
        let prefix = Data(prefix(version: version).utf8)
        guard envelope.starts(with: prefix) else { return envelope }
        return prefix + Data(unsureVersionMember.utf8) + envelope.dropFirst(prefix.count)
    }

    /// `data` tagged with `current` instead of `version`, when it is an archive of `version` marked
    /// as a state whose version is unsure; `nil` otherwise.
    static func retaggingUnsure(_ data: Data, version: Int, as current: Int) -> Data? {
        let marked = Data((prefix(version: version) + unsureVersionMember).utf8)
        guard data.starts(with: marked) else { return nil }
        return Data(prefix(version: current).utf8) + data.dropFirst(marked.count)
    }

    /// The `userInfo` key that tells ``Envelope`` the version whose state it should decode.
    static let currentVersionKey = CodingUserInfoKey(rawValue: "ReduxSwift.ArchiveFormat.currentVersion")!

    /// The archive decoded in one pass: the state only when the version is the current one.
    struct Envelope<State: Decodable>: Decodable {
        let schemaVersion: Int
        let state: State?

        private enum CodingKeys: String, CodingKey {
            case schemaVersion
            case floatStrings
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
    ///
    /// - Parameter decode: Decodes an archive as the decoding that threw `decodingError` did, to
    ///   find a number that does not fit its field (see ``UnfitNumber``).
    static func classify(
        _ data: Data, decodingError: any Error, stateType: Any.Type, schemaVersion: Int,
        decode: (Data) throws -> Void
    ) -> PersistenceError.Kind {
        let object: JSONValue
        do {
            object = try JSONValue(parsing: data)
        } catch {
            return error.isTooDeep ? .tooDeep(limit: depthLimit) : .notJSON(detail: error.description)
        }
        guard case .object(let envelope) = object else {
            return .wrongShape(detail: "the top level is \(object.kind), not an object")
        }
        guard let found = envelope["schemaVersion"] else {
            return .wrongShape(detail: "it has no \"schemaVersion\", so it is not a ReduxSwift archive")
        }
        guard case .number(let version) = found else {
            return .wrongShape(
                detail: "its \"schemaVersion\" is \(found.kind), not a whole number, so it is not a "
                    + "ReduxSwift archive")
        }
        // `as? Int` succeeds only for a number that is exactly an `Int`.
        var numberTexts = NumberTexts()
        guard found.foundationObject(recording: &numberTexts) as? Int != nil else {
            return .wrongShape(
                detail: "its \"schemaVersion\" \(version) is not a whole number from \(Int.min) to \(Int.max)"
            )
        }
        guard let state = envelope["state"] else {
            return .wrongShape(detail: "it has no \"state\"")
        }
        // No store writes a null state, and no migration can change one: it is damage, not an
        // older version.
        if state == .null {
            return .wrongShape(detail: "its \"state\" is null, which the state type does not read")
        }
        let explained = UnfitNumber.explain(
            DefaultFilling.unwrapped(decodingError), in: data, under: [.key("state")], decode: decode)
        return MigrationAdvice.kind(
            for: decodingError, explained: explained, stateType: stateType, schemaVersion: schemaVersion,
            codingPathPrefix: 1)
    }

    /// Whether an object member named `key` is left out when underscored keys are excluded.
    ///
    /// Names that start with `_` are, except `_` followed by one or more ASCII digits: Swift names
    /// the unlabelled associated values of an enum case `_0`, `_1`…, and a state cannot be decoded
    /// without them. `_` and `__` are left out.
    static func isUnderscored(_ key: String) -> Bool {
        guard key.hasPrefix("_") else { return false }
        let rest = key.utf8.dropFirst()
        return rest.isEmpty || !rest.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// Removes every object member whose name ``isUnderscored(_:)``, at any depth; every number
    /// keeps its text.
    static func removingUnderscoredKeys(from state: Data) throws -> Data {
        try JSONValue(parsing: state).removingMembers(where: isUnderscored).data
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

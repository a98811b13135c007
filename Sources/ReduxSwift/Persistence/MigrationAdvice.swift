import Foundation

/// Turns the error of a state that does not decode from its archive into
/// ``PersistenceError/Kind/needsMigration(path:detail:migration:)``: where, why, and the one-line
/// ``ArchiveMigration`` that fixes it.
enum MigrationAdvice {
    /// The kind for `error`, thrown while decoding the state; `codingPathPrefix` keys (the
    /// envelope's `state`) come before the state's own.
    ///
    /// - Parameters:
    ///   - explained: `error`, or the error ``UnfitNumber`` found behind it.
    ///   - schemaVersion: The version the program writes; the migration is from it.
    static func kind(
        for error: any Error, explained: any Error, stateType: Any.Type, schemaVersion: Int,
        codingPathPrefix: Int, migrated: Bool = false
    ) -> PersistenceError.Kind {
        let kind = advice(
            for: error, explained: explained, stateType: stateType, schemaVersion: schemaVersion,
            codingPathPrefix: codingPathPrefix)
        guard migrated, case .needsMigration(let path, let detail, let migration) = kind else { return kind }
        return .needsMigration(
            path: path, detail: "after migrating to version \(schemaVersion): \(detail)", migration: migration
        )
    }

    private static func advice(
        for error: any Error, explained: any Error, stateType: Any.Type, schemaVersion: Int,
        codingPathPrefix: Int
    ) -> PersistenceError.Kind {
        var underlying = error
        var missing: DefaultFilling.MissingMember?
        if let failure = error as? DefaultFilling.Failure {
            underlying = failure.underlying
            missing = failure.missing
        }
        let version = schemaVersion
        switch underlying {
        case let unread as DefaultFilling.UnreadMembers:
            let codingPath = Array(unread.codingPath.dropFirst(codingPathPrefix))
            let at = argument(MemberPath.generalized(codingPath + [AnyMemberKey(stringValue: "")]).path)
            let old = unread.unread[0]
            let new = unread.filled[0]
            return .needsMigration(
                path: rendered(codingPath),
                detail: "\(unread); if \"\(old)\" was removed rather than renamed, migrate with "
                    + "ArchiveMigration(from: \(version), removing: \"\(old)\"\(at)) instead",
                migration: "ArchiveMigration(from: \(version), renaming: \"\(old)\", to: \"\(new)\"\(at))")
        case DecodingError.keyNotFound(let key, let context):
            let codingPath = Array(context.codingPath.dropFirst(codingPathPrefix))
            let at = argument(MemberPath.generalized(codingPath + [AnyMemberKey(stringValue: "")]).path)
            let path = rendered(codingPath + [key])
            if let missing, missing.member == key.stringValue,
                missing.codingPath.map(\.stringValue) == context.codingPath.map(\.stringValue)
            {
                let owner = String(reflecting: missing.owner)
                return .needsMigration(
                    path: path,
                    detail: "\(owner) needs a value for \"\(key.stringValue)\", which the archive lacks; "
                        + "conform \(owner) to ArchiveDefaults so that it takes the value \(owner)() "
                        + "gives it, or add it with the migration shown",
                    migration: "ArchiveMigration(from: \(version), adding: \"\(key.stringValue)\", "
                        + "value: \(sample(of: missing.valueType))\(at))")
            }
            return .needsMigration(
                path: path,
                detail: "the archive has no value for \"\(key.stringValue)\" (\(context.debugDescription))",
                migration: "ArchiveMigration(from: \(version), adding: \"\(key.stringValue)\", value: 0\(at))"
            )
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            // An unfit number's error is pathless; its explanation has the path.
            var codingPath = Array(context.codingPath.dropFirst(codingPathPrefix))
            if codingPath.isEmpty, case DecodingError.dataCorrupted(let found) = explained {
                codingPath = Array(found.codingPath.dropFirst(codingPathPrefix))
            }
            let detail = SnapshotError(.decodingFailed, stateType: stateType, underlyingError: explained)
                .description
            let (objectPath, member) = MemberPath.generalized(codingPath)
            guard let member else {
                return .needsMigration(
                    path: rendered(codingPath), detail: detail,
                    migration:
                        "ArchiveMigration(from: \(version)) { state in /* change state to the new shape */ }")
            }
            return .needsMigration(
                path: rendered(codingPath), detail: detail,
                migration:
                    "ArchiveMigration(from: \(version), converting: \"\(member)\"\(argument(objectPath))) "
                    + "{ old in old /* return it as the current type reads it */ }")
        default:
            let detail = SnapshotError(.decodingFailed, stateType: stateType, underlyingError: explained)
                .description
            return .needsMigration(
                path: "state", detail: detail,
                migration:
                    "ArchiveMigration(from: \(version)) { state in /* change state to the new shape */ }")
        }
    }

    /// The kind for values of a fixture that the current types do not keep: `lost` are the changes
    /// from the archived state to the state encoded again, each with an old value.
    static func notKept(_ lost: [StateChange], schemaVersion version: Int) -> PersistenceError.Kind {
        func described(_ change: StateChange) -> String {
            let path = change.path.isEmpty ? "state" : "state.\(change.path)"
            guard let new = change.newValue else { return "\(path) is dropped" }
            return "\(path) was \(abbreviated(change.oldValue)) and is now \(abbreviated(new))"
        }
        let listed = lost.prefix(5).map(described).joined(separator: "; ")
        let more = lost.count > 5 ? "; and \(lost.count - 5) more" : ""
        var components = lost[0].pathComponents
        let member = components.popLast() ?? ""
        let objectPath = components.map { $0.allSatisfy(\.isNumber) ? "[]" : ".\($0)" }.joined()
        let at = argument(objectPath.hasPrefix(".") ? String(objectPath.dropFirst()) : objectPath)
        let detail = "the current types do not keep every value it holds: \(listed)\(more)"
        if lost[0].newValue == nil {
            return .needsMigration(
                path: lost[0].path.isEmpty ? "state" : "state.\(lost[0].path)",
                detail: detail + "; if \"\(member)\" was renamed, migrate with "
                    + "ArchiveMigration(from: \(version), renaming: \"\(member)\", to: …\(at)) instead",
                migration: "ArchiveMigration(from: \(version), removing: \"\(member)\"\(at))")
        }
        return .needsMigration(
            path: "state.\(lost[0].path)", detail: detail,
            migration: "ArchiveMigration(from: \(version), converting: \"\(member)\"\(at)) "
                + "{ old in old /* return it as the current type reads it */ }")
    }

    /// Whether two JSON values are numbers of the same value, written differently (`1.0` and `1`).
    static func sameNumber(_ left: JSONValue, _ right: JSONValue) -> Bool {
        guard case .number(let a) = left, case .number(let b) = right else { return false }
        if let x = Decimal(string: a), let y = Decimal(string: b), x == y { return true }
        return false
    }

    private static func abbreviated(_ value: JSONValue?) -> String {
        guard let value else { return "absent" }
        let text = value.description
        return text.count > 40 ? String(text.prefix(37)) + "…" : text
    }

    /// `, in: "path"`, or nothing for the state itself.
    private static func argument(_ path: String) -> String {
        path.isEmpty ? "" : ", in: \"\(path)\""
    }

    /// A path such as `state.cart.lines[3].giftWrap`.
    static func rendered(_ codingPath: [any CodingKey]) -> String {
        let segments = SnapshotError.segments(of: codingPath)
        guard let first = segments.first else { return "state" }
        return "state" + (first.hasPrefix("[") ? "" : ".") + segments.joined()
    }

    /// A value to write for a member of `type`, for the migration to show.
    private static func sample(of type: Any.Type) -> String {
        switch type {
        case is Bool.Type: return "false"
        case is String.Type: return "\"\""
        case is any BinaryInteger.Type, is any BinaryFloatingPoint.Type: return "0"
        default: return "0 /* a \(String(reflecting: type)) as JSON */"
        }
    }
}

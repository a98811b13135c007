import Foundation

/// Turns the error of a state that does not decode from its archive into
/// ``PersistenceError/Kind/needsMigration(path:detail:migration:)``: where, why, and the one-line
/// ``ArchiveMigration`` that fixes it.
///
/// A migration shown with a placeholder, `<#…#>` as Xcode writes one, needs a value only the app
/// knows; everything else in it is ready to paste.
enum MigrationAdvice {
    /// The kind for `error`, thrown while decoding the state; `codingPathPrefix` keys (the
    /// envelope's `state`) come before the state's own.
    ///
    /// - Parameters:
    ///   - explained: `error`, or the error ``UnfitNumber`` found behind it.
    ///   - schemaVersion: The version the program writes; the migration is from it.
    ///   - migrated: Whether the state was decoded after migrations.
    static func kind(
        for error: any Error, explained: any Error, stateType: Any.Type, schemaVersion: Int,
        codingPathPrefix: Int, migrated: Bool = false
    ) -> PersistenceError.Kind {
        let advice = Advice(
            version: schemaVersion, stateType: stateType, codingPathPrefix: codingPathPrefix)
        let kind = advice.kind(for: error, explained: explained)
        guard migrated, case .needsMigration(let path, let detail, let migration) = kind else { return kind }
        return .needsMigration(
            path: path, detail: "after migrating to version \(schemaVersion): \(detail)", migration: migration
        )
    }

    private struct Advice {
        let version: Int
        let stateType: Any.Type
        let codingPathPrefix: Int

        /// A migration with only a body, for changes the member migrations cannot write.
        var general: String {
            "ArchiveMigration(from: \(version)) { state in <#change state to the new shape#> }"
        }

        func kind(for error: any Error, explained: any Error) -> PersistenceError.Kind {
            var underlying = error
            var missing: DefaultFilling.MissingMember?
            if let failure = error as? DefaultFilling.Failure {
                underlying = failure.underlying
                missing = failure.missing
            }
            switch underlying {
            case let unread as DefaultFilling.UnreadMembers:
                let object = Array(unread.codingPath.dropFirst(codingPathPrefix))
                let old = unread.unread[0]
                let new = unread.filled[0]
                let path = rendered(object + [AnyMemberKey(stringValue: new)])
                guard let at = argument(for: object) else {
                    return .needsMigration(path: path, detail: "\(unread)", migration: general)
                }
                return .needsMigration(
                    path: path,
                    detail: "\(unread); if \(literal(old)) was removed rather than renamed, migrate with "
                        + "ArchiveMigration(from: \(version), removing: \(literal(old))\(at)) instead",
                    migration:
                        "ArchiveMigration(from: \(version), renaming: \(literal(old)), to: \(literal(new))\(at))"
                )
            case DecodingError.keyNotFound(let key, let context):
                let object = Array(context.codingPath.dropFirst(codingPathPrefix))
                let path = rendered(object + [key])
                let member = key.stringValue
                guard let missing, missing.member == member,
                    missing.codingPath.map(\.stringValue) == context.codingPath.map(\.stringValue)
                else {
                    return .needsMigration(
                        path: path, detail: "the archive has no value for \(literal(member))",
                        migration: adding(member, sample: "<#its value as JSON#>", at: object))
                }
                let owner = String(reflecting: missing.owner)
                if let old = missing.renamedFrom {
                    let renaming = argument(for: object).map {
                        "ArchiveMigration(from: \(version), renaming: \(literal(old)), to: \(literal(member))\($0))"
                    }
                    return .needsMigration(
                        path: path,
                        detail: "\(owner) needs a value for \(literal(member)), which the archive lacks; it "
                            + "holds \(literal(old)) there, which \(owner) does not read and whose value "
                            + "reads as \(String(reflecting: missing.valueType)): a rename",
                        migration: renaming ?? general)
                }
                let why =
                    missing.ownerIsDefaultsType
                    ? "\(owner)() gives no value for it to fill it with"
                    : "conform \(owner) to ArchiveDefaults so that it takes the value \(owner)() gives "
                        + "it, or add it with the migration shown"
                return .needsMigration(
                    path: path,
                    detail: "\(owner) needs a value for \(literal(member)), which the archive lacks; \(why)",
                    migration: adding(member, sample: sample(of: missing.valueType), at: object))
            case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
                DecodingError.dataCorrupted(let context):
                // An unfit number's error is pathless; its explanation has the path.
                var codingPath = Array(context.codingPath.dropFirst(codingPathPrefix))
                if codingPath.isEmpty, case DecodingError.dataCorrupted(let found) = explained {
                    codingPath = Array(found.codingPath.dropFirst(codingPathPrefix))
                }
                let detail = SnapshotError(.decodingFailed, stateType: stateType, underlyingError: explained)
                    .description
                guard let (objectPath, member) = MemberPath.generalized(codingPath), let member,
                    !member.isEmpty
                else {
                    return .needsMigration(path: rendered(codingPath), detail: detail, migration: general)
                }
                return .needsMigration(
                    path: rendered(codingPath), detail: detail,
                    migration: "ArchiveMigration(from: \(version), converting: \(literal(member))"
                        + "\(objectPath.isEmpty ? "" : ", in: \(literal(objectPath))")) "
                        + "{ old in <#old as the current type reads it#> }")
            default:
                let detail = SnapshotError(.decodingFailed, stateType: stateType, underlyingError: explained)
                    .description
                return .needsMigration(path: "state", detail: detail, migration: general)
            }
        }

        /// `ArchiveMigration(from:adding:value:in:)` for `member` of the object at `object`.
        private func adding(_ member: String, sample: String, at object: [any CodingKey]) -> String {
            guard let at = argument(for: object) else { return general }
            return "ArchiveMigration(from: \(version), adding: \(literal(member)), value: \(sample)\(at))"
        }

        /// `, in: "path"` for the object at `codingPath`, nothing for the state itself, or `nil`
        /// when the path cannot be written.
        private func argument(for codingPath: [any CodingKey]) -> String? {
            guard let (path, member) = MemberPath.generalized(codingPath + [AnyMemberKey(stringValue: "")])
            else { return nil }
            _ = member
            return path.isEmpty ? "" : ", in: \(literal(path))"
        }
    }

    /// The kind for values of a fixture that the current types do not keep: `lost` are the changes
    /// from the archived state to the state encoded again, each with an old value.
    static func notKept(_ lost: [StateChange], schemaVersion version: Int) -> PersistenceError.Kind {
        func described(_ change: StateChange) -> String {
            guard let new = change.newValue else { return "\(statePath(change.path)) is dropped" }
            return
                "\(statePath(change.path)) was \(abbreviated(change.oldValue)) and is now \(abbreviated(new))"
        }
        let listed = lost.prefix(5).map(described).joined(separator: "; ")
        let more = lost.count > 5 ? "; and \(lost.count - 5) more" : ""
        let detail =
            "the current types do not keep every value it holds: \(listed)\(more) (in a path for a "
            + "migration, write [] for every key of a dictionary)"
        let general = "ArchiveMigration(from: \(version)) { state in <#change state to the new shape#> }"
        var components = lost[0].pathComponents
        let member = components.popLast() ?? ""
        // An array's element, or a name a path cannot hold: only a general migration can say it.
        guard !member.isEmpty, !member.allSatisfy(\.isNumber), !components.contains(where: \.isEmpty) else {
            return .needsMigration(path: statePath(lost[0].path), detail: detail, migration: general)
        }
        let objectPath = components.map { $0.allSatisfy(\.isNumber) ? "[]" : "." + MemberPath.escaped($0) }
            .joined()
        let trimmed = objectPath.hasPrefix(".") ? String(objectPath.dropFirst()) : objectPath
        let at = trimmed.isEmpty ? "" : ", in: \(literal(trimmed))"
        if lost[0].newValue == nil {
            return .needsMigration(
                path: statePath(lost[0].path),
                detail: detail + "; if \(literal(member)) was renamed, migrate with "
                    + "ArchiveMigration(from: \(version), renaming: \(literal(member)), to: <#its new name#>\(at)) "
                    + "instead",
                migration: "ArchiveMigration(from: \(version), removing: \(literal(member))\(at))")
        }
        return .needsMigration(
            path: statePath(lost[0].path), detail: detail,
            migration: "ArchiveMigration(from: \(version), converting: \(literal(member))\(at)) "
                + "{ old in <#old as the current type reads it#> }")
    }

    /// Whether a change from a fixture to the state encoded again keeps the value: the same number
    /// written differently (`1.0` and `1`), or a `null` that comes back as an absent member (the
    /// way `JSONEncoder` writes `nil`).
    static func keepsValue(_ change: StateChange) -> Bool {
        switch (change.oldValue, change.newValue) {
        case (.null?, nil): return true
        case (.number(let a)?, .number(let b)?):
            guard let x = exactValue(of: a), let y = exactValue(of: b) else { return false }
            return x == y
        default: return false
        }
    }

    /// The exact value of a JSON number's text, with every digit (a `Decimal` would round past 38):
    /// its sign, its significant digits, and the power of ten of the last one. Zero has no digits
    /// and no sign.
    static func exactValue(of text: String) -> (isNegative: Bool, digits: [UInt8], exponent: Int)? {
        var bytes = Substring(text).utf8[...]
        let isNegative = bytes.first == UInt8(ascii: "-")
        if isNegative { bytes = bytes.dropFirst() }
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        var digits = Array(bytes.prefix(while: isDigit))
        bytes = bytes.dropFirst(digits.count)
        var exponent = 0
        if bytes.first == UInt8(ascii: ".") {
            let fraction = bytes.dropFirst().prefix(while: isDigit)
            digits += fraction
            exponent -= fraction.count
            bytes = bytes.dropFirst(1 + fraction.count)
        }
        if let marker = bytes.first, marker | 0x20 == UInt8(ascii: "e") {
            guard let power = Int(Substring(bytes.dropFirst())) else { return nil }
            exponent += power
            bytes = bytes.dropFirst(bytes.count)
        }
        guard bytes.isEmpty, !digits.isEmpty else { return nil }
        digits = Array(digits.drop { $0 == UInt8(ascii: "0") })
        while digits.last == UInt8(ascii: "0") {
            digits.removeLast()
            exponent += 1
        }
        return digits.isEmpty ? (false, [], 0) : (isNegative, digits, exponent)
    }

    private static func statePath(_ path: String) -> String {
        path.isEmpty ? "state" : "state.\(path)"
    }

    private static func abbreviated(_ value: JSONValue?) -> String {
        guard let value else { return "absent" }
        let text = value.description
        return text.count > 40 ? String(text.prefix(37)) + "…" : text
    }

    /// A path such as `state.cart.lines[3].giftWrap`.
    static func rendered(_ codingPath: [any CodingKey]) -> String {
        let segments = SnapshotError.segments(of: codingPath)
        guard let first = segments.first else { return "state" }
        return "state" + (first.hasPrefix("[") ? "" : ".") + segments.joined()
    }

    /// `text` as a Swift string literal.
    static func literal(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case let scalar
            where scalar.value < 0x20 || scalar.value == 0x7F
                || scalar.properties.generalCategory == .lineSeparator
                || scalar.properties.generalCategory == .paragraphSeparator:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// A value to write for a member of `type`, for the migration to show.
    private static func sample(of type: Any.Type) -> String {
        switch type {
        case is Bool.Type: return "false"
        case is String.Type: return "\"\""
        case is any BinaryInteger.Type, is any BinaryFloatingPoint.Type: return "0"
        default: return "<#a \(String(reflecting: type)) as JSON#>"
        }
    }
}

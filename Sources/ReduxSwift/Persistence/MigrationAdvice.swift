import Foundation

/// Turns the error of a state that does not decode from its archive into what it needs: for each
/// change found, where, why, and the one-line ``ArchiveMigration`` that fixes it (a
/// ``PersistenceError/MigrationProblem``), with a way for ``MigrationSurvey`` to get past it and look
/// for the next.
///
/// A migration shown with a placeholder, `<#…#>` as Xcode writes one, needs a value or a choice
/// only the app knows; everything else in it is ready to paste.
enum MigrationAdvice {
    /// What the advice is written for.
    struct Context {
        /// The version the program writes; the migrations are from it.
        let version: Int
        let stateType: Any.Type
        /// Keys (the envelope's `state`) that come before the state's own in coding paths.
        let codingPathPrefix: Int
        /// Whether the state was decoded after migrations.
        var migrated = false
        /// The state's default values, for the members a migration adds.
        var defaults: DefaultStateValues?
        /// The archived value of a member of the object at a coding path (the state's own), for a
        /// person to tell members apart.
        var archivedValue: ((_ object: [any CodingKey], _ member: String) -> JSONValue?)?
        /// The places (``MemberPath/placeKey(_:pairs:)``, of the state's own coding paths) of the
        /// dictionaries archived as an array of keys and values, whose keys and values the paths
        /// of the advice tell apart.
        var pairs: Set<String> = []

        /// Notes the dictionaries archived as keys and values that the decode which threw `error`
        /// met.
        mutating func notePairs(of error: any Error) {
            guard let failure = error as? DefaultFilling.Failure else { return }
            for path in failure.pairs.sorted(by: { $0.count < $1.count }) where path.count >= codingPathPrefix
            {
                pairs.insert(MemberPath.placeKey(path.dropFirst(codingPathPrefix), pairs: pairs))
            }
        }

        /// The path, as the member migrations take it, of the object at `codingPath` (the state's
        /// own); `nil` when a member name on the way cannot be written in a path.
        func objectPath(for codingPath: [any CodingKey]) -> String? {
            MemberPath.generalized(codingPath + [AnyMemberKey(stringValue: "")], pairs: pairs)?.path
        }

        /// A migration with only a body, for changes the member migrations cannot write.
        var general: String {
            "ArchiveMigration(from: \(version)) { state in <#change state to the new shape#> }"
        }

        /// `error`, thrown while decoding the state, as a sentence whose path starts at the state,
        /// such as `Cannot decode AppState at state.expenses[3].amount: …`.
        func described(_ error: any Error) -> String {
            var error = error
            if codingPathPrefix == 0 {
                // Decoded from the state's own JSON: the path starts below the envelope's "state".
                let state = AnyMemberKey(stringValue: "state")
                func prefixed(_ context: DecodingError.Context) -> DecodingError.Context {
                    .init(
                        codingPath: [state] + context.codingPath, debugDescription: context.debugDescription,
                        underlyingError: context.underlyingError)
                }
                switch error {
                case DecodingError.typeMismatch(let type, let context):
                    error = DecodingError.typeMismatch(type, prefixed(context))
                case DecodingError.valueNotFound(let type, let context):
                    error = DecodingError.valueNotFound(type, prefixed(context))
                case DecodingError.keyNotFound(let key, let context):
                    error = DecodingError.keyNotFound(key, prefixed(context))
                case DecodingError.dataCorrupted(let context):
                    error = DecodingError.dataCorrupted(prefixed(context))
                default:
                    break
                }
            }
            return SnapshotError(.decodingFailed, stateType: stateType, underlyingError: error).description
        }
    }

    /// One change a decode found the archive needs.
    struct Finding {
        var problem: PersistenceError.MigrationProblem
        /// How to change the archived state to look past it, or `nil` when nothing can.
        var fix: Fix?
        /// For a rename, what the advice was written from, to write it again once other renames
        /// and additions of the same object are known.
        var rename: Rename?
        /// For a member added, its object and type, for the same purpose.
        var addition: Addition?
    }

    /// A member-added finding, before the survey writes it again knowing the other findings of
    /// its object.
    struct Addition {
        /// The path of the object, as the member migrations take it.
        let object: String
        let member: String
        let valueType: ObjectIdentifier
        let codingPath: [any CodingKey]
        let owner: Any.Type
        /// The members the object holds that its type does not read, each with its archived
        /// value abbreviated for a person to tell them apart.
        let unread: [(name: String, value: String?)]
    }

    /// A change to the archived state that gets past a finding, to look for the next.
    enum Fix {
        /// Nothing: the member is filled from its type's defaults, or read as `nil`.
        case nothing
        /// Renames `old` to `new` in the objects at `object`, a path as the member migrations take.
        case rename(old: String, new: String, object: String)
        /// Adds `member` holding `value` where it is missing.
        case add(member: String, value: JSONValue, object: String)
        /// Adds `member` holding a value of `type` where it is missing.
        case addValue(of: any Decodable.Type, member: String, object: String)
        /// Replaces `member` (each of its values `levels` arrays or dictionaries down) with a value
        /// of `type`, or with `0` when the type is unknown. `place` is where one of them failed.
        case replace(
            member: String, levels: Int, type: (any Decodable.Type)?, object: String, place: [any CodingKey])
    }

    /// A rename finding, before it is written.
    struct Rename {
        /// The path of the object, as the member migrations take it.
        let object: String
        let codingPath: [any CodingKey]
        let owner: Any.Type
        let group: DefaultFilling.RenameGroup
        /// The candidates' archived values, for a person to tell them apart.
        var values: [String: String]
        var candidates: [String]
        /// Every member the object holds that its type does not read, each with its archived
        /// value abbreviated.
        var unread: [(name: String, value: String?)] = []
    }

    /// The kind for `error`, thrown while decoding the state: its first finding.
    ///
    /// - Parameters:
    ///   - explained: `error`, or the error ``UnfitNumber`` found behind it.
    ///   - schemaVersion: The version the program writes; the migration is from it.
    ///   - migrated: Whether the state was decoded after migrations.
    static func kind(
        for error: any Error, explained: any Error, stateType: Any.Type, schemaVersion: Int,
        codingPathPrefix: Int, migrated: Bool = false
    ) -> PersistenceError.Kind {
        let context = Context(
            version: schemaVersion, stateType: stateType, codingPathPrefix: codingPathPrefix,
            migrated: migrated)
        let problem = findings(for: error, explained: explained, in: context)[0].problem
        let detail =
            migrated ? "after migrating to version \(schemaVersion): \(problem.detail)" : problem.detail
        return .needsMigration(path: problem.path, detail: detail, migration: problem.migration)
    }

    /// Every change that `error`, thrown while decoding the state, shows: the members renamed to
    /// optionals found before it, then its cause. Never empty.
    static func findings(for error: any Error, explained: any Error, in context: Context) -> [Finding] {
        var context = context
        context.notePairs(of: error)
        var underlying = error
        var missing: DefaultFilling.MissingMember?
        var failed: DefaultFilling.FailedValue?
        var found: [Finding] = []
        if let failure = error as? DefaultFilling.Failure {
            underlying = failure.underlying
            missing = failure.missing
            failed = failure.failed
            for unread in failure.renamedToOptionals {
                found += renames(
                    unread.groups, at: unread.codingPath, owner: unread.owner, unread: unread.unread,
                    in: context)
            }
        }
        let advice = Advice(context: context)
        switch underlying {
        case is DefaultFilling.RenamedToOptional where !found.isEmpty:
            break
        case let unread as DefaultFilling.UnreadMembers:
            found += renames(
                unread.groups, at: unread.codingPath, owner: unread.owner, unread: unread.unread, in: context)
        case DecodingError.keyNotFound(let key, let decodingContext):
            if let missing, missing.member == key.stringValue,
                missing.codingPath.map(\.stringValue) == decodingContext.codingPath.map(\.stringValue)
            {
                found += renames(
                    missing.renames, at: missing.codingPath, owner: missing.owner, unread: missing.unread,
                    in: context)
                if !missing.renames.contains(where: { $0.member == missing.member }) {
                    found.append(advice.missing(missing))
                }
            } else {
                found.append(advice.missing(key, at: decodingContext.codingPath))
            }
        case DecodingError.typeMismatch(_, let decodingContext),
            DecodingError.valueNotFound(_, let decodingContext),
            DecodingError.dataCorrupted(let decodingContext):
            // An unfit number's error is pathless; its explanation has the path.
            var codingPath = decodingContext.codingPath
            var isUnfitNumber = false
            if codingPath.isEmpty, case DecodingError.dataCorrupted(let explanation) = explained,
                !explanation.codingPath.isEmpty
            {
                codingPath = explanation.codingPath
                isUnfitNumber = true
            }
            var type = failed.flatMap { DefaultFilling.place(codingPath) == $0.place ? $0.type : nil }
            if isUnfitNumber { type = nil }
            let kind: PersistenceError.MigrationProblem.Kind
            if case DecodingError.dataCorrupted = underlying {
                kind = .invalidValue
            } else {
                kind = .changedType
            }
            found.append(advice.value(at: codingPath, kind: kind, type: type, explained: explained))
        default:
            let detail = context.described(explained)
            found.append(
                Finding(
                    problem: .init(path: "state", kind: .other, detail: detail, migration: context.general),
                    fix: nil))
        }
        return found
    }

    /// The findings of the renames an object may hold; each gets a fix that renames one candidate
    /// not taken by an earlier one, to look past it.
    static func renames(
        _ groups: [DefaultFilling.RenameGroup], at codingPath: [any CodingKey], owner: Any.Type,
        unread: [String] = [], in context: Context
    ) -> [Finding] {
        let object = Array(codingPath.dropFirst(context.codingPathPrefix))
        var taken: Set<String> = []
        return groups.map { group in
            let objectPath = context.objectPath(for: object)
            var values: [String: String] = [:]
            for name in group.candidates {
                if let value = context.archivedValue?(object, name) { values[name] = abbreviated(value) }
            }
            let rename = Rename(
                object: objectPath ?? "", codingPath: object, owner: owner, group: group, values: values,
                candidates: group.candidates,
                unread: unread.map { name in
                    (name, context.archivedValue?(object, name).map { abbreviated($0) })
                })
            var fix: Fix?
            if let objectPath {
                if let old = group.candidates.first(where: { !taken.contains($0) }) {
                    taken.insert(old)
                    fix = .rename(old: old, new: group.member, object: objectPath)
                } else if group.kind == .missing {
                    fix = .addValue(of: group.valueType, member: group.member, object: objectPath)
                } else {
                    fix = .nothing
                }
            }
            return Finding(
                problem: problem(for: rename, in: context, alsoLacking: groups.map(\.member)), fix: fix,
                rename: rename)
        }
    }

    /// The problem a rename finding describes; `alsoLacking` names the members of the object that
    /// compete for the same old names.
    static func problem(for rename: Rename, in context: Context, alsoLacking: [String] = [])
        -> PersistenceError.MigrationProblem
    {
        let group = rename.group
        let owner = String(reflecting: rename.owner)
        let path = rendered(rename.codingPath + [AnyMemberKey(stringValue: group.member)])
        let objectPath = context.objectPath(for: rename.codingPath)
        let at = objectPath.map { $0.isEmpty ? "" : ", in: \(literal($0))" }
        let valueType = String(reflecting: group.valueType)
        let lacks: String
        switch group.kind {
        case .filled: lacks = "\(owner) has no value for \(literal(group.member)) in the archive"
        case .optional:
            lacks = "\(owner) reads \(literal(group.member)) as nil, since the archive lacks it"
        case .missing:
            lacks = "\(owner) needs a value for \(literal(group.member)), which the archive lacks"
        }
        let loses = group.kind == .optional ? ", and reading it as nil would lose that value" : ""
        func removal(_ name: String) -> String {
            at.map { "ArchiveMigration(from: \(context.version), removing: \(literal(name))\($0))" }
                ?? context.general
        }
        // What to write instead when the member is new: only a member with no default needs a line.
        let ifNew: String
        if group.kind == .missing, let at {
            let found = context.defaults?.value(
                at: rename.codingPath + [AnyMemberKey(stringValue: group.member)], pairs: context.pairs)
            let value =
                found.flatMap { $0.varies ? nil : MigrationAdvice.argument(for: $0.value) }
                ?? Advice.askedSample(of: group.valueType, in: rename.owner)?.text
                ?? "json: <#a \(valueType) as JSON#>"
            ifNew =
                "add \(literal(group.member)) with ArchiveMigration(from: \(context.version), adding: "
                + "\(literal(group.member)), \(value)\(at))"
        } else {
            ifNew = "\(literal(group.member)) loads without one"
        }
        let held = rename.candidates.map { name in
            literal(name) + (rename.values[name].map { " (\($0))" } ?? "")
        }
        let choice =
            rename.candidates.count == 1
            ? "<#\(literal(rename.candidates[0])), or delete this line#>"
            : "<#\(rename.candidates.map(literal).joined(separator: " or "))#>"
        let others = alsoLacking.filter { $0 != group.member }
        let competing =
            others.isEmpty ? "" : ", as \(owner) also lacks \(others.map(literal).joined(separator: ", "))"
        let migration =
            at.map {
                "ArchiveMigration(from: \(context.version), renaming: \(choice), to: \(literal(group.member))\($0))"
            } ?? context.general
        return .init(
            path: path, kind: .renamedMember(from: rename.candidates),
            detail: "\(lacks); it holds \(listed(held)) there, which \(owner) does not read and whose "
                + "values read as \(valueType)\(competing): \(literal(group.member)) may have been renamed from "
                + (rename.candidates.count == 1 ? "it" : "one of them")
                + "\(loses), and the archive cannot tell "
                + (rename.candidates.count > 1
                    ? "which member became which (JSONEncoder writes an object's members in no fixed order)"
                    : group.kind == .optional
                        ? "a rename from a removal beside an added optional (JSONEncoder leaves out an "
                            + "optional that is nil)"
                        : "a rename from a removal beside an added member")
                + ", so the migration asks you to choose; if \(literal(group.member)) is new, delete it ("
                + ifNew + "), and remove a member that was dropped with "
                + removal(rename.candidates[0])
                + (at.map {
                    "; if it is another member the archive holds there, renamed with another type, rename "
                        + "and convert that member instead (ArchiveMigration(from: \(context.version), renaming: "
                        + "<#its old name#>, to: \(literal(group.member))\($0)) and ArchiveMigration(from: "
                        + "\(context.version), converting: \(literal(group.member))\($0)) { old in <#old as the "
                        + "current type reads it#> })"
                } ?? ""),
            migration: migration)
    }

    private static func listed(_ items: [String]) -> String {
        switch items.count {
        case 0: return ""
        case 1: return items[0]
        default: return items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
        }
    }

    private struct Advice {
        let context: Context

        var version: Int { context.version }

        /// The advice for a member missing with no default and no rename behind it.
        func missing(_ missing: DefaultFilling.MissingMember) -> Finding {
            let object = Array(missing.codingPath.dropFirst(context.codingPathPrefix))
            let path = rendered(object + [AnyMemberKey(stringValue: missing.member)])
            let member = missing.member
            let owner = String(reflecting: missing.owner)
            guard let objectPath = context.objectPath(for: object) else {
                return Finding(
                    problem: .init(
                        path: path, kind: .missingMember,
                        detail: "\(owner) needs a value for \(literal(member)), which the archive lacks",
                        migration: context.general),
                    fix: nil)
            }
            let found = context.defaults?.value(
                at: object + [AnyMemberKey(stringValue: member)], pairs: context.pairs)
            // A `UUID` or a `Date` is taken to differ each time even when the app passed one default
            // state, made once: pasted as a literal, it would give every user the same value.
            let varies =
                found.map { $0.varies || missing.valueType == UUID.self || missing.valueType == Date.self }
                ?? false
            let value: (text: String, json: JSONValue?)
            let source: String
            if let found, !varies, let text = MigrationAdvice.argument(for: found.value) {
                value = (text, found.value)
                source = "the migration shown adds it with the value it has in the default state"
            } else if varies {
                value = ("json: <#a \(String(reflecting: missing.valueType)) as JSON#>", nil)
                source =
                    "its value in the default state differs each time the state is made (such as a UUID() "
                    + "or a Date()), so give it one in the migration shown"
            } else if let sample = Self.askedSample(of: missing.valueType, in: missing.owner) {
                value = sample
                source =
                    "write the value \(owner) declares for it in the migration shown"
                    + (context.defaults == nil
                        ? " (restore(default:) gives the default state's value where it holds one)"
                        : " (the default state holds none to take it from)")
            } else {
                value = ("json: <#a \(String(reflecting: missing.valueType)) as JSON#>", nil)
                source = "give it a value in the migration shown"
            }
            let why =
                missing.ownerIsDefaultsType
                ? "\(owner)() gives no value for it to fill it with"
                : "conform \(owner) to ArchiveDefaults so that it takes the value \(owner)() gives "
                    + "it, or add it: \(source)"
            let at = objectPath.isEmpty ? "" : ", in: \(literal(objectPath))"
            // A value that varies still serves as the stand-in that lets the search go on.
            let fix: Fix =
                (value.json ?? found?.value).map { .add(member: member, value: $0, object: objectPath) }
                ?? .addValue(of: missing.valueType, member: member, object: objectPath)
            return Finding(
                problem: .init(
                    path: path, kind: .missingMember,
                    detail: "\(owner) needs a value for \(literal(member)), which the archive lacks; \(why)",
                    migration:
                        "ArchiveMigration(from: \(version), adding: \(literal(member)), \(value.text)\(at))"),
                fix: fix,
                addition: Addition(
                    object: objectPath, member: member, valueType: ObjectIdentifier(missing.valueType),
                    codingPath: object, owner: missing.owner,
                    unread: missing.unread.map { name in
                        (name, context.archivedValue?(object, name).map { MigrationAdvice.abbreviated($0) })
                    }))
        }

        /// The advice for a member missing where the filling decode did not see it.
        func missing(_ key: any CodingKey, at codingPath: [any CodingKey]) -> Finding {
            let object = Array(codingPath.dropFirst(context.codingPathPrefix))
            let path = rendered(object + [key])
            let member = key.stringValue
            let objectPath = context.objectPath(for: object)
            let found = context.defaults?.value(at: object + [key], pairs: context.pairs)
            var text = "json: <#its value as JSON#>"
            var fix: Fix?
            if let found, !found.varies, let argument = MigrationAdvice.argument(for: found.value),
                let objectPath
            {
                text = argument
                fix = .add(member: member, value: found.value, object: objectPath)
            }
            let migration =
                objectPath.map {
                    "ArchiveMigration(from: \(version), adding: \(literal(member)), \(text)"
                        + "\($0.isEmpty ? "" : ", in: \(literal($0))"))"
                } ?? context.general
            return Finding(
                problem: .init(
                    path: path, kind: .missingMember,
                    detail: "the archive has no value for \(literal(member))", migration: migration),
                fix: fix)
        }

        /// The advice for a value the current type does not read: a changed type, an enum case it
        /// lacks, a number that does not fit.
        func value(
            at fullPath: [any CodingKey], kind: PersistenceError.MigrationProblem.Kind,
            type: (any Decodable.Type)?, explained: any Error
        ) -> Finding {
            let codingPath = Array(fullPath.dropFirst(context.codingPathPrefix))
            var detail = context.described(explained)
            var kind = kind
            if let name = Self.unknownCase(at: codingPath, explained: explained, in: context) {
                kind = .invalidValue
                detail =
                    "the archive holds the enum case \(literal(name)) here, which "
                    + "\(type.map { String(reflecting: $0) } ?? "the enum") does not have"
            }
            // An element of an array or a dictionary is converted through the member that holds it.
            var member = codingPath
            var levels = 0
            while let last = member.last, MemberPath.isPosition(last) || MemberPath.isDictionaryKey(last) {
                member.removeLast()
                levels += 1
            }
            guard let name = member.last, let objectPath = context.objectPath(for: Array(member.dropLast())),
                !name.stringValue.isEmpty
            else {
                return Finding(
                    problem: .init(
                        path: rendered(codingPath), kind: kind, detail: detail, migration: context.general),
                    fix: nil)
            }
            let element =
                levels == 0
                ? "" : "an element of \(literal(name.stringValue)), which the migration converts whole: "
            let old = levels == 0 ? "old" : "old, with the element,"
            return Finding(
                problem: .init(
                    path: rendered(codingPath), kind: kind, detail: element + detail,
                    migration: "ArchiveMigration(from: \(version), converting: \(literal(name.stringValue))"
                        + "\(objectPath.isEmpty ? "" : ", in: \(literal(objectPath))")) "
                        + "{ old in <#\(old) as the current type reads it#> }"),
                fix: .replace(
                    member: name.stringValue, levels: levels, type: type, object: objectPath, place: fullPath)
            )
        }

        /// The name of the case an enum with associated values was archived with, when the error
        /// is the one its synthesized `init(from:)` throws for a case it does not have: the
        /// archived value is an object of one member, which names the case.
        static func unknownCase(at codingPath: [any CodingKey], explained: any Error, in context: Context)
            -> String?
        {
            guard case DecodingError.typeMismatch(_, let decodingContext) = explained,
                decodingContext.debugDescription == "Invalid number of keys found, expected one.",
                let last = codingPath.last,
                case .object(let members)? = context.archivedValue?(
                    Array(codingPath.dropLast()),
                    MemberPath.isPosition(last) ? String(last.intValue ?? -1) : last.stringValue),
                members.count == 1
            else { return nil }
            return members.keys.first
        }

        /// The path, for the member migrations, of the object at `codingPath` (the state's own):
        /// `""` for the state, or `nil` when the path cannot be written.
        /// The argument for `ArchiveMigration(from:adding:…)` of a member of `type` in `owner`
        /// whose value the advice cannot know: a placeholder that shows a sample of the type, and
        /// the sample, or `nil` when there is none to show. The value the type declares is out of
        /// reach (a synthesized `init(from:)` never uses it), and a sample that compiles would give
        /// every object a value the app never declared: the line asks.
        static func askedSample(of type: any Decodable.Type, in owner: Any.Type) -> (
            text: String, json: JSONValue?
        )? {
            guard let sample = sample(of: type), let colon = sample.text.range(of: ": ") else { return nil }
            let label = sample.text[..<colon.lowerBound]
            let shown = sample.text[colon.upperBound...]
            return ("\(label): <#\(shown), or the value \(owner) declares#>", sample.json)
        }

        /// A sample value of `type` for `ArchiveMigration(from:adding:…)`, as its argument, or `nil`
        /// when there is none to give.
        static func sample(of type: any Decodable.Type) -> (text: String, json: JSONValue?)? {
            switch type {
            case is Bool.Type: return ("value: false", .bool(false))
            case is String.Type: return (#"value: """#, .string(""))
            case is any BinaryInteger.Type, is any BinaryFloatingPoint.Type: return ("value: 0", .number("0"))
            case let collection as any EmptyJSONSample.Type:
                // An empty array, set or dictionary, written as the type writes it.
                return collection.emptyJSON.flatMap { empty in
                    MigrationAdvice.argument(for: empty).map { ($0, empty) }
                }
            default: return nil
            }
        }
    }

    /// The argument of `ArchiveMigration(from:adding:…)` that adds `value`: `value:` with a Swift
    /// literal for a string, a boolean or a number Swift writes alike, `json:` otherwise.
    static func argument(for value: JSONValue) -> String? {
        switch value {
        case .string(let text): return "value: \(literal(text))"
        case .bool(let flag): return "value: \(flag)"
        case .number(let text):
            if Int(text) != nil { return "value: \(text)" }
            if let double = Double(text), double.isFinite, JSONValue.text(of: double) == text,
                text.contains(".")
            {
                return "value: \(text)"
            }
            return "json: \(literal(text))"
        case .null, .array, .object:
            return "json: \(rawLiteral(value.description))"
        }
    }

    /// `text` as a Swift string literal, raw (`#"…"#`) when it holds quotes or backslashes.
    static func rawLiteral(_ text: String) -> String {
        guard text.contains("\"") || text.contains("\\") else { return literal(text) }
        var hashes = "#"
        while text.contains("\"" + hashes) { hashes += "#" }
        return hashes + "\"" + text + "\"" + hashes
    }

    /// The kind for values of a fixture that the current types do not keep: `lost` are the changes
    /// from the archived state to the state encoded again, each with an old value, and `state` the
    /// value the types decoded, which tells a dictionary's keys from members (`[]`, not `.k137`);
    /// `migrated` when the fixture is of an earlier version, whose migrations ran first.
    static func notKept(_ lost: [StateChange], in state: Any, schemaVersion version: Int, migrated: Bool)
        -> PersistenceError.Kind
    {
        func described(_ change: StateChange) -> String {
            guard let new = change.newValue else { return "\(statePath(change.path)) is dropped" }
            return
                "\(statePath(change.path)) was \(abbreviated(change.oldValue)) and is now \(abbreviated(new))"
        }
        let listed = lost.prefix(5).map(described).joined(separator: "; ")
        let more = lost.count > 5 ? "; and \(lost.count - 5) more" : ""
        let detail =
            (migrated ? "after migrating to version \(version), " : "")
            + "the current types do not keep every value it holds: \(listed)\(more) (in a path for a "
            + "migration, write [] for every element of an array and every value of a dictionary, and "
            + "[values] or [keys] for the values or the keys of a dictionary archived as [key, value, …])"
        let general = "ArchiveMigration(from: \(version)) { state in <#change state to the new shape#> }"
        // An array's element, or a name a path cannot hold: only a general migration can say it.
        guard let (member, at) = migrationPlace(of: lost[0], in: state) else {
            return .needsMigration(path: statePath(lost[0].path), detail: detail, migration: general)
        }
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

    /// The changes the migrations from `version` must make when the archived state, after the
    /// migrations before them, reads as the current types as it is: `lost` are the values the types
    /// do not keep (see ``StateArchive/valuesNotKept(by:of:floatStrings:merged:)``), and `state`
    /// the value they decoded, which tells a dictionary's keys from members. Never empty.
    static func unseenChanges(_ lost: [StateChange], in state: Any, version: Int, migrated: Bool)
        -> [PersistenceError.MigrationProblem]
    {
        let general = "ArchiveMigration(from: \(version)) { state in <#change state to the new shape#> }"
        let after = migrated ? "after migrating to version \(version)" : "as archived"
        guard !lost.isEmpty else {
            return [
                .init(
                    path: "state", kind: .other,
                    detail: "\(after), the archived state reads as the current types, which keep every "
                        + "value it holds, so the archive shows no change; write what version "
                        + "\(version + 1) changes in what the values mean"
                        // A schemaVersion below 1 is no version an app may write.
                        + (version >= 1
                            ? ", or set schemaVersion to \(version) if it changes nothing in the archive"
                            : ""),
                    migration: general)
            ]
        }
        var written: Set<String> = []
        var problems: [PersistenceError.MigrationProblem] = []
        for change in lost {
            let path = statePath(change.path)
            guard let (member, at) = migrationPlace(of: change, in: state) else {
                if written.insert(general).inserted {
                    problems.append(
                        .init(
                            path: path, kind: .other,
                            detail: "\(after), the current types do not keep \(path), which only a "
                                + "migration with a body can change (\(abbreviated(change.oldValue)))",
                            migration: general))
                }
                continue
            }
            if change.newValue == nil {
                let migration = "ArchiveMigration(from: \(version), removing: \(literal(member))\(at))"
                guard written.insert(migration).inserted else { continue }
                problems.append(
                    .init(
                        path: path, kind: .removedMember,
                        detail: "\(after), the archive holds \(literal(member)) there "
                            + "(\(abbreviated(change.oldValue))), which the current types do not read, so a "
                            + "load would drop it; if it was renamed rather than removed, migrate with "
                            + "ArchiveMigration(from: \(version), renaming: \(literal(member)), "
                            + "to: <#its new name#>\(at)) instead",
                        migration: migration))
            } else {
                let migration =
                    "ArchiveMigration(from: \(version), converting: \(literal(member))\(at)) "
                    + "{ old in <#old as the current type reads it#> }"
                guard written.insert(migration).inserted else { continue }
                problems.append(
                    .init(
                        path: path, kind: .changedType,
                        detail: "\(after), the archive holds \(abbreviated(change.oldValue)) there, which "
                            + "the current types read as \(abbreviated(change.newValue))",
                        migration: migration))
            }
        }
        return problems
    }

    /// The member `change` is at and the `, in: "…"` argument of a member migration that reaches
    /// it, with `[]` for every array element and every dictionary value on the way; `nil` where only
    /// a general migration can say it. `state` is the decoded value: where it cannot be followed
    /// (an enum's payload, a type with coding keys of its own), a number is taken for an array
    /// position and any other key for a member.
    private static func migrationPlace(of change: StateChange, in state: Any) -> (member: String, at: String)?
    {
        var components = change.pathComponents
        guard let member = components.popLast(), !member.isEmpty, !member.allSatisfy(\.isNumber),
            !components.contains(where: \.isEmpty)
        else { return nil }
        var value: Any? = state
        var path = ""
        for (position, component) in components.enumerated() {
            var element = false
            if let current = value {
                (element, value) = step(into: current, at: component)
            } else {
                element = component.allSatisfy(\.isNumber)
            }
            if change.pairKeys.contains(position) {
                // The value under a key of a dictionary archived as [key, value, …].
                path += "[values]"
            } else {
                path += element ? "[]" : (path.isEmpty ? "" : ".") + MemberPath.escaped(component)
            }
        }
        // A dictionary's value, changed whole, is no member.
        if change.pairKeys.contains(components.count)
            || value.map({ step(into: $0, at: member).element }) == true
        {
            return nil
        }
        return (member, path.isEmpty ? "" : ", in: \(literal(path))")
    }

    /// Whether `key` names an element of `value` (an array's position or a dictionary's key) rather
    /// than a member, and the value there; `nil` when `value` cannot be followed, with a number
    /// taken for a position.
    private static func step(into value: Any, at key: String) -> (element: Bool, value: Any?) {
        var mirror = Mirror(reflecting: value)
        while mirror.displayStyle == .optional, let wrapped = mirror.children.first?.value {
            mirror = Mirror(reflecting: wrapped)
        }
        switch mirror.displayStyle {
        case .collection?, .set?:
            let index = Int(key)
            let child = index.flatMap { mirror.children.dropFirst($0).first?.value }
            return (true, mirror.displayStyle == .collection ? child : nil)
        case .dictionary?:
            var any: Any?
            for entry in mirror.children {
                let pair = Array(Mirror(reflecting: entry.value).children)
                guard pair.count == 2 else { continue }
                if String(describing: pair[0].value) == key { return (true, pair[1].value) }
                any = any ?? pair[1].value
            }
            // A key written as JSON text (a struct's): any value shows the values' type.
            return (true, key.hasPrefix("{") || key.hasPrefix("[") ? any : nil)
        case .struct?, .class?:
            var current: Mirror? = mirror
            while let type = current {
                if let child = type.children.first(where: { $0.label == key || $0.label == "_" + key }) {
                    return (false, child.value)
                }
                current = type.superclassMirror
            }
            return (false, nil)
        default:
            return (key.allSatisfy(\.isNumber), nil)
        }
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

    /// A path of a ``StateChange`` as the errors write coding paths: `state.todos[2].due`.
    private static func statePath(_ path: String) -> String {
        StatePath.components(of: path).reduce("state") { rendered, component in
            !component.isEmpty && component.utf8.allSatisfy({ (48...57).contains($0) })
                ? rendered + "[\(component)]" : rendered + "." + StatePath.escape(component)
        }
    }

    static func abbreviated(_ value: JSONValue?) -> String {
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
}

/// A collection whose empty value is a sample for a member a migration adds.
protocol EmptyJSONSample {
    /// The JSON of an empty value, or `nil` when it cannot tell how the type writes it.
    static var emptyJSON: JSONValue? { get }
}

extension Array: EmptyJSONSample {
    static var emptyJSON: JSONValue? { .array([]) }
}

extension Set: EmptyJSONSample {
    static var emptyJSON: JSONValue? { .array([]) }
}

extension Dictionary: EmptyJSONSample {
    /// An object for `String` and `Int` keys, as `JSONEncoder` writes them; other keys depend on
    /// the key type.
    static var emptyJSON: JSONValue? { Key.self == String.self || Key.self == Int.self ? .object([:]) : nil }
}

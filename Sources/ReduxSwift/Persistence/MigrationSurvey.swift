import Foundation

/// Finds every change an archived state needs before the current types can read it, in one load.
///
/// A decode stops at the first thing it cannot read. The survey takes what ``MigrationAdvice``
/// makes of it, changes the archived state the way the advised migration would (or, where that
/// migration needs a value only the app knows, with a stand-in value of the right type), and
/// decodes again, until the state decodes, nothing more can be changed, or
/// ``roundLimit(forSize:)`` decodes have run. It runs only after a load has failed, on a copy of
/// the archived state, held as a ``JSONValue`` so that every value it does not change keeps its
/// text.
///
/// Only debug builds look past the first change: the search is for the developer, who pastes
/// what it finds, and it costs several decodes of the archive, which a release build of the app
/// must not pay at every launch while an archive it cannot read waits beside the app's saves.
struct MigrationSurvey {
    /// The most decodes one survey runs of an archived state of `size` bytes: 32, or more for a
    /// small state, as many as decode 16 MiB in all, up to 1,024.
    static func roundLimit(forSize size: Int) -> Int {
        max(32, min(1_024, (16 << 20) / max(size, 1)))
    }

    /// Whether the survey looks past the first change: in debug builds. A task-local value, so
    /// that a test can load as a release build does.
    @TaskLocal static var looksPastTheFirstChange: Bool = {
        #if DEBUG
        true
        #else
        false
        #endif
    }()

    let context: MigrationAdvice.Context
    /// Decodes the state from its JSON as the load does, filling defaults; throws what the load's
    /// decode throws.
    let decode: (Data) throws -> Void
    /// Decodes values of the state's types with the load's strategies, for stand-ins.
    let decoder: JSONDecoder
    /// Decodes the state from its JSON as `decode` does, noting the members its types read at each
    /// place, to find the members of every object that they do not read (not only of the objects a
    /// decode failed on); with the JSON of the value decoded, encoded again, whose members the
    /// types' own encoding writes (a member for other readers of the file) and are not old names.
    var census: ((Data) -> (MemberCensus, JSONValue?))?

    /// The changes `state` (the archived state, after the registered migrations) needs, in the
    /// order they were found; empty when it decodes as it is.
    func problems(in state: JSONValue) -> [PersistenceError.MigrationProblem] {
        var state = state
        var findings: [MigrationAdvice.Finding] = []
        var seen: Set<String> = []
        var ending: String?
        // The dictionaries archived as keys and values that the decodes met, for the paths of
        // the renames written again at the end.
        var pairs = context.pairs
        var roundLimit = 1
        rounds: for round in 0... {
            let json = state
            let data = json.data
            // The archived state's size, from the first round's JSON: no second encoding of it.
            if round == 0, Self.looksPastTheFirstChange { roundLimit = Self.roundLimit(forSize: data.count) }
            let error: any Error
            do {
                try decode(data)
                break
            } catch let thrown {
                error = thrown
            }
            if round == roundLimit {
                ending = "The search for more stopped after \(roundLimit) rounds: more may follow."
                break
            }
            let explained = UnfitNumber.explain(DefaultFilling.unwrapped(error), in: data, under: []) {
                do {
                    try decode($0)
                } catch {
                    throw DefaultFilling.unwrapped(error)
                }
            }
            var context = self.context
            context.pairs = pairs
            context.notePairs(of: error)
            pairs = context.pairs
            context.archivedValue = { object, member in json.value(at: object)?.child(member) }
            let new = MigrationAdvice.findings(for: error, explained: explained, in: context).filter {
                seen.insert("\($0.problem.path) \($0.problem.migration)").inserted
            }
            if new.isEmpty {
                ending = "The search for more stopped here: the state still fails to decode after it."
                break
            }
            findings += new
            guard Self.looksPastTheFirstChange else {
                ending =
                    "A release build names only the changes its first decode finds: a load or restore "
                    + "in a debug build names every change the archive needs."
                break
            }
            for finding in new {
                guard let fix = finding.fix, apply(fix, to: &state, pairs: pairs) else {
                    ending =
                        "The search for more stopped here: it cannot look past this change without the "
                        + "app's code, so more may follow once it is made."
                    break rounds
                }
            }
        }
        var settling = context
        settling.pairs = pairs
        // Only a search that reached a state the types read knows every member they lack: before
        // it, a member no line takes may be one a later change renames.
        var unread: [String: [(name: String, value: String?)]]?
        if ending == nil, !findings.isEmpty {
            unread =
                census.map {
                    let (census, written) = $0(state.data)
                    return Self.unreadMembers(in: state, census: census, written: written, pairs: pairs)
                } ?? [:]
        }
        var problems = Self.settlingRenames(findings, in: settling, unread: unread)
        if let ending, !problems.isEmpty {
            let last = problems.removeLast()
            problems.append(
                .init(
                    path: last.path, kind: last.kind,
                    detail: "\(PersistenceError.endingSentence(last.detail)) \(ending)",
                    migration: last.migration))
        }
        guard context.migrated else { return problems }
        return problems.map {
            .init(
                path: $0.path, kind: $0.kind,
                detail: "after migrating to version \(context.version): \($0.detail)",
                migration: $0.migration)
        }
    }

    /// The problems of `findings`, each rename written again knowing every other member its
    /// object lacks and every old name that any of them could have had.
    ///
    /// With `unread` (the members no type reads, by object path, of a search that reached the
    /// end), each object is followed by the lines that ask about its members no line takes.
    static func settlingRenames(
        _ findings: [MigrationAdvice.Finding], in context: MigrationAdvice.Context,
        unread: [String: [(name: String, value: String?)]]? = nil
    ) -> [PersistenceError.MigrationProblem] {
        struct Place: Hashable {
            let object: String
            let valueType: ObjectIdentifier
        }
        var candidates: [Place: Set<String>] = [:]
        var lacking: [Place: [String]] = [:]
        var values: [Place: [String: String]] = [:]
        for finding in findings {
            if let rename = finding.rename {
                let place = Place(object: rename.object, valueType: ObjectIdentifier(rename.group.valueType))
                candidates[place, default: []].formUnion(rename.candidates)
                if !(lacking[place]?.contains(rename.group.member) ?? false) {
                    lacking[place, default: []].append(rename.group.member)
                }
                values[place, default: [:]].merge(rename.values) { first, _ in first }
            } else if let addition = finding.addition {
                let place = Place(object: addition.object, valueType: addition.valueType)
                if !(lacking[place]?.contains(addition.member) ?? false) {
                    lacking[place, default: []].append(addition.member)
                }
            }
        }
        let problems = findings.map { finding in
            if let original = finding.rename {
                let place = Place(
                    object: original.object, valueType: ObjectIdentifier(original.group.valueType))
                var rename = original
                // An old name that could also be that of a member of another type in the same object
                // (`2` reads as an `Int` and as a `Double`) is a candidate of both: the search may
                // have taken it for the other one to look further.
                var names = candidates[place] ?? []
                for (other, otherNames) in candidates
                where other.object == place.object && other != place && !otherNames.isDisjoint(with: names) {
                    names.formUnion(otherNames)
                }
                rename.candidates = names.sorted()
                rename.values = values[place] ?? rename.values
                for (other, otherValues) in values where other.object == place.object && other != place {
                    rename.values.merge(otherValues.filter { names.contains($0.key) }) { first, _ in first }
                }
                let members = lacking[place] ?? [rename.group.member]
                return MigrationAdvice.problem(for: rename, in: context, alsoLacking: members)
            }
            if let addition = finding.addition {
                let place = Place(object: addition.object, valueType: addition.valueType)
                if let old = candidates[place], !old.isEmpty {
                    let names = old.sorted().map(MigrationAdvice.literal).joined(separator: " or ")
                    let problem = finding.problem
                    return .init(
                        path: problem.path, kind: problem.kind,
                        detail: problem.detail + "; or it was renamed from \(names), which a rename of this "
                            + "object may name: the archive cannot tell which member became which",
                        migration: problem.migration)
                }
            }
            return finding.problem
        }
        guard let unread else { return problems }
        return withLeftMembers(problems, findings, unread: unread, in: context)
    }

    /// The members of the objects of `root` that no type reads, by the object's path as the member
    /// migrations take it (`rows[]`, `byID[values]`), each with its first value abbreviated, as
    /// `census` saw the types read `root`.
    /// Members that `written`, the state encoded again, holds in an object of the same path are
    /// left out: the types write them.
    static func unreadMembers(
        in root: JSONValue, census: MemberCensus, written: JSONValue?, pairs: Set<String>
    ) -> [String: [(name: String, value: String?)]] {
        var found: [String: [(name: String, value: String?)]] = [:]
        var names: [String: Set<String>] = [:]
        var writes: [String: Set<String>] = [:]
        var collectsWrites = true
        // `place` is the place key of ``MemberPath/placeKey(_:pairs:)``; the object path is it
        // without its leading dot.
        func walk(_ value: JSONValue, at censusPlace: MemberCensus.Place?, place: String) {
            guard let censusPlace else { return }
            switch value {
            case .object(let members) where censusPlace.isDictionary:
                for key in members.keys.sorted() {
                    walk(members[key]!, at: censusPlace.each, place: place + "[]")
                }
            case .object(let members):
                guard censusPlace.isSeen else { return }
                let path = place.hasPrefix(".") ? String(place.dropFirst()) : place
                if collectsWrites { writes[path, default: []].formUnion(members.keys) }
                for name in members.keys.sorted() {
                    if collectsWrites || censusPlace.knows(name) {
                        walk(
                            members[name]!, at: censusPlace.members[name],
                            place: place + "." + MemberPath.escaped(name))
                    } else if !(writes[path]?.contains(name) ?? false),
                        names[path, default: []].insert(name).inserted
                    {
                        found[path, default: []].append((name, MigrationAdvice.abbreviated(members[name])))
                    }
                }
            case .array(let elements):
                let isPairs = pairs.contains(place)
                for (index, element) in elements.enumerated() {
                    let step = isPairs ? (index.isMultiple(of: 2) ? "[keys]" : "[values]") : "[]"
                    walk(element, at: censusPlace.each, place: place + step)
                }
            default:
                break
            }
        }
        if let written { walk(written, at: census.root, place: "") }
        collectsWrites = false
        walk(root, at: census.root, place: "")
        return found
    }

    /// `problems`, each object's followed by a line that asks about each member its type does not
    /// read that no rename line asks about alone: a member that is the only name one rename line
    /// offers, and that no other line offers, is asked about by that line (`<#"note", or delete
    /// this line#>`); any other is dropped by a pasted block unless a line takes it, so the advice
    /// asks whether to remove it, or to rename and convert it where a member changed its name and
    /// its type, rather than let the block drop it unasked.
    private static func withLeftMembers(
        _ problems: [PersistenceError.MigrationProblem], _ findings: [MigrationAdvice.Finding],
        unread: [String: [(name: String, value: String?)]], in context: MigrationAdvice.Context
    ) -> [PersistenceError.MigrationProblem] {
        struct Object {
            var last = 0
            var codingPath: [any CodingKey] = []
            var owner: Any.Type = Any.self
            var unread: [String: String?] = [:]
            /// Each member a rename line names, with the names it offers.
            var renames: [String: Set<String>] = [:]
            var added: [String] = []

            mutating func note(_ names: [(name: String, value: String?)]) {
                for (name, value) in names where unread[name] ?? nil == nil { unread[name] = value }
            }
        }
        var objects: [String: Object] = [:]
        for (index, finding) in findings.enumerated() {
            if let rename = finding.rename {
                var object = objects[rename.object] ?? Object()
                object.last = index
                object.codingPath = rename.codingPath
                object.owner = rename.owner
                object.note(rename.candidates.map { ($0, rename.values[$0]) } + rename.unread)
                object.renames[rename.group.member, default: []].formUnion(rename.candidates)
                objects[rename.object] = object
            } else if let addition = finding.addition {
                var object = objects[addition.object] ?? Object()
                object.last = index
                object.codingPath = addition.codingPath
                object.owner = addition.owner
                object.note(addition.unread)
                object.added.append(addition.member)
                objects[addition.object] = object
            }
        }
        for (path, found) in unread where objects[path] != nil { objects[path]?.note(found) }
        var after: [Int: [PersistenceError.MigrationProblem]] = [:]
        for (path, object) in objects {
            let offering = { (name: String) in object.renames.values.filter { $0.contains(name) } }
            let asked = object.unread.keys.sorted().filter { name in
                let lines = offering(name)
                return !(lines.count == 1 && lines[0] == [name])
            }
            guard !asked.isEmpty else { continue }
            let owner = String(reflecting: object.owner)
            let at = path.isEmpty ? "" : ", in: \(MigrationAdvice.literal(path))"
            let lacking = (object.renames.keys.sorted() + object.added).map(MigrationAdvice.literal)
            let member = lacking.count == 1 ? lacking[0] : "<#\(lacking.joined(separator: " or "))#>"
            for name in asked {
                let held =
                    MigrationAdvice.literal(name) + ((object.unread[name] ?? nil).map { " (\($0))" } ?? "")
                let detail =
                    "\(owner) does not read \(held) there, and no line of this object takes it for certain, "
                    + "so a pasted block drops it unless a line takes it: delete this line where a line "
                    + "renames it; where a member it lacks (\(lacking.joined(separator: ", "))) is "
                    + "\(MigrationAdvice.literal(name)) under another name, rename it in place of that "
                    + "member's line (ArchiveMigration(from: \(context.version), renaming: "
                    + "\(MigrationAdvice.literal(name)), to: \(member)\(at))), and convert it where its type "
                    + "changed too (ArchiveMigration(from: \(context.version), converting: \(member)\(at)) "
                    + "{ old in <#old as the current type reads it#> }), and delete this line; where it was "
                    + "dropped, keep this line"
                after[object.last, default: []].append(
                    .init(
                        path: MigrationAdvice.rendered(object.codingPath + [AnyMemberKey(stringValue: name)]),
                        kind: .removedMember, detail: detail,
                        migration: "ArchiveMigration(from: \(context.version), removing: "
                            + "<#\(MigrationAdvice.literal(name)), or delete this line#>\(at))"))
            }
        }
        guard !after.isEmpty else { return problems }
        var result: [PersistenceError.MigrationProblem] = []
        for (index, problem) in problems.enumerated() {
            result.append(problem)
            result += after[index] ?? []
        }
        return result
    }

    /// Changes `state` as `fix` says, as the member migration of the same name changes a state;
    /// `false` when it cannot, for want of a stand-in value.
    /// `pairs`: the places of the dictionaries archived as keys and values that the decodes met.
    private func apply(_ fix: MigrationAdvice.Fix, to state: inout JSONValue, pairs: Set<String>) -> Bool {
        switch fix {
        case .nothing:
            return true
        case .rename(let old, let new, let object):
            guard let steps = MemberPath.steps(of: object) else { return false }
            state.forEachObject(at: steps[...]) { members in
                if let value = members.removeValue(forKey: old) { members[new] = value }
            }
        case .add(let member, let value, let object):
            guard let steps = MemberPath.steps(of: object) else { return false }
            state.forEachObject(at: steps[...]) { members in
                if members[member] == nil { members[member] = value }
            }
        case .addValue(let type, let member, let object):
            guard let steps = MemberPath.steps(of: object),
                let value = StandIn(decoder: decoder).value(of: type, hints: [])
            else { return false }
            state.forEachObject(at: steps[...]) { members in
                if members[member] == nil { members[member] = value }
            }
        case .replace(let member, let levels, let type, let object, let place):
            guard let steps = MemberPath.steps(of: object) else { return false }
            let value: JSONValue
            if let type {
                // Values the archive holds in the same places, and the default state's, may be
                // values of the type where no value can be made up (an enum's case).
                var hints: [JSONValue] = []
                if let found = context.defaults?.value(at: place, pairs: context.pairs), !found.varies {
                    hints.append(found.value)
                }
                hints += Self.values(of: member, levels: levels, at: steps, in: state)
                guard let standIn = StandIn(decoder: decoder).value(of: type, hints: hints) else {
                    return false
                }
                value = standIn
            } else {
                // A number that does not fit: 0 fits every number type.
                value = .number("0")
            }
            // Only the elements the type does not read are replaced, and in a dictionary archived
            // as keys and values, only on the failing element's side of each pair: a key the type
            // of the values does not read (a UUID, a struct) is not what failed, nor are its
            // members, whatever they hold.
            let sides = Self.pairSides(below: member, at: place, pairs: pairs, levels: levels)
            let decoder = decoder
            func needsReplacing(_ element: JSONValue) -> Bool {
                guard let type else { return true }
                func reads<T: Decodable>(_: T.Type) -> Bool {
                    (try? DefaultFilling.decode(T.self, from: element.data, like: decoder)) != nil
                }
                return !reads(type)
            }
            func replaced(_ element: JSONValue, depth: Int) -> JSONValue {
                guard depth < levels else { return needsReplacing(element) ? value : element }
                switch element {
                case .array(let elements):
                    let side = sides[depth + 1]
                    return .array(
                        elements.enumerated().map { index, element in
                            side.map { index % 2 != $0 } ?? false
                                ? element : replaced(element, depth: depth + 1)
                        })
                case .object(let members):
                    return .object(members.mapValues { replaced($0, depth: depth + 1) })
                default:
                    return element
                }
            }
            state.forEachObject(at: steps[...]) { members in
                guard let old = members[member] else { return }
                members[member] = replaced(old, depth: 0)
            }
        }
        return true
    }

    /// For each level below `member` (1 for its own elements) whose array the failure at `place`
    /// is in and that is a dictionary archived as keys and values (one of `pairs`), the side of
    /// its pairs the failure is on: 0 for keys, 1 for values.
    private static func pairSides(
        below member: String, at place: [any CodingKey], pairs: Set<String>, levels: Int
    ) -> [Int: Int] {
        guard levels > 0 else { return [:] }
        var index = place.count - 1
        while index >= 0, MemberPath.isPosition(place[index]) || MemberPath.isDictionaryKey(place[index]) {
            index -= 1
        }
        guard index >= 0, place[index].stringValue == member else { return [:] }
        var sides: [Int: Int] = [:]
        for level in 1...levels where index + level < place.count {
            let key = place[index + level]
            guard MemberPath.isPosition(key), let position = key.intValue,
                pairs.contains(MemberPath.placeKey(place[...(index + level - 1)], pairs: pairs))
            else { continue }
            sides[level] = position % 2
        }
        return sides
    }

    /// Up to 16 different values of `member` in the objects at `steps` (each of its elements,
    /// `levels` down).
    private static func values(
        of member: String, levels: Int, at steps: [MemberPath.Step], in state: JSONValue
    ) -> [JSONValue] {
        var found: [JSONValue] = []
        func collect(_ value: JSONValue, levels: Int) {
            guard found.count < 16 else { return }
            switch (levels, value) {
            case (0, _):
                if !found.contains(value) { found.append(value) }
            case (_, .array(let elements)):
                for element in elements { collect(element, levels: levels - 1) }
            case (_, .object(let members)):
                for key in members.keys.sorted() { collect(members[key]!, levels: levels - 1) }
            default:
                break
            }
        }
        var copy = state
        copy.forEachObject(at: steps[...]) { members in
            if let value = members[member] { collect(value, levels: levels) }
        }
        return found
    }
}

/// The JSON of a state's default value, which tells the value of a member the state declares with
/// a default, at every place the default state has: the state itself, its nested values, and the
/// elements of its arrays and dictionaries where it has some.
struct DefaultStateValues {
    /// The default state's JSON, and that of a second one made the same way, to tell values that
    /// differ each time (a `UUID()`, a `Date()`) from declared defaults.
    let first: JSONValue
    let second: JSONValue?

    /// The values of the states `make` returns, or `nil` when it returns none or they cannot be
    /// encoded.
    init?<State: Encodable>(_ make: () -> State?) {
        let encoder = SnapshotCoder.makeJSONEncoder()
        func json() -> JSONValue? {
            make().flatMap { try? encoder.encode($0) }.flatMap { try? JSONValue(parsing: $0) }
        }
        guard let first = json() else { return nil }
        self.first = first
        second = json()
    }

    /// The default value at `codingPath` (the state's own): in an array, the element at the same
    /// position or else the first; in a dictionary, the value of the same key or else of the first
    /// key; in a dictionary archived as keys and values (at a place of `pairs`, as
    /// ``MigrationAdvice/Context/pairs`` holds them), whose order follows a hash seeded anew in
    /// each process, the value its every key (or value) has there, and none where they differ.
    /// `varies` when a second default state has another value there.
    func value(at codingPath: [any CodingKey], pairs: Set<String> = []) -> (value: JSONValue, varies: Bool)? {
        let found = Self.values(in: first, at: codingPath[...], walked: [], pairs: pairs)
        guard let value = found.first, found.allSatisfy({ $0 == value }) else { return nil }
        let other = second.map { Self.values(in: $0, at: codingPath[...], walked: [], pairs: pairs) } ?? []
        return (value, other.isEmpty || other.contains { $0 != value })
    }

    private static func values(
        in root: JSONValue, at codingPath: ArraySlice<any CodingKey>, walked: [any CodingKey],
        pairs: Set<String>
    ) -> [JSONValue] {
        guard let key = codingPath.first else { return [root] }
        let rest = codingPath.dropFirst()
        let next = walked + [key]
        switch root {
        case .array(let elements) where MemberPath.isPosition(key):
            let index = key.intValue ?? 0
            if !pairs.isEmpty, pairs.contains(MemberPath.placeKey(walked, pairs: pairs)) {
                return elements.indices.filter { $0 % 2 == index % 2 }.flatMap {
                    values(in: elements[$0], at: rest, walked: next, pairs: pairs)
                }
            }
            guard let element = elements.indices.contains(index) ? elements[index] : elements.first else {
                return []
            }
            return values(in: element, at: rest, walked: next, pairs: pairs)
        case .object(let members) where MemberPath.isDictionaryKey(key):
            guard let member = members[key.stringValue] ?? members.keys.min().flatMap({ members[$0] }) else {
                return []
            }
            return values(in: member, at: rest, walked: next, pairs: pairs)
        case .object(let members):
            guard let member = members[key.stringValue] else { return [] }
            return values(in: member, at: rest, walked: next, pairs: pairs)
        default:
            return []
        }
    }
}

/// Makes up a value of a type, to look past a change whose migration needs one the app knows.
struct StandIn {
    let decoder: JSONDecoder

    /// The most levels of members a made-up value fills in.
    private static let depthLimit = 4

    /// JSON that decodes as `type`: the first of `hints` that does, the value of `init()` of an
    /// ``ArchiveDefaults`` type, the first case of a `CaseIterable` one, or the simplest JSON of
    /// each kind with missing members filled in the same way; `nil` when none does.
    func value(of type: any Decodable.Type, hints: [JSONValue], depth: Int = 0) -> JSONValue? {
        var candidates = hints
        if let made = Self.made(type) { candidates.append(made) }
        // A UUID's string too: "" reads as no UUID.
        candidates += [
            .object([:]), .array([]), .string(""), .number("0"), .bool(false),
            .string("00000000-0000-0000-0000-000000000000"),
        ]
        for candidate in candidates {
            if let value = completed(candidate, as: type, depth: depth) { return value }
        }
        return nil
    }

    /// `candidate`, with the members `type` misses in it added, when it then decodes as `type`.
    private func completed(_ candidate: JSONValue, as type: any Decodable.Type, depth: Int) -> JSONValue? {
        func decodes<T: Decodable>(_: T.Type, _ json: JSONValue) throws {
            _ = try DefaultFilling.decode(T.self, from: json.data, like: decoder)
        }
        var json = candidate
        for _ in 0..<16 {
            do {
                try decodes(type, json)
                return json
            } catch {
                guard depth < Self.depthLimit, let failure = error as? DefaultFilling.Failure,
                    let missing = failure.missing,
                    case DecodingError.keyNotFound(let key, let context) = failure.underlying,
                    key.stringValue == missing.member,
                    let member = value(of: missing.valueType, hints: [], depth: depth + 1),
                    let filled = json.setting(member, at: context.codingPath + [key])
                else { return nil }
                json = filled
            }
        }
        return nil
    }

    /// The JSON of a value of `type` that the type itself makes, if it makes one.
    private static func made(_ type: any Decodable.Type) -> JSONValue? {
        func encode(_ value: any Encodable) -> JSONValue? {
            (try? SnapshotCoder.makeJSONEncoder().encode(value)).flatMap { try? JSONValue(parsing: $0) }
        }
        if let defaults = type as? any ArchiveDefaults.Type {
            return encode(defaults.init())
        }
        if let cases = type as? any (CaseIterable & Encodable).Type {
            func first<C: CaseIterable & Encodable>(_: C.Type) -> (any Encodable)? { C.allCases.first }
            return first(cases).flatMap(encode)
        }
        return nil
    }
}

extension JSONValue {
    /// The value at `codingPath`: object members by name, array elements by position.
    func value(at codingPath: [any CodingKey]) -> JSONValue? {
        var value = self
        for key in codingPath {
            if MemberPath.isPosition(key), case .array = value {
                guard let element = value.child(String(key.intValue ?? -1)) else { return nil }
                value = element
            } else {
                guard case .object(let members) = value, let member = members[key.stringValue] else {
                    return nil
                }
                value = member
            }
        }
        return value
    }

    /// This value with `value` at `codingPath`, whose last key names a member of an object that
    /// exists; `nil` when there is no such object.
    func setting(_ value: JSONValue, at codingPath: [any CodingKey]) -> JSONValue? {
        guard let key = codingPath.first else { return value }
        let rest = Array(codingPath.dropFirst())
        switch self {
        case .array(var elements) where MemberPath.isPosition(key):
            let index = key.intValue ?? -1
            guard elements.indices.contains(index), let changed = elements[index].setting(value, at: rest)
            else {
                return nil
            }
            elements[index] = changed
            return .array(elements)
        case .object(var members):
            if rest.isEmpty {
                members[key.stringValue] = value
            } else {
                guard let changed = members[key.stringValue]?.setting(value, at: rest) else { return nil }
                members[key.stringValue] = changed
            }
            return .object(members)
        default:
            return nil
        }
    }
}

extension JSONValue {
    /// Runs `body` on the members of every object at `steps` below this value, as
    /// ``MemberPath/forEachObject(at:in:_:)`` does on a migration's state.
    mutating func forEachObject(
        at steps: ArraySlice<MemberPath.Step>, _ body: (inout [String: JSONValue]) -> Void
    ) {
        switch (steps.first, self) {
        case (nil, .object(var members)):
            // One reference to the storage, so that the change is made in place.
            self = .null
            body(&members)
            self = .object(members)
        case (.member(let name)?, .object(var members)):
            guard var child = members[name] else { return }
            self = .null
            members[name] = .null
            child.forEachObject(at: steps.dropFirst(), body)
            members[name] = child
            self = .object(members)
        case (let step?, .array(var elements)) where !step.isMember:
            self = .null
            for index in elements.indices where step.takes(index) {
                elements[index].forEachObject(at: steps.dropFirst(), body)
            }
            self = .array(elements)
        case (.each?, .object(var members)), (.values?, .object(var members)):
            self = .null
            for key in Array(members.keys) {
                guard var child = members[key] else { continue }
                members[key] = .null
                child.forEachObject(at: steps.dropFirst(), body)
                members[key] = child
            }
            self = .object(members)
        default:
            break
        }
    }
}

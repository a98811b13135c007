import Foundation

/// Decodes an archived state as `JSONDecoder` does, except that a member missing from an object
/// of an ``ArchiveDefaults`` type is taken from that type's `init()`.
///
/// It wraps the `Decoder` of a `JSONDecoder` decode: every value of a type `JSONDecoder` decodes
/// itself (numbers, strings, `Date`, `Data`, `URL`, `Decimal`) is decoded by it, with its
/// strategies; every other value gets a wrapped decoder for its own place, so the filling reaches
/// any depth. A load fills with it only after `JSONDecoder` alone reported a missing key.
///
/// Both ways of decoding look for renames: a member the type lacks (filled, or an optional read as
/// `nil`) while the archived object holds one the type neither knows nor reads, whose value reads
/// as the lacking member's type, is what a rename looks like, and loading would lose the old value.
enum DefaultFilling {
    /// The `userInfo` key under which the decode's ``FillSession`` travels.
    static let sessionKey = CodingUserInfoKey(rawValue: "ReduxSwift.DefaultFilling.session")!

    /// How a decode treats what the archive lacks.
    enum Mode {
        /// Members that ``ArchiveDefaults`` types lack take their defaults, and every object is
        /// looked at for renames.
        case filling
        /// Nothing is filled: the value is what `JSONDecoder` decodes, or its error. A sample of the
        /// objects is looked at for a member renamed to an optional (see ``Sample``); the rest is
        /// decoded by `JSONDecoder` alone, so that a load costs about what `JSONDecoder` costs.
        case checking
    }

    /// Which objects a ``Mode/checking`` decode looks at: those of the first few levels, and of
    /// each array and dictionary the first elements and a few spread over the rest, up to a total.
    ///
    /// An array is looked at in pairs of elements: a dictionary whose keys are neither strings nor
    /// integers is archived as an array of keys and values, and each pair of it holds a value.
    enum Sample {
        /// Values looked at first in each dictionary, and pairs of elements first and last in each
        /// array.
        static let first = 8
        /// Pairs of elements looked at further on in each array, evenly spread.
        static let spread = 8
        /// Objects looked at in all.
        static let objects = 2048
        /// The deepest level looked at, in coding-path components.
        static let depth = 48

        /// Whether element `index` of an array of `count` is looked at: one of the first or last
        /// pairs, or of the `spread` pairs spread evenly over those between (all of them where there
        /// are no more).
        static func includes(_ index: Int, of count: Int) -> Bool {
            let pair = index / 2
            let pairs = (count + 1) / 2
            // The last pairs too: elements an app appends are the newest, and hold the newest members.
            if pair < first || pair >= pairs - first { return true }
            let (offset, between) = (pair - first, pairs - 2 * first)
            if between <= spread { return true }
            // The pairs at ⌊k × between / spread⌋ for k below `spread`: `offset` is one when the
            // smallest k that reaches it lands on it.
            let k = (offset * spread + between - 1) / between
            return k < spread && k * between / spread == offset
        }

        /// Whether the value for `key` of a dictionary of `count` values is looked at: about
        /// `first + spread` of them, chosen by their keys, so that every launch looks at the same
        /// ones (`JSONDecoder` hands a dictionary's values over in an order that changes from one
        /// process to the next); every value of a dictionary of no more.
        static func includes(key: String, of count: Int) -> Bool {
            let stride = count / (first + spread)
            guard stride > 1 else { return true }
            // FNV-1a, which every launch computes alike (`Hasher` is seeded per process).
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return hash % UInt64(stride) == 0
        }
    }

    /// Decodes `T` from `data` with `decoder`'s strategies, filling missing members in the
    /// ``Mode/filling`` mode.
    ///
    /// - Throws: ``Failure``, wrapping what `JSONDecoder` or the types threw, or
    ///   ``RenamedToOptional`` when the value decoded but an object holds a member renamed to an
    ///   optional.
    static func decode<T: Decodable>(
        _ type: T.Type, from data: Data, like decoder: JSONDecoder, mode: Mode = .filling
    ) throws -> T {
        try decode(type, from: data, like: decoder, session: FillSession(decoder: decoder, mode: mode))
    }

    /// Decodes `T` from `data` as ``decode(_:from:like:mode:)`` does, keeping its bookkeeping in
    /// `session`, whose mode it takes.
    static func decode<T: Decodable>(
        _ type: T.Type, from data: Data, like decoder: JSONDecoder, session: FillSession
    ) throws -> T {
        let filling = JSONDecoder()
        filling.nonConformingFloatDecodingStrategy = decoder.nonConformingFloatDecodingStrategy
        filling.dateDecodingStrategy = decoder.dateDecodingStrategy
        filling.dataDecodingStrategy = decoder.dataDecodingStrategy
        filling.keyDecodingStrategy = decoder.keyDecodingStrategy
        filling.userInfo = decoder.userInfo
        filling.userInfo[sessionKey] = session
        session.archive = data
        let value: T
        do {
            value = try filling.decode(Root<T>.self, from: data).value
        } catch {
            throw Failure(
                underlying: error, missing: session.lastMissing, failed: session.lastFailed,
                renamedToOptionals: session.renamedToOptionals, lacking: session.lastLacking,
                pairs: Array(session.pairs.values))
        }
        guard session.renamedToOptionals.isEmpty else {
            throw Failure(
                underlying: RenamedToOptional(), missing: nil, failed: nil,
                renamedToOptionals: session.renamedToOptionals, lacking: nil,
                pairs: Array(session.pairs.values))
        }
        return value
    }

    /// Thrown for a value that decoded while an object holds a member renamed to an optional; the
    /// ``Failure`` that wraps it lists them.
    struct RenamedToOptional: Error, CustomStringConvertible {
        var description: String { "a member was renamed to an optional, which would load as nil" }
    }

    /// The context of a `DecodingError`, or `nil` for another error.
    static func context(of error: any Error) -> DecodingError.Context? {
        switch error {
        case DecodingError.keyNotFound(_, let context), DecodingError.typeMismatch(_, let context),
            DecodingError.valueNotFound(_, let context), DecodingError.dataCorrupted(let context):
            return context
        default:
            return nil
        }
    }

    /// The error a filling decode wraps in ``Failure``, or `error` itself.
    static func unwrapped(_ error: any Error) -> any Error {
        (error as? Failure)?.underlying ?? error
    }

    /// Why a decode failed, with what it knows of the cause.
    struct Failure: Error {
        /// What `JSONDecoder`, the state's own code or the filling threw.
        let underlying: any Error
        /// The last member that was missing with no default; the cause when `underlying` is its
        /// `keyNotFound`.
        let missing: MissingMember?
        /// The last value that failed to decode, with its type: the cause when its place is the
        /// place `underlying` names.
        let failed: FailedValue?
        /// The objects found holding a member renamed to an optional before the decode ended,
        /// each place once.
        let renamedToOptionals: [UnreadMembers]
        /// In a checking decode, the last object whose own type's `init(from:)` threw
        /// `keyNotFound` for it: the cause when `underlying` is that error, at that place.
        let lacking: LackingObject?
        /// The coding paths of the dictionaries decoded that are archived as an array of keys and
        /// values, one of each place.
        var pairs: [[any CodingKey]] = []
    }

    /// An object that lacks a member its type reads, found by a checking decode: the type, and
    /// the coding path of the object. (`@unchecked Sendable` for the reason and with the invariant
    /// ``MissingMember`` gives.)
    struct LackingObject: @unchecked Sendable {
        let type: any Decodable.Type
        let codingPath: [any CodingKey]
    }

    /// A member an archive lacks, which the type that reads it has no default for.
    ///
    /// `@unchecked Sendable`, as ``FailedValue`` and ``RenameGroup`` are, because it names a
    /// `Decodable` metatype and travels in an error. The invariant that makes it safe: the load
    /// whose decode made it reads it on the same thread, and uses the type only as that decode did.
    struct MissingMember: @unchecked Sendable {
        let owner: Any.Type
        /// Whether `owner` is an ``ArchiveDefaults`` type, whose `init()` gave no value for it.
        let ownerIsDefaultsType: Bool
        let member: String
        let valueType: any Decodable.Type
        let codingPath: [any CodingKey]
        /// The members of the same object that may have been renamed, `member`'s own among them
        /// when it may have been: the object's members that the type lacks (this one, the ones
        /// filled and the optionals read as `nil` before it), each with the unread members whose
        /// values read as its type.
        let renames: [RenameGroup]
        /// The members of the same object that the type does not read, by name.
        let unread: [String]
    }

    /// A value that failed to decode: its type, and its place as ``place(_:)`` writes it.
    /// (`@unchecked Sendable` for the reason and with the invariant ``MissingMember`` gives.)
    struct FailedValue: @unchecked Sendable {
        let type: any Decodable.Type
        let place: [String]
    }

    /// A coding path's keys, with array positions told apart from names, to compare places.
    static func place(_ codingPath: [any CodingKey]) -> [String] {
        codingPath.map { MemberPath.isPosition($0) ? "[\($0.intValue ?? 0)]" : "." + $0.stringValue }
    }

    /// A member an object lacks, with the unread members of the object that may be its name
    /// before a rename. (`@unchecked Sendable` for the reason and with the invariant
    /// ``MissingMember`` gives.)
    struct RenameGroup: @unchecked Sendable {
        /// How the type read the member it lacks.
        enum Kind {
            /// Taken from the ``ArchiveDefaults`` type's `init()`.
            case filled
            /// An optional, read as `nil`.
            case optional
            /// Missing, with no default: the decode failed on it.
            case missing
        }

        let member: String
        /// The member's type; for an optional, the type it wraps.
        let valueType: any Decodable.Type
        let kind: Kind
        /// The unread members whose values read as `valueType`, by name.
        let candidates: [String]
        /// The groups of `lacking`, the members an object lacks, in the order the type read
        /// them; `reads` tells whether an unread member's value reads as a lacking member's type.
        static func groups(
            of lacking: [(name: String, valueType: any Decodable.Type, kind: Kind)], unread: [String],
            reads: (any Decodable.Type, String) -> Bool
        ) -> [RenameGroup] {
            guard !unread.isEmpty else { return [] }
            let candidates = lacking.map { member in unread.filter { reads(member.valueType, $0) } }
            return zip(lacking, candidates).compactMap { member, names in
                guard !names.isEmpty else { return nil }
                return RenameGroup(
                    member: member.name, valueType: member.valueType, kind: member.kind, candidates: names)
            }
        }
    }

    /// Thrown where a container has no view of its object's every member.
    struct NoRawView: Error {}

    /// Whether values of `type` hold no reference that two objects could share: a default of such
    /// a type decoded once may serve every object of a load.
    static func isPlainValue(_ type: Any.Type) -> Bool {
        isDecodedDirectly(type) || type == UUID.self
    }

    /// The top of a filling decode: hands the root to the session.
    struct Root<T: Decodable>: Decodable {
        let value: T

        init(from decoder: any Decoder) throws {
            guard let session = decoder.userInfo[DefaultFilling.sessionKey] as? FillSession else {
                preconditionFailure("DefaultFilling.Root decoded without its session")
            }
            value = try session.decode(T.self, from: decoder)
        }
    }

    /// Whether `JSONDecoder` decodes values of `type` itself, applying its strategies.
    static func isDecodedDirectly(_ type: Any.Type) -> Bool {
        type == Bool.self || type == String.self || type == Double.self || type == Float.self
            || type == Int.self || type == Int8.self || type == Int16.self || type == Int32.self
            || type == Int64.self || type == UInt.self || type == UInt8.self || type == UInt16.self
            || type == UInt32.self || type == UInt64.self || type == Date.self || type == Data.self
            || type == URL.self || type == Decimal.self || isWideInteger(type)
    }

    private static func isWideInteger(_ type: Any.Type) -> Bool {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            return type == Int128.self || type == UInt128.self
        }
        return false
    }

    /// An object lacks members (filled from the type's defaults, or optionals read as `nil`)
    /// while it holds members the type does not read whose values read as their types: a rename,
    /// or a removal beside an addition.
    struct UnreadMembers: Error, CustomStringConvertible {
        let codingPath: [any CodingKey]
        let owner: Any.Type
        let groups: [RenameGroup]
        /// Every member of the object that its type does not read, by name.
        let unread: [String]

        var description: String {
            let lacking = groups.map { "\"\($0.member)\"" }.joined(separator: ", ")
            let unread = Set(groups.flatMap(\.candidates)).sorted().map { "\"\($0)\"" }.joined(
                separator: ", ")
            return "\(String(reflecting: owner)) has no value for \(lacking) in the archive, which holds "
                + "\(unread) there, unread by it"
        }
    }
}

/// The bookkeeping of one filling or checking decode.
///
/// `@unchecked Sendable` because it travels in a `JSONDecoder`'s `userInfo`, which asks for
/// `Sendable` values. The invariant that makes it safe: a session is created for one call of
/// ``DefaultFilling/decode(_:from:like:mode:)`` and used only by that decode, on the thread
/// running it.
final class FillSession: @unchecked Sendable {
    let mode: DefaultFilling.Mode
    private let decoder: JSONDecoder
    /// Reads members of defaults values, with the archive decoder's strategies.
    private let probe: JSONDecoder
    /// Per defaults type: the JSON of its `init()`, when two calls give the same JSON, so that one
    /// serves every object of the load; `varying` when they differ (a `UUID()` or a `Date()` in a
    /// default), so that each object gets a value of its own.
    private var defaults: [ObjectIdentifier: Defaults] = [:]
    /// Member values of defaults that do not vary, for types with no references inside.
    private var values: [MemberKey: Any] = [:]
    /// The last member found missing with no default, for the error's explanation.
    var lastMissing: DefaultFilling.MissingMember?
    /// The last value that failed to decode, for the error's explanation.
    var lastFailed: DefaultFilling.FailedValue?
    /// The objects holding a member renamed to an optional, each place once.
    var renamedToOptionals: [DefaultFilling.UnreadMembers] = []
    private var renamedPlaces: Set<String> = []
    /// Per type: the members its own encoding was seen to write, which are never old names, and
    /// the members it was encoded to look for.
    private var written: [ObjectIdentifier: Set<String>] = [:]
    private var asked: [ObjectIdentifier: Set<String>] = [:]
    /// How many more objects a checking decode looks at.
    private var objectsLeft = DefaultFilling.Sample.objects
    /// Per key type: whether it is a dictionary's.
    private var dictionaryKeyTypes: [ObjectIdentifier: Bool] = [:]
    /// Per type decoded: whether it is a dictionary archived as an array of keys and values.
    private var pairTypes: [ObjectIdentifier: Bool] = [:]
    /// The places (``MemberPath/placeKey(_:pairs:)``) of the dictionaries decoded that are
    /// archived as an array of keys and values, with the coding path of one of them.
    private(set) var pairs: [String: [any CodingKey]] = [:]
    /// The keys of ``pairs``.
    private(set) var pairPlaces: Set<String> = []
    /// In a checking decode, the last object that lacked a member its own type reads.
    var lastLacking: DefaultFilling.LackingObject?
    /// The members of the root object, once it has decoded.
    private(set) var rootMembers: FilledMembers?
    /// Where a checking decode notes the members each place's types know, when it notes them.
    let census: MemberCensus?
    /// The JSON being decoded, read again only to look at the other elements of an array or
    /// dictionary (see ``someOtherElementHolds(_:at:)``).
    var archive: Data?
    private var archiveTree: JSONValue??
    /// ``archive`` parsed, the first time it is needed; `nil` when there is none or it is no JSON.
    private var tree: JSONValue? {
        if archiveTree == nil { archiveTree = archive.flatMap { try? JSONValue(parsing: $0) } }
        return archiveTree ?? nil
    }
    /// Per array or dictionary, by place: each different set of members its elements hold.
    private var elementKinds: [String: Set<Set<String>>] = [:]
    /// Per place, every array position and dictionary key standing for all: each different set
    /// of members its objects hold, with a value of each (see ``placeKinds(at:)``).
    private var kindsByPlace: [String: [Set<String>: [String: JSONValue]]] = [:]

    private enum Defaults {
        /// The JSON, and the scope its members are kept under.
        case same(JSONValue?, scope: String)
        case varying
    }

    private struct MemberKey: Hashable {
        let scope: String
        let member: String
        let valueType: ObjectIdentifier
    }

    init(decoder: JSONDecoder, mode: DefaultFilling.Mode, census: MemberCensus? = nil) {
        self.mode = mode
        self.decoder = decoder
        self.census = census
        probe = JSONDecoder()
        probe.nonConformingFloatDecodingStrategy = decoder.nonConformingFloatDecodingStrategy
        probe.dateDecodingStrategy = decoder.dateDecodingStrategy
        probe.dataDecodingStrategy = decoder.dataDecodingStrategy
        probe.userInfo = decoder.userInfo
    }

    /// Whether another element of the array or dictionary holding the object at `codingPath`
    /// holds `member`: then `member` is not one added since the archive was written, and an object
    /// that lacks it may be a value of another type.
    func someOtherElementHolds(_ member: String, at codingPath: [any CodingKey]) -> Bool {
        guard let last = codingPath.last, MemberPath.isPosition(last) || MemberPath.isDictionaryKey(last)
        else { return false }
        let parent = Array(codingPath.dropLast())
        let place = DefaultFilling.place(parent).joined()
        let kinds: Set<Set<String>>
        if let known = elementKinds[place] {
            kinds = known
        } else {
            var found: Set<Set<String>> = []
            switch tree?.value(at: parent) {
            case .array(let elements)?:
                for case .object(let members) in elements { found.insert(Set(members.keys)) }
            case .object(let values)?:
                for case .object(let members) in values.values { found.insert(Set(members.keys)) }
            default:
                break
            }
            elementKinds[place] = found
            kinds = found
        }
        let reference = referenceMembers(at: codingPath)
        return kinds.contains { Self.isAlike($0, reference) && $0.contains(member) }
    }

    /// A value the objects at the place of the object at `codingPath` hold for `member`, not
    /// `null` where one is not: to tell whether it reads as a type.
    func placeValue(_ member: String, at codingPath: [any CodingKey]) -> JSONValue? {
        let reference = referenceMembers(at: codingPath)
        var found: JSONValue?
        for (kind, values) in placeKinds(at: codingPath) where Self.isAlike(kind, reference) {
            guard let value = values[member] else { continue }
            if value != .null { return value }
            found = value
        }
        return found
    }

    /// The members of the archived object at `codingPath`, which the objects beside it are told
    /// apart by (see ``isAlike(_:_:)``); `nil` when it is no object or holds no member.
    private func referenceMembers(at codingPath: [any CodingKey]) -> Set<String>? {
        guard case .object(let members)? = tree?.value(at: codingPath), !members.isEmpty else {
            return nil
        }
        return Set(members.keys)
    }

    /// Whether objects holding `members` and `reference` are of one kind: they share a member. A
    /// dictionary whose keys are neither strings nor integers is archived as an array of keys and
    /// values, so keys that are structs sit at the same place as the values, and hold none of the
    /// values' members.
    private static func isAlike(_ members: Set<String>, _ reference: Set<String>?) -> Bool {
        guard let reference, !members.isEmpty else { return true }
        return !members.isDisjoint(with: reference)
    }

    /// The members the objects at the place of the object at `codingPath` hold, every element of
    /// each array and every value of each dictionary on the way standing for all, counting only
    /// objects of its kind (see ``isAlike(_:_:)``); none for an object that is the only one at its
    /// place.
    func placeMembers(at codingPath: [any CodingKey]) -> Set<String> {
        let reference = referenceMembers(at: codingPath)
        var names: Set<String> = []
        for kind in placeKinds(at: codingPath).keys where Self.isAlike(kind, reference) {
            names.formUnion(kind)
        }
        return names
    }

    /// Each different set of members the objects at the place of the object at `codingPath` hold,
    /// with a value of each member, not `null` where one is not; empty for an object that is the
    /// only one at its place.
    private func placeKinds(at codingPath: [any CodingKey]) -> [Set<String>: [String: JSONValue]] {
        // Keys that are structs sit beside the values in a dictionary archived as keys and values:
        // the steps of such a place take only the side of the object asked about.
        let steps = MemberPath.placeSteps(codingPath, pairs: pairPlaces)
        guard steps.contains(where: { !$0.isMember }) else { return [:] }
        let place = MemberPath.placeKey(codingPath, pairs: pairPlaces)
        if let kinds = kindsByPlace[place] { return kinds }
        var kinds: [Set<String>: [String: JSONValue]] = [:]
        func collect(_ value: JSONValue, _ steps: ArraySlice<MemberPath.Step>) {
            guard let step = steps.first else {
                if case .object(let members) = value {
                    let kind = Set(members.keys)
                    var values = kinds[kind] ?? [:]
                    for (name, member) in members where values[name] == nil || values[name] == .null {
                        values[name] = member
                    }
                    kinds[kind] = values
                }
                return
            }
            switch (step, value) {
            case (.member(let name), .object(let members)):
                if let child = members[name] { collect(child, steps.dropFirst()) }
            case (_, .array(let elements)) where !step.isMember:
                for (index, element) in elements.enumerated() where step.takes(index) {
                    collect(element, steps.dropFirst())
                }
            case (.each, .object(let values)), (.values, .object(let values)):
                for child in values.values { collect(child, steps.dropFirst()) }
            default:
                break
            }
        }
        if let tree { collect(tree, steps[...]) }
        kindsByPlace[place] = kinds
        return kinds
    }

    /// Whether `json` decodes as a `Value`.
    func decodes<Value: Decodable>(_ valueType: Value.Type, json: JSONValue) -> Bool {
        (try? probe.decode([Value].self, from: Data("[\(json.description)]".utf8))) != nil
    }

    /// Whether a checking decode leaves a value at `depth` to `JSONDecoder` alone: one its sample
    /// does not take (`sampled`, see ``DefaultFilling/Sample``), one too deep, or any once the
    /// sample is full; never in a filling decode.
    func decodesNatively(sampled: @autoclosure () -> Bool = true, depth: @autoclosure () -> Int) -> Bool {
        guard mode == .checking else { return false }
        if objectsLeft <= 0 { return true }
        if !sampled() { return true }
        return depth() >= DefaultFilling.Sample.depth
    }

    /// Whether `keys` is the key type of a dictionary rather than of a type's members.
    func isDictionaryKeyType(_ keys: any CodingKey.Type) -> Bool {
        let id = ObjectIdentifier(keys)
        if let known = dictionaryKeyTypes[id] { return known }
        let isDictionary = MemberPath.isDictionaryKeyType(keys)
        dictionaryKeyTypes[id] = isDictionary
        return isDictionary
    }

    /// Whether `type` is a dictionary that `Dictionary`'s own coding archives as an array of keys
    /// and values.
    private func isArchivedAsPairs(_ type: Any.Type) -> Bool {
        let id = ObjectIdentifier(type)
        if let known = pairTypes[id] { return known }
        let isPairs = (type as? any KeyValueArchived.Type)?.isArchivedAsPairs ?? false
        pairTypes[id] = isPairs
        return isPairs
    }

    /// Notes that a value of `type` at `codingPath` failed to decode.
    func noteFailure(of type: any Decodable.Type, at codingPath: [any CodingKey]) {
        lastFailed = DefaultFilling.FailedValue(type: type, place: DefaultFilling.place(codingPath))
    }

    /// Decodes a value of `type` from `base`, the `JSONDecoder` decoder of its place.
    func decode<T: Decodable>(_ type: T.Type, from base: any Decoder) throws -> T {
        let defaultsType = mode == .filling ? T.self as? any ArchiveDefaults.Type : nil
        let members = FilledMembers(
            owner: T.self, isDefaultsType: defaultsType != nil,
            source: defaultsType.map { .type($0, self) } ?? .none)
        if mode == .checking { objectsLeft -= 1 }
        if rootMembers == nil { rootMembers = members }
        if isArchivedAsPairs(T.self) {
            let place = MemberPath.placeKey(base.codingPath, pairs: pairPlaces)
            if pairPlaces.insert(place).inserted { pairs[place] = base.codingPath }
        }
        let value: T
        do {
            value = try T(from: FillingDecoder(base: base, session: self, members: members))
        } catch {
            // The type's own code refused the value it was given, such as an enum a case it lacks.
            if let context = DefaultFilling.context(of: error),
                DefaultFilling.place(context.codingPath) == DefaultFilling.place(base.codingPath)
            {
                noteFailure(of: T.self, at: base.codingPath)
                if mode == .checking, case DecodingError.keyNotFound = error {
                    lastLacking = DefaultFilling.LackingObject(type: T.self, codingPath: base.codingPath)
                }
            }
            throw error
        }
        // An object read through a nested container (an enum case's associated values) is looked
        // at as the object itself is: a label renamed to an optional reads as nil there too.
        for inner in members.nested
        where !inner.members.absentOptionals.isEmpty || !inner.members.filled.isEmpty {
            guard let archived = try? inner.raw.container() else { continue }
            let unknown = inner.members.unknown(in: archived.allKeys.map(\.stringValue))
            guard !unknown.isEmpty else { continue }
            let groups = placeRenameGroups(
                lacking: inner.members.lacking, unread: unknown, of: inner.members, in: archived,
                at: inner.codingPath, excluding: [])
            try noteRenames(groups, at: inner.codingPath, owner: T.self, unread: unknown)
        }
        guard !members.filled.isEmpty || !members.absentOptionals.isEmpty,
            let archived = try? base.container(keyedBy: AnyMemberKey.self)
        else { return value }
        let names = archived.allKeys.map(\.stringValue)
        let unknown = members.unknown(in: names)
        // A member the type lacks (filled, or an optional read as nil) while the archived object
        // holds one the type does not read, of the lacking member's type, is what a rename looks
        // like: loading would hide the old value. Members the type's own encoding writes are not
        // old names.
        if !unknown.isEmpty {
            let groups = renameGroups(
                of: members, unread: unknown, in: archived, at: base.codingPath, value: value)
            let writes = written[ObjectIdentifier(T.self)] ?? []
            try noteRenames(
                groups, at: base.codingPath, owner: T.self, unread: unknown.filter { !writes.contains($0) })
        }
        // An object none of whose members the type knows is not an older value of the type but a
        // value of another, as an `init(from:)` that tries one type and then another (`try?`)
        // expects: filling it would replace that value with defaults. Fail as `JSONDecoder` does.
        if !names.isEmpty, unknown.count == names.count, let first = members.filled.first {
            throw DecodingError.keyNotFound(
                AnyMemberKey(stringValue: first.name),
                DecodingError.Context(
                    codingPath: base.codingPath,
                    debugDescription: "No value associated with key \(first.name); the object has none of "
                        + "the members \(String(reflecting: T.self)) reads, so it is not filled from its defaults"
                ))
        }
        return value
    }

    /// Fails with the renames `groups` finds at `codingPath` when one is to a filled member; notes
    /// those to optionals read as nil, for the decode to fail at its end, since the value is the
    /// one the decode gives anyway and going on finds every such place.
    private func noteRenames(
        _ groups: [DefaultFilling.RenameGroup], at codingPath: [any CodingKey], owner: Any.Type,
        unread: [String]
    ) throws {
        if groups.contains(where: { $0.kind == .filled }) {
            throw DefaultFilling.UnreadMembers(
                codingPath: codingPath, owner: owner, groups: groups, unread: unread.sorted())
        }
        let optionals = groups.filter { $0.kind == .optional }
        guard !optionals.isEmpty else { return }
        let place = MemberPath.generalized(codingPath + [AnyMemberKey(stringValue: "")])?.path
        let key = "\(place ?? DefaultFilling.place(codingPath).joined()) \(optionals.map(\.member))"
        if renamedPlaces.insert(key).inserted {
            renamedToOptionals.append(
                DefaultFilling.UnreadMembers(
                    codingPath: codingPath, owner: owner, groups: optionals, unread: unread.sorted()))
        }
    }

    /// The rename groups of an object that decoded as `value` while lacking `members`' filled
    /// members and absent optionals: `unread` are the members of `archived` it neither knows nor
    /// read. Members the type's own encoding writes are not old names.
    private func renameGroups<T>(
        of members: FilledMembers, unread: [String], in archived: KeyedDecodingContainer<AnyMemberKey>,
        at codingPath: [any CodingKey], value: T
    ) -> [DefaultFilling.RenameGroup] {
        let type = ObjectIdentifier(T.self)
        var groups = placeRenameGroups(
            lacking: members.lacking, unread: unread, of: members, in: archived, at: codingPath,
            excluding: written[type] ?? [])
        guard !groups.isEmpty else { return groups }
        // An unread member, of the lacking member's type or not: the type's own encoding may
        // write it (a member for other readers of the file). A value is encoded to tell only for
        // members not asked about before for its type.
        let candidates = Set(groups.flatMap(\.candidates))
        guard !candidates.union(unread).isSubset(of: asked[type] ?? []) else { return groups }
        asked[type, default: []].formUnion(candidates.union(unread))
        guard let encodable = value as? any Encodable,
            let data = try? SnapshotCoder.makeJSONEncoder().encode(encodable),
            case .object(let writes)? = try? JSONValue(parsing: data)
        else { return groups }
        written[type, default: []].formUnion(writes.keys)
        if !candidates.isDisjoint(with: writes.keys) {
            groups = placeRenameGroups(
                lacking: members.lacking, unread: unread, of: members, in: archived, at: codingPath,
                excluding: written[type] ?? [])
        }
        return groups
    }

    /// The rename groups of the object at `codingPath`, which lacks `lacking` and holds `unread`
    /// (the members of `archived` it neither knows nor read), leaving out the members in
    /// `excluding`.
    ///
    /// Where the object is an element of an array or a value of a dictionary, the other objects at
    /// its place count too: a member one of them holds is one the archive already had, not a new
    /// name (an optional that is `nil` here beside a removed member is no rename), and what they
    /// hold beside it may be the old name as well (an object whose other candidate was `nil` does
    /// not make a rename certain). They are looked at only when this object suggests a rename, as
    /// that reads the whole archive.
    func placeRenameGroups(
        lacking: [(name: String, valueType: any Decodable.Type, kind: DefaultFilling.RenameGroup.Kind)],
        unread: [String], of members: FilledMembers, in archived: KeyedDecodingContainer<AnyMemberKey>,
        at codingPath: [any CodingKey], excluding: Set<String>
    ) -> [DefaultFilling.RenameGroup] {
        let here = Set(unread)
        func grouped(
            _ lacking: [(name: String, valueType: any Decodable.Type, kind: DefaultFilling.RenameGroup.Kind)],
            _ unread: [String]
        ) -> [DefaultFilling.RenameGroup] {
            DefaultFilling.RenameGroup.groups(of: lacking, unread: unread.filter { !excluding.contains($0) })
            {
                valueType, old in
                here.contains(old)
                    ? decodes(valueType, member: old, in: archived)
                    : placeValue(old, at: codingPath).map { decodes(valueType, json: $0) } ?? false
            }
        }
        let alone = grouped(lacking, unread)
        guard !alone.isEmpty else { return alone }
        let placed = placeMembers(at: codingPath)
        guard !placed.isEmpty else { return alone }
        return grouped(
            lacking.filter { !placed.contains($0.name) }, members.unknown(in: Array(here.union(placed))))
    }

    /// The JSON of a value made by `type`'s `init()`, and the scope under which members read from
    /// it may be kept for other objects (`nil` when it varies between calls).
    func defaultsJSON(of type: any ArchiveDefaults.Type) -> (json: JSONValue?, scope: String?) {
        func encode<D: ArchiveDefaults>(_: D.Type) -> Data? {
            try? SnapshotCoder.makeJSONEncoder().encode(D())
        }
        func parse(_ data: Data?) -> JSONValue? {
            data.flatMap { try? JSONValue(parsing: $0) }
        }
        let id = ObjectIdentifier(type)
        switch defaults[id] {
        case .same(let json, let scope)?:
            return (json, scope)
        case .varying?:
            return (parse(encode(type)), nil)
        case nil:
            // Compared as values: `JSONEncoder` may write an object's members in another order.
            let json = parse(encode(type))
            guard json == parse(encode(type)) else {
                defaults[id] = .varying
                return (json, nil)
            }
            let scope = "\(UInt(bitPattern: id.hashValue))"
            defaults[id] = .same(json, scope: scope)
            return (json, scope)
        }
    }

    /// Per defaults type whose `init()` varies, and member: the member's JSON when it does not
    /// vary (`nil` when it does), so that filling it does not make a whole value for each object.
    private var steadyMembers: [String: JSONValue?] = [:]

    /// The JSON of `member` in `type`'s defaults when it is the same in every value `init()` makes
    /// (the type's defaults vary in other members), with the scope it is kept under; `nil` when it
    /// varies, or the type's defaults do not.
    private func steadyMember(_ member: String, of type: any ArchiveDefaults.Type) -> (JSONValue, String)? {
        guard case .varying? = defaults[ObjectIdentifier(type)] else { return nil }
        let key = "\(UInt(bitPattern: ObjectIdentifier(type).hashValue)).steady:\(member)"
        if let known = steadyMembers[key] { return known.map { ($0, key) } }
        let first = defaultsJSON(of: type).json?.child(member)
        let steady = first != nil && first == defaultsJSON(of: type).json?.child(member) ? first : nil
        steadyMembers[key] = .some(steady)
        return steady.map { ($0, key) }
    }

    /// The value `member` has in `members`' defaults, read as `Value`; `nil` when it has none.
    func defaultValue<Value: Decodable>(_ valueType: Value.Type, member: String, in members: FilledMembers)
        -> Value?
    {
        if case .type(let type, _) = members.source, let (json, scope) = steadyMember(member, of: type) {
            return value(valueType, member: member, json: json, scope: scope)
        }
        if Value.self == UUID.self, case .type(let type, _) = members.source,
            case .varying? = defaults[ObjectIdentifier(type)]
        {
            // A `UUID()` of its own, as `init()` gives each object, without making a whole value.
            return UUID() as? Value
        }
        guard let (object, scope) = members.defaults, case .object(let fields)? = object,
            let json = fields[member]
        else { return nil }
        return value(valueType, member: member, json: json, scope: scope)
    }

    /// `json`, a member's default, read as `Value`: kept under `scope` for other objects when its
    /// type holds no reference.
    private func value<Value: Decodable>(
        _ valueType: Value.Type, member: String, json: JSONValue, scope: String?
    )
        -> Value?
    {
        // A value with no reference inside may serve every object; any other is decoded again for
        // each, so that no two share a class instance.
        let key = scope.flatMap { scope in
            DefaultFilling.isPlainValue(Value.self)
                ? MemberKey(scope: scope, member: member, valueType: ObjectIdentifier(Value.self)) : nil
        }
        if let key, let cached = values[key] { return cached as? Value }
        guard let value = try? probe.decode([Value].self, from: Data("[\(json.description)]".utf8)).first
        else {
            return nil
        }
        if let key { values[key] = value }
        return value
    }

    /// Whether the archived member `old` decodes as a `Value`, with filling.
    func decodes<Value: Decodable>(
        _ valueType: Value.Type, member old: String, in raw: KeyedDecodingContainer<AnyMemberKey>
    ) -> Bool {
        let saved = (lastMissing, lastFailed, renamedToOptionals.count, objectsLeft, renamedPlaces)
        defer {
            (lastMissing, lastFailed, objectsLeft, renamedPlaces) = (saved.0, saved.1, saved.3, saved.4)
            renamedToOptionals.removeSubrange(saved.2...)
        }
        guard let decoder = try? raw.superDecoder(forKey: AnyMemberKey(stringValue: old)) else {
            return false
        }
        if DefaultFilling.isDecodedDirectly(Value.self) {
            return (try? decoder.singleValueContainer().decode(Value.self)) != nil
        }
        return (try? decode(Value.self, from: decoder)) != nil
    }
}

/// Any member name, to list what an archived object holds.
struct AnyMemberKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// One object's members while it decodes: which were read, which were filled, and where its
/// defaults come from.
final class FilledMembers {
    /// A member taken from the defaults, and whether a member of the archived object reads as a
    /// value of its type.
    struct Filled {
        let name: String
        let valueType: any Decodable.Type
    }

    /// Where an object's defaults come from.
    enum Source {
        /// No defaults: the type is not an ``ArchiveDefaults`` type.
        case none
        /// The JSON of `type`'s `init()`, from the session.
        case type(any ArchiveDefaults.Type, FillSession)
        /// The member `key` of another object's defaults.
        case member(FilledMembers, key: String)
    }

    /// The type whose `init(from:)` reads the object.
    let owner: Any.Type
    /// Whether `owner` is an ``ArchiveDefaults`` type.
    let isDefaultsType: Bool
    let source: Source
    private var madeDefaults: (json: JSONValue?, scope: String?)?
    private var hasMadeDefaults = false
    /// Members read through a container whose keys are not ``knownKeys``: the type reads them,
    /// though it does not name them in its coding keys.
    var read: Set<String> = []
    var filled: [Filled] = []
    /// Optional members the archived object lacks, read as `nil`, with the types they wrap.
    var absentOptionals: [Filled] = []
    /// The objects inside this one that the type read through nested keyed containers (an enum
    /// case's associated values), each with its place and its view of every member it holds.
    var nested: [(members: FilledMembers, codingPath: [any CodingKey], raw: RawView)] = []
    /// The coding keys of the type's first keyed container, which tell the members it knows.
    var knownKeys: (any CodingKey.Type)?

    init(owner: Any.Type, isDefaultsType: Bool, source: Source) {
        self.owner = owner
        self.isDefaultsType = isDefaultsType
        self.source = source
    }

    /// The JSON of the defaults at this object, made the first time it is needed.
    var defaults: (json: JSONValue?, scope: String?)? {
        if hasMadeDefaults { return madeDefaults }
        hasMadeDefaults = true
        switch source {
        case .none:
            madeDefaults = nil
        case .type(let type, let session):
            madeDefaults = session.defaultsJSON(of: type)
        case .member(let parent, let key):
            madeDefaults = parent.defaults.map { json, scope in
                (json?.child(key), scope.map { "\($0).\(key.count):\(key)" })
            }
        }
        return madeDefaults
    }

    /// The members of the object at `key` inside this one, as a nested container or a super
    /// decoder reads it: its defaults are the defaults' member `key`.
    func child(_ key: String) -> FilledMembers {
        FilledMembers(
            owner: owner, isDefaultsType: isDefaultsType,
            source: isDefaultsType ? .member(self, key: key) : .none)
    }

    /// Whether a container keyed by `keys` must record what it reads: one whose keys are not the
    /// type's own.
    func tracksReads(with keys: any CodingKey.Type) -> Bool {
        guard let knownKeys else { return false }
        return ObjectIdentifier(knownKeys) != ObjectIdentifier(keys)
    }

    /// The members the object lacks so far: filled, then optionals read as `nil`.
    var lacking: [(name: String, valueType: any Decodable.Type, kind: DefaultFilling.RenameGroup.Kind)] {
        filled.map { ($0.name, $0.valueType, .filled) }
            + absentOptionals.map { ($0.name, $0.valueType, .optional) }
    }

    /// The archived members that the type neither knows nor read.
    func unknown(in archived: [String]) -> [String] {
        archived.filter { !read.contains($0) && knownKeys?.init(stringValue: $0) == nil }.sorted()
    }
}

/// How a keyed container reaches its object with every member in it, to look for renames.
indirect enum RawView {
    /// The object a decoder reads.
    case decoder(any Decoder)
    /// The object at `key` in another.
    case nested(RawView, key: String)
    /// None: an unkeyed container cannot go back to an element.
    case none

    func container() throws -> KeyedDecodingContainer<AnyMemberKey> {
        switch self {
        case .decoder(let decoder):
            return try decoder.container(keyedBy: AnyMemberKey.self)
        case .nested(let parent, let key):
            return try parent.container().nestedContainer(
                keyedBy: AnyMemberKey.self, forKey: AnyMemberKey(stringValue: key))
        case .none:
            throw DefaultFilling.NoRawView()
        }
    }
}

/// The decoder a value's `init(from:)` receives in a filling decode.
struct FillingDecoder: Decoder {
    let base: any Decoder
    let session: FillSession
    /// The members of the object this decoder reads, when it reads one.
    let members: FilledMembers

    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let container = try base.container(keyedBy: type)
        if members.knownKeys == nil { members.knownKeys = Key.self }
        session.census?.noteObject(at: base.codingPath, keys: Key.self)
        return KeyedDecodingContainer(
            FillingKeyedContainer(
                base: container, session: session, members: members, raw: .decoder(base),
                tracksReads: members.tracksReads(with: Key.self)))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        FillingUnkeyedContainer(base: try base.unkeyedContainer(), session: session, owner: members.owner)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        FillingSingleValueContainer(base: try base.singleValueContainer(), decoder: base, session: session)
    }
}

struct FillingKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let base: KeyedDecodingContainer<Key>
    let session: FillSession
    let members: FilledMembers
    /// The same object, with every member it holds.
    let raw: RawView
    /// Whether reads are recorded: the container's keys are not the type's own.
    let tracksReads: Bool
    /// Whether the container reads a dictionary, whose values a checking decode samples.
    let isDictionary: Bool
    /// How many values the dictionary holds, when it is one.
    let dictionaryCount: Int

    init(
        base: KeyedDecodingContainer<Key>, session: FillSession, members: FilledMembers, raw: RawView,
        tracksReads: Bool
    ) {
        self.base = base
        self.session = session
        self.members = members
        self.raw = raw
        self.tracksReads = tracksReads
        isDictionary = session.mode == .checking && session.isDictionaryKeyType(Key.self)
        dictionaryCount = isDictionary ? base.allKeys.count : 0
    }

    var codingPath: [any CodingKey] { base.codingPath }
    /// The keys; in a ``DefaultFilling/Mode/filling`` decode, which a migration survey runs, a
    /// dictionary's sorted (by their integers, else their strings), so that every launch decodes
    /// its values in the same order and meets the same failure first, where `JSONDecoder`'s order
    /// follows a hash seeded anew in each process. A checking decode, which every launch runs,
    /// keeps `JSONDecoder`'s order and cost.
    var allKeys: [Key] {
        guard session.mode == .filling, session.isDictionaryKeyType(Key.self) else { return base.allKeys }
        return base.allKeys.sorted { first, second in
            if let one = first.intValue, let other = second.intValue, one != other { return one < other }
            return first.stringValue < second.stringValue
        }
    }

    private func noteRead(_ key: Key) {
        if tracksReads {
            members.read.insert(key.stringValue)
            session.census?.noteRead(key.stringValue, at: base.codingPath)
        }
    }

    func contains(_ key: Key) -> Bool {
        noteRead(key)
        return base.contains(key)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        noteRead(key)
        return try base.decodeNil(forKey: key)
    }

    /// The default for a member the archive lacks, if the type has one; otherwise `decode()`.
    private func filling<T: Decodable>(_ type: T.Type, forKey key: Key, _ decode: () throws -> T) throws -> T
    {
        noteRead(key)
        guard session.mode == .filling, !base.contains(key) else { return try decode() }
        if let value = session.defaultValue(T.self, member: key.stringValue, in: members),
            !isValueOfAnotherType(lacking: key.stringValue)
        {
            members.filled.append(FilledMembers.Filled(name: key.stringValue, valueType: T.self))
            return value
        }
        // `JSONDecoder`'s own error, unchanged, since the type's code may catch it; the session
        // remembers what was missing, and what it may have been renamed from, for the explanation.
        var renames: [DefaultFilling.RenameGroup] = []
        var unread: [String] = []
        if let raw = try? raw.container() {
            unread = members.unknown(in: raw.allKeys.map(\.stringValue))
            renames = session.placeRenameGroups(
                lacking: members.lacking + [(key.stringValue, T.self, .missing)], unread: unread, of: members,
                in: raw, at: base.codingPath, excluding: [])
        }
        session.lastMissing = DefaultFilling.MissingMember(
            owner: members.owner, ownerIsDefaultsType: members.isDefaultsType, member: key.stringValue,
            valueType: T.self, codingPath: base.codingPath, renames: renames, unread: unread.sorted())
        return try decode()
    }

    /// Whether the object, which lacks `member`, looks like a value of another type: another
    /// element of the same array or dictionary holds `member`, so it is not a member added since,
    /// and the object holds a member the type neither knows nor reads. Filling it would replace
    /// that value with defaults, where an `init(from:)` that tries one type and then another
    /// expects the first to fail.
    private func isValueOfAnotherType(lacking member: String) -> Bool {
        guard session.someOtherElementHolds(member, at: base.codingPath),
            let raw = try? raw.container()
        else { return false }
        return !members.unknown(in: raw.allKeys.map(\.stringValue)).isEmpty
    }

    /// Decodes a member; as the protocol's `decode(_:forKey:)` for `Bool`, `String`, every number
    /// type too, which `JSONDecoder` then decodes as it decodes them directly.
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try filling(type, forKey: key) {
            // A missing member gets `JSONDecoder`'s own error.
            if DefaultFilling.isDecodedDirectly(T.self) || !base.contains(key) {
                do {
                    return try base.decode(type, forKey: key)
                } catch {
                    session.noteFailure(of: T.self, at: base.codingPath + [key])
                    throw error
                }
            }
            let sampled =
                !isDictionary || DefaultFilling.Sample.includes(key: key.stringValue, of: dictionaryCount)
            if session.decodesNatively(sampled: sampled, depth: base.codingPath.count) {
                return try base.decode(type, forKey: key)
            }
            return try session.decode(T.self, from: base.superDecoder(forKey: key))
        }
    }

    /// Decodes an optional member as `JSONDecoder` does, noting it when the object lacks it.
    private func present<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        noteRead(key)
        guard base.contains(key) else {
            members.absentOptionals.append(FilledMembers.Filled(name: key.stringValue, valueType: T.self))
            return nil
        }
        if try base.decodeNil(forKey: key) { return nil }
        return try decode(type, forKey: key)
    }

    // Spelled out for each primitive, unlike `decode`: the standard library gives
    // `KeyedDecodingContainerProtocol` a concrete default for each of these, which would be chosen
    // over the generic method below and never note an absent optional.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try present(type, forKey: key)
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try present(type, forKey: key)
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try present(type, forKey: key)
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try present(type, forKey: key)
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try present(type, forKey: key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try present(type, forKey: key)
    }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try present(type, forKey: key)
    }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try present(type, forKey: key)
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try present(type, forKey: key)
    }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try present(type, forKey: key)
    }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try present(type, forKey: key)
    }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try present(type, forKey: key)
    }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try present(type, forKey: key)
    }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try present(type, forKey: key)
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try present(type, forKey: key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        noteRead(key)
        let nested = members.child(key.stringValue)
        nested.knownKeys = NestedKey.self
        members.nested.append((nested, base.codingPath + [key], .nested(raw, key: key.stringValue)))
        session.census?.noteObject(at: base.codingPath + [key], keys: NestedKey.self)
        return KeyedDecodingContainer(
            FillingKeyedContainer<NestedKey>(
                base: try base.nestedContainer(keyedBy: type, forKey: key), session: session, members: nested,
                raw: .nested(raw, key: key.stringValue), tracksReads: false))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        noteRead(key)
        return FillingUnkeyedContainer(
            base: try base.nestedUnkeyedContainer(forKey: key), session: session, owner: members.owner)
    }

    func superDecoder() throws -> any Decoder {
        if tracksReads { members.read.insert("super") }
        return FillingDecoder(
            base: try base.superDecoder(), session: session, members: members.child("super"))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        noteRead(key)
        return FillingDecoder(
            base: try base.superDecoder(forKey: key), session: session,
            members: members.child(key.stringValue))
    }
}

struct FillingUnkeyedContainer: UnkeyedDecodingContainer {
    var base: any UnkeyedDecodingContainer
    let session: FillSession
    let owner: Any.Type

    var codingPath: [any CodingKey] { base.codingPath }
    var count: Int? { base.count }
    var isAtEnd: Bool { base.isAtEnd }
    var currentIndex: Int { base.currentIndex }

    mutating func decodeNil() throws -> Bool { try base.decodeNil() }

    /// Decodes an element; the protocol's `decode(_:)` for `Bool`, `String` and the number types too.
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // At the end, `JSONDecoder`'s own error.
        if DefaultFilling.isDecodedDirectly(T.self) || base.isAtEnd {
            let index = base.currentIndex
            do {
                return try base.decode(type)
            } catch {
                session.noteFailure(
                    of: T.self, at: base.codingPath + [JSONPathComponent.index(index).codingKey])
                throw error
            }
        }
        let index = base.currentIndex
        let sampled =
            base.count.map { DefaultFilling.Sample.includes(index, of: $0) }
            ?? (index < 2 * DefaultFilling.Sample.first)
        if session.decodesNatively(sampled: sampled, depth: base.codingPath.count) {
            return try base.decode(type)
        }
        return try session.decode(T.self, from: base.superDecoder())
    }

    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        guard try !isAtEnd && !decodeNil() else { return nil }
        return try decode(type)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let members = FilledMembers(owner: owner, isDefaultsType: false, source: .none)
        members.knownKeys = NestedKey.self
        session.census?.noteObject(
            at: base.codingPath + [JSONPathComponent.index(base.currentIndex).codingKey], keys: NestedKey.self
        )
        // The raw view of this element: an unkeyed container cannot go back to it, so a missing
        // member here is explained without looking for a rename.
        return KeyedDecodingContainer(
            FillingKeyedContainer<NestedKey>(
                base: try base.nestedContainer(keyedBy: type), session: session, members: members,
                raw: .none, tracksReads: false))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        FillingUnkeyedContainer(base: try base.nestedUnkeyedContainer(), session: session, owner: owner)
    }

    mutating func superDecoder() throws -> any Decoder {
        FillingDecoder(
            base: try base.superDecoder(), session: session,
            members: FilledMembers(owner: owner, isDefaultsType: false, source: .none))
    }
}

struct FillingSingleValueContainer: SingleValueDecodingContainer {
    let base: any SingleValueDecodingContainer
    /// The decoder of the same place, for a value of a type `JSONDecoder` does not decode itself.
    let decoder: any Decoder
    let session: FillSession

    var codingPath: [any CodingKey] { base.codingPath }

    func decodeNil() -> Bool { base.decodeNil() }

    /// Decodes the value; the protocol's `decode(_:)` for `Bool`, `String` and the number types too.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if DefaultFilling.isDecodedDirectly(T.self) {
            do {
                return try base.decode(type)
            } catch {
                session.noteFailure(of: T.self, at: base.codingPath)
                throw error
            }
        }
        if session.decodesNatively(depth: base.codingPath.count) { return try base.decode(type) }
        return try session.decode(T.self, from: decoder)
    }
}

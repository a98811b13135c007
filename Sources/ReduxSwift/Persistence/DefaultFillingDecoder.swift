import Foundation

/// Decodes an archived state as `JSONDecoder` does, except that a member missing from an object
/// of an ``ArchiveDefaults`` type is taken from that type's `init()`.
///
/// It wraps the `Decoder` of a `JSONDecoder` decode: every value of a type `JSONDecoder` decodes
/// itself (numbers, strings, `Date`, `Data`, `URL`, `Decimal`) is decoded by it, with its
/// strategies; every other value gets a wrapped decoder for its own place, so the filling reaches
/// any depth. A load uses it only after `JSONDecoder` alone reported a missing key.
enum DefaultFilling {
    /// The `userInfo` key under which the decode's ``FillSession`` travels.
    static let sessionKey = CodingUserInfoKey(rawValue: "ReduxSwift.DefaultFilling.session")!

    /// Decodes `T` from `data` with `decoder`'s strategies, filling missing members.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, like decoder: JSONDecoder) throws -> T {
        let filling = JSONDecoder()
        filling.nonConformingFloatDecodingStrategy = decoder.nonConformingFloatDecodingStrategy
        filling.dateDecodingStrategy = decoder.dateDecodingStrategy
        filling.dataDecodingStrategy = decoder.dataDecodingStrategy
        filling.keyDecodingStrategy = decoder.keyDecodingStrategy
        filling.userInfo = decoder.userInfo
        let session = FillSession(decoder: decoder)
        filling.userInfo[sessionKey] = session
        do {
            return try filling.decode(Root<T>.self, from: data).value
        } catch {
            throw Failure(underlying: error, missing: session.lastMissing)
        }
    }

    /// The error a filling decode wraps in ``Failure``, or `error` itself.
    static func unwrapped(_ error: any Error) -> any Error {
        (error as? Failure)?.underlying ?? error
    }

    /// Why a filling decode failed, with what it knows of a missing member.
    struct Failure: Error {
        /// What `JSONDecoder`, the state's own code or the filling threw.
        let underlying: any Error
        /// The last member that was missing with no default; the cause when `underlying` is its
        /// `keyNotFound`.
        let missing: MissingMember?
    }

    /// A member an archive lacks, which the type that reads it has no default for.
    struct MissingMember {
        let owner: Any.Type
        /// Whether `owner` is an ``ArchiveDefaults`` type, whose `init()` gave no value for it.
        let ownerIsDefaultsType: Bool
        let member: String
        let valueType: Any.Type
        let codingPath: [any CodingKey]
        /// A member of the archived object that the type does not know, whose value reads as a
        /// `valueType`: likely the member's name before a rename.
        let renamedFrom: String?
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

    /// A load filled `filled` from the type's defaults, but the archive's object there also holds
    /// `unread`, which the type did not read: a rename, or a removal beside an addition.
    struct UnreadMembers: Error, CustomStringConvertible {
        let codingPath: [any CodingKey]
        let typeName: String
        let filled: [String]
        let unread: [String]

        var description: String {
            "\(typeName) has no value for \(Self.list(filled)) in the archive, which holds "
                + "\(Self.list(unread)) there, unread by \(typeName)"
        }

        static func list(_ names: [String]) -> String {
            names.map { "\"\($0)\"" }.joined(separator: ", ")
        }
    }
}

/// The bookkeeping of one filling decode.
///
/// `@unchecked Sendable` because it travels in a `JSONDecoder`'s `userInfo`, which asks for
/// `Sendable` values. The invariant that makes it safe: a session is created for one call of
/// ``DefaultFilling/decode(_:from:like:)`` and used only by that decode, on the thread running it.
final class FillSession: @unchecked Sendable {
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

    init(decoder: JSONDecoder) {
        self.decoder = decoder
        probe = JSONDecoder()
        probe.nonConformingFloatDecodingStrategy = decoder.nonConformingFloatDecodingStrategy
        probe.dateDecodingStrategy = decoder.dateDecodingStrategy
        probe.dataDecodingStrategy = decoder.dataDecodingStrategy
        probe.userInfo = decoder.userInfo
    }

    /// Decodes a value of `type` from `base`, the `JSONDecoder` decoder of its place.
    func decode<T: Decodable>(_ type: T.Type, from base: any Decoder) throws -> T {
        let defaultsType = T.self as? any ArchiveDefaults.Type
        let members = FilledMembers(
            owner: T.self, isDefaultsType: defaultsType != nil,
            source: defaultsType.map { .type($0, self) } ?? .none)
        let value = try T(from: FillingDecoder(base: base, session: self, members: members))
        guard !members.filled.isEmpty else { return value }
        // A member filled while the archived object holds one the type does not know, of the
        // filled member's type, is what a rename looks like: filling would hide the old value.
        let archived = try base.container(keyedBy: AnyMemberKey.self)
        let names = archived.allKeys.map(\.stringValue)
        let unknown = members.unknown(in: names)
        for old in unknown {
            for filled in members.filled where decodes(filled.valueType, member: old, in: archived) {
                throw DefaultFilling.UnreadMembers(
                    codingPath: base.codingPath, typeName: String(reflecting: T.self), filled: [filled.name],
                    unread: [old])
            }
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

    /// The value `member` has in `members`' defaults, read as `Value`; `nil` when it has none.
    func defaultValue<Value: Decodable>(_ valueType: Value.Type, member: String, in members: FilledMembers)
        -> Value?
    {
        guard let (object, scope) = members.defaults, case .object(let fields)? = object,
            let json = fields[member]
        else { return nil }
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
        let saved = lastMissing
        defer { lastMissing = saved }
        guard let decoder = try? raw.superDecoder(forKey: AnyMemberKey(stringValue: old)) else {
            return false
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
    private let source: Source
    private var madeDefaults: (json: JSONValue?, scope: String?)?
    private var hasMadeDefaults = false
    /// Members read through a container whose keys are not ``knownKeys``: the type reads them,
    /// though it does not name them in its coding keys.
    var read: Set<String> = []
    var filled: [Filled] = []
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

    var codingPath: [any CodingKey] { base.codingPath }
    var allKeys: [Key] { base.allKeys }

    private func noteRead(_ key: Key) {
        if tracksReads { members.read.insert(key.stringValue) }
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
        guard !base.contains(key) else { return try decode() }
        if let value = session.defaultValue(T.self, member: key.stringValue, in: members) {
            members.filled.append(FilledMembers.Filled(name: key.stringValue, valueType: T.self))
            return value
        }
        // `JSONDecoder`'s own error, unchanged, since the type's code may catch it; the session
        // remembers what was missing, and what it may have been renamed from, for the explanation.
        var renamedFrom: String?
        if let raw = try? raw.container() {
            renamedFrom = members.unknown(in: raw.allKeys.map(\.stringValue)).first { old in
                session.decodes(T.self, member: old, in: raw)
            }
        }
        session.lastMissing = DefaultFilling.MissingMember(
            owner: members.owner, ownerIsDefaultsType: members.isDefaultsType, member: key.stringValue,
            valueType: T.self, codingPath: base.codingPath, renamedFrom: renamedFrom)
        return try decode()
    }

    /// Decodes a member; as the protocol's `decode(_:forKey:)` for `Bool`, `String`, every number
    /// type too, which `JSONDecoder` then decodes as it decodes them directly.
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try filling(type, forKey: key) {
            // A missing member gets `JSONDecoder`'s own error.
            if DefaultFilling.isDecodedDirectly(T.self) || !base.contains(key) {
                return try base.decode(type, forKey: key)
            }
            return try session.decode(T.self, from: base.superDecoder(forKey: key))
        }
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        noteRead(key)
        let nested = members.child(key.stringValue)
        nested.knownKeys = NestedKey.self
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
        if DefaultFilling.isDecodedDirectly(T.self) || base.isAtEnd { return try base.decode(type) }
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
        if DefaultFilling.isDecodedDirectly(T.self) { return try base.decode(type) }
        return try session.decode(T.self, from: decoder)
    }
}

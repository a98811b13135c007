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
        let member: String
        let valueType: Any.Type
        let codingPath: [any CodingKey]
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
    /// The JSON of each defaults type's `init()`, or `nil` where it could not be encoded.
    private var defaults: [ObjectIdentifier: Data?] = [:]
    /// Member values already read from a defaults type's JSON.
    private var values: [MemberKey: Any?] = [:]
    /// The last member found missing with no default, for the error's explanation.
    var lastMissing: DefaultFilling.MissingMember?

    private struct MemberKey: Hashable {
        let type: ObjectIdentifier
        let member: String
        let valueType: ObjectIdentifier
    }

    init(decoder: JSONDecoder) {
        self.decoder = decoder
    }

    /// Decodes a value of `type` from `base`, the `JSONDecoder` decoder of its place.
    func decode<T: Decodable>(_ type: T.Type, from base: any Decoder) throws -> T {
        guard let defaultsType = T.self as? any ArchiveDefaults.Type else {
            return try T(from: FillingDecoder(base: base, session: self, owner: T.self, defaults: nil))
        }
        let members = FilledMembers(type: defaultsType)
        let value = try T(from: FillingDecoder(base: base, session: self, owner: T.self, defaults: members))
        guard !members.filled.isEmpty else { return value }
        // A member filled while one the type does not read holds a value of the filled member's
        // type is what a rename looks like: filling would hide the old value.
        let archived = try base.container(keyedBy: AnyMemberKey.self)
        let unread = archived.allKeys.map(\.stringValue).filter { !members.read.contains($0) }.sorted()
        for old in unread {
            for filled in members.filled where filled.reads(archived, old) {
                throw DefaultFilling.UnreadMembers(
                    codingPath: base.codingPath, typeName: String(reflecting: T.self), filled: [filled.name],
                    unread: [old])
            }
        }
        return value
    }

    /// The value `member` has in `type`'s `init()`, read as `Value`; `nil` when it has none.
    func defaultValue<Value: Decodable>(
        _ valueType: Value.Type, member: String, of type: any ArchiveDefaults.Type
    ) -> Value? {
        let key = MemberKey(
            type: ObjectIdentifier(type), member: member, valueType: ObjectIdentifier(Value.self))
        if let cached = values[key] { return cached as? Value }
        var value: Value?
        if let data = encodedDefaults(of: type) {
            let probe = JSONDecoder()
            probe.nonConformingFloatDecodingStrategy = decoder.nonConformingFloatDecodingStrategy
            probe.userInfo = decoder.userInfo
            probe.userInfo[MemberProbe<Value>.memberKey] = member
            value = (try? probe.decode(MemberProbe<Value>.self, from: data))?.value
        }
        values[key] = .some(value)
        return value
    }

    private func encodedDefaults(of type: any ArchiveDefaults.Type) -> Data? {
        if let cached = defaults[ObjectIdentifier(type)] { return cached }
        func encode<D: ArchiveDefaults>(_: D.Type) -> Data? {
            try? SnapshotCoder.makeJSONEncoder().encode(D())
        }
        let data = encode(type)
        defaults[ObjectIdentifier(type)] = .some(data)
        return data
    }

    /// Reads one member of a defaults value's JSON.
    private struct MemberProbe<Value: Decodable>: Decodable {
        static var memberKey: CodingUserInfoKey {
            CodingUserInfoKey(rawValue: "ReduxSwift.DefaultFilling.member")!
        }

        let value: Value?

        init(from decoder: any Decoder) throws {
            let member = decoder.userInfo[Self.memberKey] as? String ?? ""
            let container = try decoder.container(keyedBy: AnyMemberKey.self)
            value = try container.decodeIfPresent(Value.self, forKey: AnyMemberKey(stringValue: member))
        }
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

/// The members read and filled while one value of an ``ArchiveDefaults`` type decodes.
final class FilledMembers {
    /// A member taken from the defaults, and whether a member of the archived object reads as a
    /// value of its type.
    struct Filled {
        let name: String
        let reads: (KeyedDecodingContainer<AnyMemberKey>, String) -> Bool
    }

    let type: any ArchiveDefaults.Type
    var read: Set<String> = []
    var filled: [Filled] = []

    init(type: any ArchiveDefaults.Type) {
        self.type = type
    }
}

/// The decoder a value's `init(from:)` receives in a filling decode.
struct FillingDecoder: Decoder {
    let base: any Decoder
    let session: FillSession
    /// The type whose `init(from:)` receives this decoder.
    let owner: Any.Type
    /// The value's members, when its type is an ``ArchiveDefaults`` type.
    let defaults: FilledMembers?

    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(
            FillingKeyedContainer(
                base: try base.container(keyedBy: type), session: session, owner: owner, members: defaults))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        FillingUnkeyedContainer(base: try base.unkeyedContainer(), session: session, owner: owner)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        FillingSingleValueContainer(base: try base.singleValueContainer(), decoder: base, session: session)
    }
}

struct FillingKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let base: KeyedDecodingContainer<Key>
    let session: FillSession
    let owner: Any.Type
    let members: FilledMembers?

    var codingPath: [any CodingKey] { base.codingPath }
    var allKeys: [Key] { base.allKeys }

    func contains(_ key: Key) -> Bool {
        members?.read.insert(key.stringValue)
        return base.contains(key)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        members?.read.insert(key.stringValue)
        return try base.decodeNil(forKey: key)
    }

    /// The default for a member the archive lacks, if the type has one; otherwise `decode()`.
    private func filling<T: Decodable>(_ type: T.Type, forKey key: Key, _ decode: () throws -> T) throws -> T
    {
        members?.read.insert(key.stringValue)
        guard !base.contains(key) else { return try decode() }
        if let members, let value = session.defaultValue(T.self, member: key.stringValue, of: members.type) {
            members.filled.append(
                FilledMembers.Filled(name: key.stringValue) { container, member in
                    (try? container.decode(T.self, forKey: AnyMemberKey(stringValue: member))) != nil
                })
            return value
        }
        // `JSONDecoder`'s own error, unchanged, since the type's code may catch it; the session
        // remembers what was missing for the load's explanation.
        session.lastMissing = DefaultFilling.MissingMember(
            owner: owner, member: key.stringValue, valueType: T.self, codingPath: base.codingPath)
        return try decode()
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try filling(type, forKey: key) { try base.decode(type, forKey: key) }
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try filling(type, forKey: key) { try base.decode(type, forKey: key) }
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try filling(type, forKey: key) { try base.decode(type, forKey: key) }
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try filling(type, forKey: key) { try base.decode(type, forKey: key) }
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try filling(type, forKey: key) { try base.decode(type, forKey: key) }
    }

    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try filling(type, forKey: key) { try base.decode(type, forKey: key) }
    }

    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try filling(type, forKey: key) { try base.decode(type, forKey: key) }
    }

    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try filling(type, forKey: key) { try base.decode(type, forKey: key) }
    }

    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try filling(type, forKey: key) { try base.decode(type, forKey: key) }
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 {
        try filling(type, forKey: key) { try base.decode(type, forKey: key) }
    }

    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try filling(type, forKey: key) { try base.decode(type, forKey: key) }
    }

    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try filling(type, forKey: key) { try base.decode(type, forKey: key) }
    }

    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try filling(type, forKey: key) { try base.decode(type, forKey: key) }
    }

    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try filling(type, forKey: key) { try base.decode(type, forKey: key) }
    }

    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try filling(type, forKey: key) { try base.decode(type, forKey: key) }
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 {
        try filling(type, forKey: key) { try base.decode(type, forKey: key) }
    }

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
        members?.read.insert(key.stringValue)
        return KeyedDecodingContainer(
            FillingKeyedContainer<NestedKey>(
                base: try base.nestedContainer(keyedBy: type, forKey: key), session: session, owner: owner,
                members: nil))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        members?.read.insert(key.stringValue)
        return FillingUnkeyedContainer(
            base: try base.nestedUnkeyedContainer(forKey: key), session: session, owner: owner)
    }

    func superDecoder() throws -> any Decoder {
        members?.read.insert("super")
        return FillingDecoder(base: try base.superDecoder(), session: session, owner: owner, defaults: nil)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        members?.read.insert(key.stringValue)
        return FillingDecoder(
            base: try base.superDecoder(forKey: key), session: session, owner: owner, defaults: nil)
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
    mutating func decode(_ type: Bool.Type) throws -> Bool { try base.decode(type) }
    mutating func decode(_ type: String.Type) throws -> String { try base.decode(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try base.decode(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try base.decode(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try base.decode(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try base.decode(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try base.decode(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try base.decode(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try base.decode(type) }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try base.decode(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try base.decode(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try base.decode(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try base.decode(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try base.decode(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try base.decode(type) }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try base.decode(type) }

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
        KeyedDecodingContainer(
            FillingKeyedContainer<NestedKey>(
                base: try base.nestedContainer(keyedBy: type), session: session, owner: owner, members: nil))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        FillingUnkeyedContainer(base: try base.nestedUnkeyedContainer(), session: session, owner: owner)
    }

    mutating func superDecoder() throws -> any Decoder {
        FillingDecoder(base: try base.superDecoder(), session: session, owner: owner, defaults: nil)
    }
}

struct FillingSingleValueContainer: SingleValueDecodingContainer {
    let base: any SingleValueDecodingContainer
    /// The decoder of the same place, for a value of a type `JSONDecoder` does not decode itself.
    let decoder: any Decoder
    let session: FillSession

    var codingPath: [any CodingKey] { base.codingPath }

    func decodeNil() -> Bool { base.decodeNil() }
    func decode(_ type: Bool.Type) throws -> Bool { try base.decode(type) }
    func decode(_ type: String.Type) throws -> String { try base.decode(type) }
    func decode(_ type: Double.Type) throws -> Double { try base.decode(type) }
    func decode(_ type: Float.Type) throws -> Float { try base.decode(type) }
    func decode(_ type: Int.Type) throws -> Int { try base.decode(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try base.decode(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try base.decode(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try base.decode(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try base.decode(type) }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    func decode(_ type: Int128.Type) throws -> Int128 { try base.decode(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try base.decode(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try base.decode(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try base.decode(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try base.decode(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try base.decode(type) }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    func decode(_ type: UInt128.Type) throws -> UInt128 { try base.decode(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if DefaultFilling.isDecodedDirectly(T.self) { return try base.decode(type) }
        return try session.decode(T.self, from: decoder)
    }
}

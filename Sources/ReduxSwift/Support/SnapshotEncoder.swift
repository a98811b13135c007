import Foundation

/// Writes a state as the JSON `JSONEncoder` writes with ``SnapshotCoder``'s settings, faster, and
/// refuses what `JSONEncoder` cannot write or `JSONDecoder` cannot read back with a typed error
/// instead of a crash.
///
/// `JSONEncoder` builds its whole tree before it checks the depth, so a cyclic object graph, or a
/// state nested thousands of levels, overflows the stack inside it, and it stops the program when
/// a value's `encode(to:)` writes two values through one single-value container. This encoder
/// counts levels as it goes and throws ``SnapshotError/NestingTooDeep`` with the coding path past
/// ``JSONNesting/limit``, so everything it writes can be read back.
///
/// **Fast path.** It writes as it goes, into one buffer, with no tree in between. That holds while
/// a value's `encode(to:)` follows the usual discipline: each key written once, a container
/// written to only while its values are being written, one value per single-value container, no
/// `superEncoder()`. Anything else (a key written twice, a container kept past its time, a
/// super encoder, a keyed and an unkeyed container for one value) is detected, and the state is
/// then walked by ``SnapshotChecker``, which refuses what `JSONEncoder` would crash on, and
/// encoded by `JSONEncoder` itself, which decides everything else as Foundation does.
///
/// **Deep states.** A state whose `encode(to:)` calls nest deeper than ``DeepStack/callerCallLimit``
/// is encoded again on a thread with a deep stack (see ``DeepStack``).
///
/// The output of the fast path matches `JSONEncoder`'s: integers and floats as Swift prints them
/// (`1.0` as `1`), `nan` and `±infinity` as the strings in ``SnapshotCoder``, `Date` as seconds
/// since 2001, `Data` as Base64, `URL` as its absolute string, `Decimal` as a number, `/` escaped
/// as `\/`. Object members come in the order they were encoded (`JSONEncoder` leaves them in hash
/// order); `JSONDecoder` reads both alike.
///
/// Not thread-safe per call, but holds no state between calls other than a size hint: one
/// instance may serve one caller at a time, as the store's owner uses it.
final class SnapshotEncoder {
    /// The size of the previous output, to reserve about as much for the next one.
    private var sizeHint = 256

    /// Encodes `value`, or throws `EncodingError`, ``SnapshotError/NestingTooDeep``, or what the
    /// value's `encode(to:)` threw.
    func encode<Value: Encodable>(_ value: Value) throws -> Data {
        try encodeMarkingUnordered(value).data
    }

    /// Encodes `value` and says where in the output its unordered collections are.
    func encodeMarkingUnordered<Value: Encodable>(_ value: Value) throws -> EncodedSnapshot {
        do {
            return try encode(value, callLimit: DeepStack.callerCallLimit)
        } catch is NeedsDeepStack {
            var encoded = try DeepStack.run { try encode(value, callLimit: DeepStack.callLimit) }
            encoded.needsDeepStack = true
            return encoded
        }
    }

    private func encode<Value: Encodable>(_ value: Value, callLimit: Int) throws -> EncodedSnapshot {
        let writer = JSONStreamWriter(capacity: sizeHint, callLimit: callLimit)
        do {
            try writer.writeRoot(value)
        } catch JSONStreamWriter.OutOfOrder.error {
            return try encodeOutOfOrder(value, callLimit: callLimit)
        }
        if writer.outOfOrder { return try encodeOutOfOrder(value, callLimit: callLimit) }
        sizeHint = writer.bytes.count
        return EncodedSnapshot(data: Data(writer.bytes), unordered: .offsets(writer.unordered))
    }

    /// Encodes a value whose `encode(to:)` strays from the fast path: checks it by walking it
    /// without writing, then lets `JSONEncoder` write it.
    private func encodeOutOfOrder<Value: Encodable>(_ value: Value, callLimit: Int) throws -> EncodedSnapshot
    {
        let checker = SnapshotChecker(callLimit: callLimit)
        try checker.check(value)
        let data = try SnapshotCoder.makeJSONEncoder().encode(value)
        return EncodedSnapshot(data: data, unordered: .paths(checker.unorderedPaths))
    }
}

/// A snapshot's JSON, with what change sets need to read it.
struct EncodedSnapshot: Sendable {
    let data: Data
    /// Where the JSON holds sets and dictionaries written as arrays.
    let unordered: UnorderedArrays
    /// Whether reading it back recurses deeper than a caller's thread may: decode it on the
    /// ``DeepStack``.
    var needsDeepStack = false
}

/// Where a snapshot holds arrays whose order means nothing: by offset in the JSON, as the fast
/// path finds them, or by path, as ``SnapshotChecker`` finds them for `JSONEncoder`'s output.
enum UnorderedArrays: Sendable, Equatable {
    case offsets([UnorderedArray])
    /// Path → whether the array alternates keys and values.
    case paths([String: Bool])

    static let none = UnorderedArrays.offsets([])
}

/// An array in a snapshot whose order means nothing: a `Set`, or a `Dictionary` whose keys
/// `JSONEncoder` cannot use as member names, written as `[key, value, key, value, …]` in hash order.
struct UnorderedArray: Sendable, Equatable {
    /// The offset of its `[` in the snapshot.
    let offset: Int
    /// Whether it alternates keys and values.
    let isPairs: Bool
}

/// The collections that encode as unordered arrays when they ask for an unkeyed container.
/// (Dictionaries with `String` or `Int` keys ask for a keyed one and become objects.)
protocol UnorderedCollection {}
extension Set: UnorderedCollection {}
extension Dictionary: UnorderedCollection {}
protocol DictionaryMarker {}
extension Dictionary: DictionaryMarker {}

/// The state of one encode: the output, the open containers, the current coding path.
private final class JSONStreamWriter {
    /// Thrown, and flagged, when a value strays from the fast path.
    enum OutOfOrder: Error { case error }

    /// An open array or object.
    struct Frame {
        var isObject: Bool
        var count: Int
        /// Which container this is, so that one kept past its time is recognized.
        var token: UInt32
        /// Where this object's keys start in ``JSONStreamWriter/keys``; `-1` for an array, or for
        /// a dictionary, whose keys are distinct by construction.
        var keysStart: Int
    }

    /// One component of the coding path, kept cheap until someone asks for the path.
    enum PathComponent {
        case key(any CodingKey)
        case index(Int)
    }

    var bytes: [UInt8] = []
    var frames: [Frame] = []
    var path: [PathComponent] = []
    /// The keys written to the open objects, innermost last, to find a key written twice.
    private var keys: [String] = []
    /// The keys of open objects with more than ``linearKeyLimit`` members, by depth.
    private var largeKeySets: [Int: Set<String>] = [:]
    private static let linearKeyLimit = 16
    var callDepth = 0
    let callLimit: Int
    /// Where the value being written started in ``bytes``: a single-value container may write only
    /// while nothing has been written since.
    var valueStart = 0
    var nextToken: UInt32 = 0
    var outOfOrder = false
    /// The unordered arrays written so far, in output order.
    var unordered: [UnorderedArray] = []
    /// The last type asked about in `isUnordered(_:)` and `isDictionary(_:)`, and the answers:
    /// most containers of a state are of a few types, and a conformance check costs more than
    /// this comparison.
    private var lastArrayType: ObjectIdentifier?
    private var lastArrayTypeIsUnordered = false
    private var lastObjectType: ObjectIdentifier?
    private var lastObjectTypeIsDictionary = false
    /// Set by the first container past the depth limit; every later write throws it.
    var tooDeep: SnapshotError.NestingTooDeep?

    init(capacity: Int, callLimit: Int) {
        self.callLimit = callLimit
        bytes.reserveCapacity(capacity)
    }

    func writeRoot<Value: Encodable>(_ value: Value) throws {
        try writeValue(value, depth: 0)
        closeFrames(downTo: 0)
    }

    func codingPath(depth: Int) -> [any CodingKey] {
        path.prefix(depth).map { component in
            switch component {
            case .key(let key): return key
            case .index(let index): return IndexKey(intValue: index)
            }
        }
    }

    // MARK: Containers

    /// Opens the container of the value at `depth`, or returns the one it already has.
    /// - Parameters:
    ///   - type: The type of the value, when known (not for a super encoder).
    ///   - isNested: Whether the container is a nested container of the one at `depth - 1`, whose
    ///     key or position is written already, rather than the container of the value being written.
    func openContainer(depth: Int, isObject: Bool, type: Any.Type? = nil, isNested: Bool = false) -> UInt32 {
        // A container at `depth` is JSON nesting level `depth + 1`.
        if depth >= JSONNesting.limit, tooDeep == nil {
            tooDeep = SnapshotError.NestingTooDeep(
                limit: JSONNesting.limit, codingPath: codingPath(depth: depth))
        }
        if frames.count > depth {
            closeFrames(downTo: depth + 1)
            if frames[depth].isObject == isObject { return frames[depth].token }
            // A keyed and an unkeyed container for one value: `JSONEncoder` stops the program;
            // the checker reports it.
            outOfOrder = true
            return 0
        }
        // Only a value that has written nothing yet may open its container.
        guard frames.count == depth, isNested || bytes.count == valueStart else {
            outOfOrder = true
            return 0
        }
        var keysStart = -1
        if isObject {
            if let type, isDictionary(type) {
                keysStart = -1
            } else {
                keysStart = keys.count
            }
        } else if let type, isUnordered(type) {
            unordered.append(UnorderedArray(offset: bytes.count, isPairs: type is any DictionaryMarker.Type))
        }
        nextToken &+= 1
        frames.append(Frame(isObject: isObject, count: 0, token: nextToken, keysStart: keysStart))
        bytes.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
        return nextToken
    }

    /// Makes the container at `depth` the innermost open one and starts its next element; throws
    /// if that container has been closed already.
    @inline(__always)
    func beginElement(depth: Int, token: UInt32) throws {
        if let tooDeep { throw tooDeep }
        guard frames.count > depth, frames[depth].token == token, !outOfOrder else {
            outOfOrder = true
            throw OutOfOrder.error
        }
        if frames.count > depth + 1 { closeFrames(downTo: depth + 1) }
        if frames[depth].count > 0 { bytes.append(UInt8(ascii: ",")) }
        frames[depth].count += 1
    }

    func beginMember(_ key: String, depth: Int, token: UInt32) throws {
        try beginElement(depth: depth, token: token)
        let keysStart = frames[depth].keysStart
        if keysStart >= 0 { try noteKey(key, depth: depth, keysStart: keysStart) }
        writeString(key)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Records a key of the innermost object; a key written twice leaves the fast path, since
    /// `JSONEncoder` keeps the last value and `JSONDecoder` would read the first one written here.
    private func noteKey(_ key: String, depth: Int, keysStart: Int) throws {
        let count = keys.count - keysStart
        if count < Self.linearKeyLimit {
            for index in keysStart..<keys.count where keys[index] == key {
                outOfOrder = true
                throw OutOfOrder.error
            }
            keys.append(key)
            if count + 1 == Self.linearKeyLimit { largeKeySets[depth] = Set(keys[keysStart...]) }
        } else if largeKeySets[depth, default: []].insert(key).inserted == false {
            outOfOrder = true
            throw OutOfOrder.error
        }
    }

    private func isUnordered(_ type: Any.Type) -> Bool {
        let identifier = ObjectIdentifier(type)
        if identifier != lastArrayType {
            lastArrayType = identifier
            lastArrayTypeIsUnordered = type is any UnorderedCollection.Type
        }
        return lastArrayTypeIsUnordered
    }

    private func isDictionary(_ type: Any.Type) -> Bool {
        let identifier = ObjectIdentifier(type)
        if identifier != lastObjectType {
            lastObjectType = identifier
            lastObjectTypeIsDictionary = type is any DictionaryMarker.Type
        }
        return lastObjectTypeIsDictionary
    }

    func closeFrames(downTo depth: Int) {
        while frames.count > depth {
            let frame = frames.removeLast()
            if frame.keysStart >= 0 {
                if keys.count - frame.keysStart >= Self.linearKeyLimit {
                    largeKeySets[frames.count] = nil
                }
                keys.removeSubrange(frame.keysStart...)
            }
            bytes.append(frame.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }

    func count(depth: Int) -> Int {
        frames.count > depth ? frames[depth].count : 0
    }

    // MARK: Values

    /// Writes `value` as the value at `depth`: a primitive directly, anything else through its
    /// `encode(to:)`.
    func writeValue<Value: Encodable>(_ value: Value, depth: Int) throws {
        if writePrimitive(value) { return }
        guard callDepth < callLimit else {
            if callLimit < DeepStack.callLimit { throw NeedsDeepStack() }
            throw SnapshotError.NestingTooDeep(limit: JSONNesting.limit, codingPath: codingPath(depth: depth))
        }
        callDepth += 1
        let start = bytes.count
        let enclosingStart = valueStart
        valueStart = start
        defer {
            callDepth -= 1
            valueStart = enclosingStart
        }
        try value.encode(to: ValueEncoder(writer: self, depth: depth, type: Value.self))
        // Thrown again in case `encode(to:)` caught it.
        if let tooDeep { throw tooDeep }
        if frames.count > depth {
            closeFrames(downTo: depth)
        } else if bytes.count == start && !outOfOrder {
            if callDepth == 1 {
                throw EncodingError.invalidValue(
                    value,
                    EncodingError.Context(
                        codingPath: [], debugDescription: "Top-level \(Value.self) did not encode any values."
                    ))
            }
            // JSONEncoder writes a value that encoded nothing as an empty object.
            bytes.append(UInt8(ascii: "{"))
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Writes the values `JSONEncoder` writes itself rather than through `encode(to:)`, and the
    /// common scalars without a call; returns whether `value` was one.
    @inline(__always)
    func writePrimitive<Value: Encodable>(_ value: Value) -> Bool {
        let type = Value.self
        if type == String.self {
            writeString(unsafeBitCast(value, to: String.self))
        } else if type == Int.self {
            writeInteger(unsafeBitCast(value, to: Int.self))
        } else if type == Bool.self {
            writeBool(unsafeBitCast(value, to: Bool.self))
        } else if type == Double.self {
            writeDouble(unsafeBitCast(value, to: Double.self))
        } else if type == Date.self {
            writeDouble(unsafeBitCast(value, to: Date.self).timeIntervalSinceReferenceDate)
        } else if type == Data.self {
            writeString(unsafeBitCast(value, to: Data.self).base64EncodedString())
        } else if type == URL.self {
            writeString((value as! URL).absoluteString)
        } else if type == Decimal.self {
            writeRaw((value as! Decimal).description)
        } else if type == Float.self {
            writeFloat(unsafeBitCast(value, to: Float.self))
        } else {
            return false
        }
        return true
    }

    func writeNull() {
        bytes.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
    }

    func writeBool(_ value: Bool) {
        if value {
            bytes.append(contentsOf: [
                UInt8(ascii: "t"), UInt8(ascii: "r"), UInt8(ascii: "u"), UInt8(ascii: "e"),
            ])
        } else {
            bytes.append(contentsOf: [
                UInt8(ascii: "f"), UInt8(ascii: "a"), UInt8(ascii: "l"), UInt8(ascii: "s"), UInt8(ascii: "e"),
            ])
        }
    }

    func writeInteger<Integer: FixedWidthInteger>(_ value: Integer) {
        if Integer.isSigned && value < 0 {
            bytes.append(UInt8(ascii: "-"))
        }
        writeMagnitude(UInt64(value.magnitude))
    }

    func writeMagnitude(_ magnitude: UInt64) {
        if magnitude < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude))
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes, room for 20 digits
        var count = 0
        var rest = magnitude
        withUnsafeMutableBytes(of: &digits) { buffer in
            while rest > 0 {
                count += 1
                buffer[24 - count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            bytes.append(contentsOf: buffer[(24 - count)...])
        }
    }

    func writeDouble(_ value: Double) {
        guard value.isFinite else {
            return writeNonConforming(value.isNaN ? 0 : value.sign == .plus ? 1 : -1)
        }
        writeTrimmed(value.description)
    }

    func writeFloat(_ value: Float) {
        guard value.isFinite else {
            return writeNonConforming(value.isNaN ? 0 : value.sign == .plus ? 1 : -1)
        }
        writeTrimmed(value.description)
    }

    private func writeNonConforming(_ kind: Int) {
        switch kind {
        case 0: writeString(SnapshotCoder.notANumber)
        case 1: writeString(SnapshotCoder.positiveInfinity)
        default: writeString(SnapshotCoder.negativeInfinity)
        }
    }

    /// Writes a float's description without a trailing `.0`, as `JSONEncoder` does.
    private func writeTrimmed(_ text: String) {
        var text = text
        if text.hasSuffix(".0") { text.removeLast(2) }
        writeRaw(text)
    }

    func writeRaw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    func writeString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard
                    byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
                        || byte == UInt8(ascii: "/")
                else { continue }
                if runStart < index {
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                }
                runStart = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(byte)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [
                        UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)],
                        hex[Int(byte & 0xF)],
                    ])
                }
            }
            if runStart < utf8.count {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

/// A position in an unkeyed container, for coding paths.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

/// The encoder a value at one depth writes through.
private struct ValueEncoder: Encoder {
    let writer: JSONStreamWriter
    let depth: Int
    /// The type of the value, or `nil` when unknown (a super encoder).
    var type: Any.Type?

    var codingPath: [any CodingKey] { writer.codingPath(depth: depth) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy keyType: Key.Type) -> KeyedEncodingContainer<Key> {
        let token = writer.openContainer(depth: depth, isObject: true, type: type)
        return KeyedEncodingContainer(KeyedContainer<Key>(writer: writer, depth: depth, token: token))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let token = writer.openContainer(depth: depth, isObject: false, type: type)
        return UnkeyedContainer(writer: writer, depth: depth, token: token)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(writer: writer, depth: depth)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: JSONStreamWriter
    let depth: Int
    let token: UInt32

    var codingPath: [any CodingKey] { writer.codingPath(depth: depth) }

    private func member(_ key: Key) throws {
        try writer.beginMember(key.stringValue, depth: depth, token: token)
    }

    mutating func encodeNil(forKey key: Key) throws {
        try member(key)
        writer.writeNull()
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try member(key)
        writer.writeBool(value)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        try member(key)
        writer.writeString(value)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        try member(key)
        writer.writeDouble(value)
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        try member(key)
        writer.writeFloat(value)
    }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        try member(key)
        writer.writeInteger(value)
    }

    mutating func encode(_ value: Int8, forKey key: Key) throws {
        try member(key)
        writer.writeInteger(value)
    }

    mutating func encode(_ value: Int16, forKey key: Key) throws {
        try member(key)
        writer.writeInteger(value)
    }

    mutating func encode(_ value: Int32, forKey key: Key) throws {
        try member(key)
        writer.writeInteger(value)
    }

    mutating func encode(_ value: Int64, forKey key: Key) throws {
        try member(key)
        writer.writeInteger(value)
    }

    mutating func encode(_ value: UInt, forKey key: Key) throws {
        try member(key)
        writer.writeInteger(value)
    }

    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        try member(key)
        writer.writeInteger(value)
    }

    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        try member(key)
        writer.writeInteger(value)
    }

    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        try member(key)
        writer.writeInteger(value)
    }

    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        try member(key)
        writer.writeInteger(value)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws {
        try member(key)
        writer.writeRaw(value.description)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws {
        try member(key)
        writer.writeRaw(value.description)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try member(key)
        setPath(key)
        try writer.writeValue(value, depth: depth + 1)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        do { try member(key) } catch {}
        setPath(key)
        let token = writer.openContainer(depth: depth + 1, isObject: true, isNested: true)
        return KeyedEncodingContainer(
            KeyedContainer<NestedKey>(writer: writer, depth: depth + 1, token: token))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        do { try member(key) } catch {}
        setPath(key)
        let token = writer.openContainer(depth: depth + 1, isObject: false, isNested: true)
        return UnkeyedContainer(writer: writer, depth: depth + 1, token: token)
    }

    /// Puts `key` on the path below this container. It stays there, for a nested container that
    /// outlives this call; the next member replaces it.
    private func setPath(_ key: Key) {
        if writer.path.count > depth { writer.path.removeSubrange(depth...) }
        writer.path.append(.key(key))
    }

    mutating func superEncoder() -> any Encoder {
        writer.outOfOrder = true
        return ValueEncoder(writer: writer, depth: depth + 1)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        writer.outOfOrder = true
        return ValueEncoder(writer: writer, depth: depth + 1)
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let writer: JSONStreamWriter
    let depth: Int
    let token: UInt32

    var codingPath: [any CodingKey] { writer.codingPath(depth: depth) }
    var count: Int { writer.count(depth: depth) }

    private func element() throws {
        try writer.beginElement(depth: depth, token: token)
    }

    mutating func encodeNil() throws {
        try element()
        writer.writeNull()
    }

    mutating func encode(_ value: Bool) throws {
        try element()
        writer.writeBool(value)
    }

    mutating func encode(_ value: String) throws {
        try element()
        writer.writeString(value)
    }

    mutating func encode(_ value: Double) throws {
        try element()
        writer.writeDouble(value)
    }

    mutating func encode(_ value: Float) throws {
        try element()
        writer.writeFloat(value)
    }

    mutating func encode(_ value: Int) throws {
        try element()
        writer.writeInteger(value)
    }

    mutating func encode(_ value: Int8) throws {
        try element()
        writer.writeInteger(value)
    }

    mutating func encode(_ value: Int16) throws {
        try element()
        writer.writeInteger(value)
    }

    mutating func encode(_ value: Int32) throws {
        try element()
        writer.writeInteger(value)
    }

    mutating func encode(_ value: Int64) throws {
        try element()
        writer.writeInteger(value)
    }

    mutating func encode(_ value: UInt) throws {
        try element()
        writer.writeInteger(value)
    }

    mutating func encode(_ value: UInt8) throws {
        try element()
        writer.writeInteger(value)
    }

    mutating func encode(_ value: UInt16) throws {
        try element()
        writer.writeInteger(value)
    }

    mutating func encode(_ value: UInt32) throws {
        try element()
        writer.writeInteger(value)
    }

    mutating func encode(_ value: UInt64) throws {
        try element()
        writer.writeInteger(value)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: Int128) throws {
        try element()
        writer.writeRaw(value.description)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: UInt128) throws {
        try element()
        writer.writeRaw(value.description)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let index = count
        try element()
        setPath(index)
        try writer.writeValue(value, depth: depth + 1)
    }

    private func setPath(_ index: Int) {
        if writer.path.count > depth { writer.path.removeSubrange(depth...) }
        writer.path.append(.index(index))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let index = count
        do { try element() } catch {}
        setPath(index)
        let token = writer.openContainer(depth: depth + 1, isObject: true, isNested: true)
        return KeyedEncodingContainer(
            KeyedContainer<NestedKey>(writer: writer, depth: depth + 1, token: token))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let index = count
        do { try element() } catch {}
        setPath(index)
        let token = writer.openContainer(depth: depth + 1, isObject: false, isNested: true)
        return UnkeyedContainer(writer: writer, depth: depth + 1, token: token)
    }

    mutating func superEncoder() -> any Encoder {
        writer.outOfOrder = true
        return ValueEncoder(writer: writer, depth: depth + 1)
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let writer: JSONStreamWriter
    let depth: Int

    var codingPath: [any CodingKey] { writer.codingPath(depth: depth) }

    /// A single value is written once, where the value's container would be, and only while the
    /// value has written nothing else.
    private func begin() throws {
        if let tooDeep = writer.tooDeep { throw tooDeep }
        guard writer.frames.count == depth, writer.bytes.count == writer.valueStart, !writer.outOfOrder else {
            writer.outOfOrder = true
            throw JSONStreamWriter.OutOfOrder.error
        }
    }

    mutating func encodeNil() throws {
        try begin()
        writer.writeNull()
    }

    mutating func encode(_ value: Bool) throws {
        try begin()
        writer.writeBool(value)
    }

    mutating func encode(_ value: String) throws {
        try begin()
        writer.writeString(value)
    }

    mutating func encode(_ value: Double) throws {
        try begin()
        writer.writeDouble(value)
    }

    mutating func encode(_ value: Float) throws {
        try begin()
        writer.writeFloat(value)
    }

    mutating func encode(_ value: Int) throws {
        try begin()
        writer.writeInteger(value)
    }

    mutating func encode(_ value: Int8) throws {
        try begin()
        writer.writeInteger(value)
    }

    mutating func encode(_ value: Int16) throws {
        try begin()
        writer.writeInteger(value)
    }

    mutating func encode(_ value: Int32) throws {
        try begin()
        writer.writeInteger(value)
    }

    mutating func encode(_ value: Int64) throws {
        try begin()
        writer.writeInteger(value)
    }

    mutating func encode(_ value: UInt) throws {
        try begin()
        writer.writeInteger(value)
    }

    mutating func encode(_ value: UInt8) throws {
        try begin()
        writer.writeInteger(value)
    }

    mutating func encode(_ value: UInt16) throws {
        try begin()
        writer.writeInteger(value)
    }

    mutating func encode(_ value: UInt32) throws {
        try begin()
        writer.writeInteger(value)
    }

    mutating func encode(_ value: UInt64) throws {
        try begin()
        writer.writeInteger(value)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: Int128) throws {
        try begin()
        writer.writeRaw(value.description)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: UInt128) throws {
        try begin()
        writer.writeRaw(value.description)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try begin()
        try writer.writeValue(value, depth: depth)
    }
}

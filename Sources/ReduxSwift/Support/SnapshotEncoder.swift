import Foundation

/// Writes a state as the JSON `JSONEncoder` writes with ``SnapshotCoder``'s settings, but refuses
/// to nest deeper than `JSONDecoder` reads instead of recursing until the stack overflows.
///
/// `JSONEncoder` builds its whole tree before it checks the depth, so a cyclic object graph, or a
/// state nested thousands of levels, overflows the stack inside it (on a Dispatch worker thread,
/// whose stack is 512 KiB on Linux, from about a thousand levels). This encoder counts levels as it
/// goes and throws ``SnapshotError/NestingTooDeep`` with the coding path past ``maximumDepth``,
/// the deepest JSON `JSONDecoder` accepts, so everything it writes can be read back.
///
/// It writes as it goes, into one buffer, with no tree in between. That requires the usual
/// discipline of `encode(to:)`: a container is written to only while the values it holds are
/// being written, never after a sibling or its parent has moved on. A conformance that breaks it
/// (writing to a container kept from earlier, or using `superEncoder()`) is detected; the state is
/// then checked for depth without writing and encoded by `JSONEncoder`, which handles any order.
///
/// The output matches `JSONEncoder`'s: integers and floats as Swift prints them (`1.0` as `1`),
/// `nan` and `±infinity` as the strings in ``SnapshotCoder``, `Date` as seconds since 2001, `Data`
/// as Base64, `URL` as its absolute string, `Decimal` as a number, `/` escaped as `\/`. Object
/// members come in the order they were encoded (`JSONEncoder` leaves them in hash order).
///
/// Not thread-safe per call, but holds no state between calls: one instance may serve one caller
/// at a time, as the store's owner uses it.
final class SnapshotEncoder {
    /// The deepest nesting of arrays and objects `JSONDecoder` and `JSONSerialization` read.
    static let maximumDepth = 512
    /// The deepest nesting of `encode(to:)` calls, counting those that add no JSON level (a value
    /// that encodes another through a single-value container), so a cycle through those ends too.
    /// Twice the JSON limit leaves one wrapper per level; measured to fit a Dispatch worker's
    /// stack in debug builds with room to spare.
    static let maximumCallDepth = 1_024

    /// The size of the previous output, to reserve about as much for the next one.
    private var sizeHint = 256

    /// Encodes `value`, or throws `EncodingError` or ``SnapshotError/NestingTooDeep``.
    func encode<Value: Encodable>(_ value: Value) throws -> Data {
        try encodeMarkingUnordered(value).data
    }

    /// Encodes `value` and says where in the output its unordered collections are.
    func encodeMarkingUnordered<Value: Encodable>(_ value: Value) throws -> (
        data: Data, unordered: [UnorderedArray]
    ) {
        let writer = JSONStreamWriter(capacity: sizeHint, checkOnly: false)
        do {
            try writer.writeRoot(value)
        } catch JSONStreamWriter.OutOfOrder.error {
            return (try encodeOutOfOrder(value), [])
        }
        if writer.outOfOrder { return (try encodeOutOfOrder(value), []) }
        sizeHint = writer.bytes.count
        return (Data(writer.bytes), writer.unordered)
    }

    /// Encodes a value whose `encode(to:)` uses its containers out of order: checks the depth by
    /// walking it without writing, then lets `JSONEncoder` write it.
    private func encodeOutOfOrder<Value: Encodable>(_ value: Value) throws -> Data {
        let checker = JSONStreamWriter(capacity: 0, checkOnly: true)
        try checker.writeRoot(value)
        return try SnapshotCoder.makeJSONEncoder().encode(value)
    }
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
private protocol UnorderedCollection {}
extension Set: UnorderedCollection {}
extension Dictionary: UnorderedCollection {}
private protocol DictionaryMarker {}
extension Dictionary: DictionaryMarker {}

/// The state of one encode: the output, the open containers, the current coding path.
private final class JSONStreamWriter {
    /// Thrown, and flagged, when a container is used out of order.
    enum OutOfOrder: Error { case error }

    /// An open array or object.
    struct Frame {
        var isObject: Bool
        var count: Int
        /// Which container this is, so that one kept past its time is recognized.
        var token: UInt32
    }

    /// One component of the coding path, kept cheap until someone asks for the path.
    enum PathComponent {
        case key(any CodingKey)
        case index(Int)
    }

    var bytes: [UInt8] = []
    /// Walk the value to check its depth, write nothing, and accept any order.
    let checkOnly: Bool
    var frames: [Frame] = []
    var path: [PathComponent] = []
    var callDepth = 0
    var nextToken: UInt32 = 0
    var outOfOrder = false
    /// The unordered arrays written so far, in output order.
    var unordered: [UnorderedArray] = []
    /// The last type asked about in `isUnordered(_:)`, and the answer: most arrays of a state
    /// are of a few types, and a conformance check costs more than this comparison.
    private var lastArrayType: ObjectIdentifier?
    private var lastArrayTypeIsUnordered = false
    /// Set by the first container past the depth limit; every later write throws it.
    var tooDeep: SnapshotError.NestingTooDeep?

    init(capacity: Int, checkOnly: Bool) {
        self.checkOnly = checkOnly
        bytes.reserveCapacity(capacity)
    }

    func writeRoot<Value: Encodable>(_ value: Value) throws {
        try writeValue(value, depth: 0)
        if !checkOnly { closeFrames(downTo: 0) }
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
    /// - Parameter type: The type of the value, for an unkeyed container.
    func openContainer(depth: Int, isObject: Bool, type: Any.Type? = nil) -> UInt32 {
        // A container at `depth` is JSON nesting level `depth + 1`.
        if depth >= SnapshotEncoder.maximumDepth, tooDeep == nil {
            tooDeep = SnapshotError.NestingTooDeep(
                limit: SnapshotEncoder.maximumDepth, codingPath: codingPath(depth: depth))
        }
        if checkOnly { return 0 }
        if frames.count > depth {
            closeFrames(downTo: depth + 1)
            if frames[depth].isObject == isObject { return frames[depth].token }
            // A keyed and an unkeyed container for one value: only JSONEncoder decides that.
            outOfOrder = true
            return 0
        }
        guard frames.count == depth else {
            outOfOrder = true
            return 0
        }
        if let type, isUnordered(type) {
            unordered.append(UnorderedArray(offset: bytes.count, isPairs: type is any DictionaryMarker.Type))
        }
        nextToken &+= 1
        frames.append(Frame(isObject: isObject, count: 0, token: nextToken))
        bytes.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
        return nextToken
    }

    /// Makes the container at `depth` the innermost open one and starts its next element; throws
    /// if that container has been closed already.
    @inline(__always)
    func beginElement(depth: Int, token: UInt32) throws {
        if let tooDeep { throw tooDeep }
        if checkOnly { return }
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
        if checkOnly { return }
        writeString(key)
        bytes.append(UInt8(ascii: ":"))
    }

    private func isUnordered(_ type: Any.Type) -> Bool {
        let identifier = ObjectIdentifier(type)
        if identifier != lastArrayType {
            lastArrayType = identifier
            lastArrayTypeIsUnordered = type is any UnorderedCollection.Type
        }
        return lastArrayTypeIsUnordered
    }

    func closeFrames(downTo depth: Int) {
        while frames.count > depth {
            let frame = frames.removeLast()
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
        guard callDepth < SnapshotEncoder.maximumCallDepth else {
            throw SnapshotError.NestingTooDeep(
                limit: SnapshotEncoder.maximumDepth, codingPath: codingPath(depth: depth))
        }
        callDepth += 1
        defer { callDepth -= 1 }
        let start = bytes.count
        try value.encode(to: ValueEncoder(writer: self, depth: depth, type: Value.self))
        // Thrown again in case `encode(to:)` caught it.
        if let tooDeep { throw tooDeep }
        if checkOnly { return }
        if frames.count > depth {
            closeFrames(downTo: depth)
        } else if bytes.count == start && !outOfOrder {
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
        if checkOnly { return }
        bytes.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
    }

    func writeBool(_ value: Bool) {
        if checkOnly { return }
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
        if checkOnly { return }
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
        if checkOnly { return }
        guard value.isFinite else {
            return writeNonConforming(value.isNaN ? 0 : value.sign == .plus ? 1 : -1)
        }
        writeTrimmed(value.description)
    }

    func writeFloat(_ value: Float) {
        if checkOnly { return }
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
        if checkOnly { return }
        bytes.append(contentsOf: text.utf8)
    }

    func writeString(_ text: String) {
        if checkOnly { return }
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
private struct IndexKey: CodingKey {
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

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let token = writer.openContainer(depth: depth, isObject: true)
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
        let token = writer.openContainer(depth: depth + 1, isObject: true)
        return KeyedEncodingContainer(
            KeyedContainer<NestedKey>(writer: writer, depth: depth + 1, token: token))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        do { try member(key) } catch {}
        setPath(key)
        let token = writer.openContainer(depth: depth + 1, isObject: false)
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
        let token = writer.openContainer(depth: depth + 1, isObject: true)
        return KeyedEncodingContainer(
            KeyedContainer<NestedKey>(writer: writer, depth: depth + 1, token: token))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let index = count
        do { try element() } catch {}
        setPath(index)
        let token = writer.openContainer(depth: depth + 1, isObject: false)
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

    /// A single value is written once, where the value's container would be.
    private func begin() throws {
        if let tooDeep = writer.tooDeep { throw tooDeep }
        guard writer.checkOnly || writer.frames.count == depth, !writer.outOfOrder else {
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

    mutating func encode<T: Encodable>(_ value: T) throws {
        try begin()
        try writer.writeValue(value, depth: depth)
    }
}

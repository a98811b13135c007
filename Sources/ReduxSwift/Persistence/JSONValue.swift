import Foundation

/// A JSON value as it appears in a store's snapshot, for key-path change sets.
///
/// Numbers keep the exact text the encoder wrote, so nothing is lost to rounding; use
/// ``doubleValue`` or ``intValue`` to read them.
///
/// Two values are equal when their JSON is: strings and numbers compare as their UTF-8 bytes, so
/// `"é"` written precomposed differs from `"é"` written as `e` and a combining accent, as their
/// snapshots do (Swift's `String ==` would call them equal).
package enum JSONValue: Sendable, Hashable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as written, such as `"3"` or `"2.5e-3"`.
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])

    /// Whether the two values have the same JSON, strings and numbers compared byte by byte.
    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let left), .bool(let right)): return left == right
        case (.number(let left), .number(let right)), (.string(let left), .string(let right)):
            return left.utf8.elementsEqual(right.utf8)
        case (.array(let left), .array(let right)): return left == right
        case (.object(let left), .object(let right)): return left == right
        default: return false
        }
    }

    /// Hashes the value's JSON, strings and numbers as their bytes.
    package func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .bool(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .number(let text), .string(let text):
            hasher.combine(self.isNumber ? 2 as UInt8 : 3)
            var text = text
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            hasher.combine(text.utf8.count)
        case .array(let elements):
            hasher.combine(4 as UInt8)
            hasher.combine(elements)
        case .object(let members):
            hasher.combine(5 as UInt8)
            hasher.combine(members)
        }
    }

    private var isNumber: Bool {
        if case .number = self { return true }
        return false
    }

    /// The number as a `Double`, or `nil` if this is not a number.
    var doubleValue: Double? {
        if case .number(let text) = self { return Double(text) }
        return nil
    }

    /// The number as an `Int`, or `nil` if this is not an integer that fits.
    var intValue: Int? {
        if case .number(let text) = self { return Int(text) }
        return nil
    }

    /// The string, or `nil` if this is not a string.
    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The value at a dotted path below this one (`"todos.3.done"`), or `nil` where there is none.
    ///
    /// Paths are written as in ``StateChange/path``: a `.` or `\` inside a key is preceded by a
    /// `\` (`#"prices.1\.5"#` is the key `"1.5"` of `prices`), and `""` is this value itself.
    subscript(path path: String) -> JSONValue? {
        var value: JSONValue? = self
        for component in StatePath.components(of: path) {
            value = value?.child(component)
        }
        return value
    }

    func child(_ component: String) -> JSONValue? {
        switch self {
        case .object(let members): return members[component]
        case .array(let elements):
            guard let index = Int(component), elements.indices.contains(index) else { return nil }
            return elements[index]
        default: return nil
        }
    }

    /// Compact JSON text.
    package var description: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let text): return text
        case .string(let text): return JSONValue.quoted(text)
        case .array(let elements): return "[" + elements.map(\.description).joined(separator: ",") + "]"
        case .object(let members):
            return "{"
                + members.sorted { $0.key < $1.key }.map {
                    JSONValue.quoted($0.key) + ":" + $0.value.description
                }
                .joined(separator: ",") + "}"
        }
    }

    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case let scalar where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

/// How key-path change sets write paths: keys and array indices joined by `.`, with `.` and `\`
/// inside a key escaped by a `\`, so that a key containing a dot never reads as nesting.
enum StatePath {
    /// Appends one key or index to a path.
    static func appending(_ component: String, to path: String) -> String {
        let escaped = escape(component)
        return path.isEmpty ? escaped : path + "." + escaped
    }

    /// A path from its components.
    static func path(_ components: [String]) -> String {
        components.lazy.map(escape).joined(separator: ".")
    }

    static func escape(_ component: String) -> String {
        guard component.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "\\") }) else {
            return component
        }
        var escaped = ""
        for scalar in component.unicodeScalars {
            if scalar == "." || scalar == "\\" { escaped.unicodeScalars.append("\\") }
            escaped.unicodeScalars.append(scalar)
        }
        return escaped
    }

    /// The keys and indices of a path; none for `""`, the root.
    static func components(of path: String) -> [String] {
        guard !path.isEmpty else { return [] }
        guard path.utf8.contains(UInt8(ascii: "\\")) else {
            return path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        }
        var components: [String] = []
        var current = ""
        var escaping = false
        for scalar in path.unicodeScalars {
            if escaping {
                current.unicodeScalars.append(scalar)
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else if scalar == "." {
                components.append(current)
                current = ""
            } else {
                current.unicodeScalars.append(scalar)
            }
        }
        if escaping { current.unicodeScalars.append("\\") }
        components.append(current)
        return components
    }
}

/// A parsed snapshot, with the paths of the arrays whose order means nothing (sets, and
/// dictionaries written as `[key, value, …]`), which change sets compare as unordered.
struct SnapshotTree: Sendable, Equatable {
    let value: JSONValue
    /// Path → whether the array alternates keys and values.
    let unordered: [String: Bool]

    init(_ value: JSONValue, unordered: [String: Bool] = [:]) {
        self.value = value
        self.unordered = unordered
    }

    /// Parses a snapshot the store wrote, with the unordered arrays its encoding found.
    init(parsing data: Data, unordered: [String: Bool]) throws {
        value = try JSONValue(parsing: data)
        self.unordered = unordered
    }
}

extension JSONValue {
    /// Why bytes could not be parsed as JSON.
    struct ParseError: Error, Equatable {
        let offset: Int
        let reason: String
    }

    /// Parses JSON text, such as a store snapshot.
    init(parsing data: Data) throws {
        self = try data.withUnsafeBytes { bytes in
            var parser = JSONParser(bytes: bytes)
            return try parser.parseDocument()
        }
    }
}

/// A recursive-descent JSON parser over raw bytes, with the same depth limit as Foundation's.
private struct JSONParser {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws -> JSONValue {
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard offset == bytes.count else { throw error("unexpected text after the value") }
        return value
    }

    func error(_ reason: String) -> JSONValue.ParseError {
        JSONValue.ParseError(offset: offset, reason: reason)
    }

    mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    /// Parses the value at `depth` (0 for the root), whose array or object is nesting level
    /// `depth + 1`: the same limit as `JSONDecoder`'s, ``JSONNesting/readLimit``.
    mutating func parseValue(depth: Int) throws -> JSONValue {
        skipWhitespace()
        guard offset < bytes.count else { throw error("unexpected end") }
        switch bytes[offset] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard depth < JSONNesting.readLimit else {
                throw error("nested deeper than \(JSONNesting.readLimit) levels")
            }
            return bytes[offset] == UInt8(ascii: "{")
                ? try parseObject(depth: depth) : try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default: return try parseNumber()
        }
    }

    private mutating func literal(_ text: StaticString, _ value: JSONValue) throws -> JSONValue {
        let count = text.utf8CodeUnitCount
        guard offset + count <= bytes.count,
            memcmp(bytes.baseAddress! + offset, text.utf8Start, count) == 0
        else { throw error("unexpected text") }
        offset += count
        return value
    }

    private mutating func parseObject(depth: Int) throws -> JSONValue {
        offset += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
                throw error("expected a key")
            }
            let key = try parseString()
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else {
                throw error("expected ':'")
            }
            offset += 1
            members[key] = try parseValue(depth: depth + 1)
            skipWhitespace()
            guard offset < bytes.count else { throw error("unexpected end") }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
            } else if bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                return .object(members)
            } else {
                throw error("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws -> JSONValue {
        offset += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard offset < bytes.count else { throw error("unexpected end") }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
            } else if bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                return .array(elements)
            } else {
                throw error("expected ',' or ']'")
            }
        }
    }

    private mutating func parseString() throws -> String {
        offset += 1
        let start = offset
        // Fast path: no escapes.
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                let text = String(
                    decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
                offset += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            offset += 1
        }
        var utf8 = Array(bytes[start..<offset])
        while offset < bytes.count {
            let byte = bytes[offset]
            offset += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard offset < bytes.count else { throw error("unexpected end") }
                let escaped = bytes[offset]
                offset += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if (0xD800..<0xDC00).contains(scalar), offset + 6 <= bytes.count,
                        bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u")
                    {
                        offset += 2
                        let low = try parseHex4()
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low &- 0xDC00)
                    }
                    utf8.append(
                        contentsOf: String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
                default:
                    throw error("unknown escape")
                }
            default:
                utf8.append(byte)
            }
        }
        throw error("unterminated string")
    }

    private mutating func parseHex4() throws -> UInt32 {
        guard offset + 4 <= bytes.count else { throw error("unexpected end") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            offset += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("bad \\u escape")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    private mutating func parseNumber() throws -> JSONValue {
        let start = offset
        while offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"),
                UInt8(ascii: "."),
                UInt8(ascii: "e"), UInt8(ascii: "E"):
                offset += 1
            default:
                guard offset > start else { throw error("unexpected character") }
                return .number(
                    String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self))
            }
        }
        guard offset > start else { throw error("unexpected end") }
        return .number(
            String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self))
    }
}

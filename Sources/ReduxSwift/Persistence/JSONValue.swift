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

    /// "a string", "a number", "a boolean", "null", "an array" or "an object", for messages.
    var kind: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
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

    /// Compact JSON text, with the members of each object sorted by name.
    package var description: String {
        var output: [UInt8] = []
        write(to: &output, sortingKeys: true)
        return String(decoding: output, as: UTF8.self)
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
/// A step of a path into JSON: the name of an object's member, or the position of an array's
/// element.
enum JSONPathComponent: Hashable {
    case key(String)
    case index(Int)

    /// The component as `JSONDecoder` writes it in a coding path, which ``SnapshotError`` reads.
    var codingKey: any CodingKey {
        switch self {
        case .key(let name): return Key(stringValue: name)
        case .index(let position): return Key(intValue: position)
        }
    }

    private struct Key: CodingKey {
        let stringValue: String
        let intValue: Int?

        init(stringValue: String) {
            self.stringValue = stringValue
            intValue = nil
        }

        init(intValue: Int) {
            stringValue = "Index \(intValue)"
            self.intValue = intValue
        }
    }
}

// MARK: Reading

extension JSONValue {
    /// Why bytes are not JSON, or that they nest deeper than ``JSONNesting/readLimit``.
    struct ReadError: Error, CustomStringConvertible {
        let description: String
        let isTooDeep: Bool
    }

    /// Reads JSON as `JSONDecoder` reads it: the library's one JSON reader, for snapshots, change
    /// sets and archives alike.
    ///
    /// It reads UTF-16 and UTF-32 where `JSONDecoder` takes the bytes to be that (by a byte order
    /// mark, or by where the zero bytes are), skips a UTF-8 byte order mark, allows one comma after
    /// the last element of an array or member of an object, keeps the first of two members with the
    /// same name, and refuses more than ``JSONNesting/readLimit`` levels of arrays and objects.
    /// Numbers keep the text they were written with. Errors name the offset into the UTF-8 text.
    init(parsing data: Data) throws(ReadError) {
        self = try Self.read(data, notingMerged: false).value
    }

    /// Reads `data` as ``init(parsing:)`` does, and names each member it left out because an
    /// earlier member of its object has a name equal to its own as a Swift `String` (canonically
    /// equivalent, as a precomposed and a decomposed "é" are) but not byte for byte: JSON tells the
    /// two apart, a Swift dictionary keeps one. Each comes with its path, keys and indices.
    static func readNotingMergedMembers(_ data: Data) throws(ReadError) -> (
        value: JSONValue, merged: [(path: [String], value: JSONValue)]
    ) {
        try read(data, notingMerged: true)
    }

    private static func read(_ data: Data, notingMerged: Bool) throws(ReadError) -> (
        value: JSONValue, merged: [(path: [String], value: JSONValue)]
    ) {
        let (encoding, markLength) = Self.encoding(of: data)
        var utf8: [UInt8] = []
        if encoding != .utf8 {
            guard let text = String(bytes: data.dropFirst(markLength), encoding: encoding) else {
                let name =
                    switch encoding {
                    case .utf16BigEndian: "UTF-16 (big-endian)"
                    case .utf16LittleEndian: "UTF-16 (little-endian)"
                    case .utf32BigEndian: "UTF-32 (big-endian)"
                    default: "UTF-32 (little-endian)"
                    }
                throw ReadError(
                    description: "its first bytes make JSONDecoder read it as \(name), but it is not valid "
                        + name,
                    isTooDeep: false)
            }
            utf8 = Array(text.utf8)
        }
        let result = data.withUnsafeBytes { raw in
            utf8.withUnsafeBytes { converted in
                var reader = JSONReader(
                    bytes: encoding == .utf8
                        ? UnsafeRawBufferPointer(rebasing: raw[markLength...]) : converted)
                if notingMerged { reader.merged = [] }
                return Result { () throws(ReadError) in (try reader.document(), reader.merged ?? []) }
            }
        }
        return try result.get()
    }

    /// The encoding `JSONDecoder` takes `data` to be in, and the length of its byte order mark.
    ///
    /// The encoding is told the way `JSONDecoder` tells it (RFC 4627, section 3): by a byte order
    /// mark, else by the zero bytes among the first four, since the first two characters of JSON
    /// are ASCII.
    private static func encoding(of data: Data) -> (String.Encoding, markLength: Int) {
        let first = Array(data.prefix(4))
        func byte(_ offset: Int) -> UInt8? { offset < first.count ? first[offset] : nil }
        switch (byte(0), byte(1), byte(2), byte(3)) {
        case (0, 0, 0xFE, 0xFF): return (.utf32BigEndian, 4)
        // `JSONDecoder` takes these bytes, not FF FE 00 00, as the mark of UTF-32 little-endian.
        case (0xFE, 0xFF, 0, 0): return (.utf32LittleEndian, 4)
        case (0xFE, 0xFF, _, _): return (.utf16BigEndian, 2)
        case (0xFF, 0xFE, _, _): return (.utf16LittleEndian, 2)
        case (0xEF, 0xBB, 0xBF, _): return (.utf8, 3)
        case (0, 0, 0, .some(let last)) where last != 0: return (.utf32BigEndian, 0)
        case (0, .some(let a), 0, .some(let b)) where a != 0 && b != 0: return (.utf16BigEndian, 0)
        case (.some(let first), 0, 0, 0) where first != 0: return (.utf32LittleEndian, 0)
        case (.some(let a), 0, .some(let b), 0) where a != 0 && b != 0: return (.utf16LittleEndian, 0)
        // Two bytes can be one digit in UTF-16.
        case (0, .some(let last), nil, nil) where last != 0: return (.utf16BigEndian, 0)
        case (.some(let first), 0, nil, nil) where first != 0: return (.utf16LittleEndian, 0)
        default: return (.utf8, 0)
        }
    }
}

/// A recursive-descent reader of UTF-8 JSON, strict where `JSONDecoder` is.
private struct JSONReader {
    typealias ReadError = JSONValue.ReadError

    let bytes: UnsafeRawBufferPointer
    var index = 0
    var depth = 0
    /// The members left out for a name equal to an earlier one's only as a Swift `String`, when
    /// they are noted; and where the reader is then.
    var merged: [(path: [String], value: JSONValue)]?
    private var path: [String] = []

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func document() throws(ReadError) -> JSONValue {
        skipWhitespace()
        let value = try value()
        skipWhitespace()
        guard index == bytes.count else { throw failure("unexpected text after the JSON value") }
        return value
    }

    private mutating func value() throws(ReadError) -> JSONValue {
        guard index < bytes.count else { throw failure("unexpected end of data") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw failure("unexpected character")
        }
    }

    private mutating func object() throws(ReadError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if next(is: "}") { return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw failure("expected a member name in quotes")
            }
            let key = try string()
            skipWhitespace()
            guard next(is: ":") else { throw failure("expected \":\" after a member name") }
            skipWhitespace()
            if merged != nil { path.append(key) }
            let member = try value()
            // `JSONDecoder` decodes the first of two members with the same name.
            if let first = members.updateValue(member, forKey: key) {
                members[key] = first
                if merged != nil, let kept = members.index(forKey: key),
                    !members[kept].key.utf8.elementsEqual(key.utf8)
                {
                    merged?.append((path, member))
                }
            }
            if merged != nil { path.removeLast() }
            skipWhitespace()
            if next(is: ",") {
                // `JSONDecoder` allows a comma after the last member.
                skipWhitespace()
                if next(is: "}") { return .object(members) }
                continue
            }
            if next(is: "}") { return .object(members) }
            throw failure("expected \",\" or \"}\" in an object")
        }
    }

    private mutating func array() throws(ReadError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if next(is: "]") { return .array(elements) }
        while true {
            skipWhitespace()
            if merged != nil { path.append(String(elements.count)) }
            elements.append(try value())
            if merged != nil { path.removeLast() }
            skipWhitespace()
            if next(is: ",") {
                // `JSONDecoder` allows a comma after the last element.
                skipWhitespace()
                if next(is: "]") { return .array(elements) }
                continue
            }
            if next(is: "]") { return .array(elements) }
            throw failure("expected \",\" or \"]\" in an array")
        }
    }

    private mutating func enter() throws(ReadError) {
        depth += 1
        if depth > JSONNesting.readLimit {
            throw ReadError(
                description: "arrays and objects nest deeper than \(JSONNesting.readLimit) levels",
                isTooDeep: true)
        }
    }

    private mutating func string() throws(ReadError) -> String {
        index += 1
        let start = index
        var isASCII = true
        // Most strings have no escape: read them straight from the bytes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return try validated(text, isASCII: isASCII)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            if byte >= 0x80 { isASCII = false }
            index += 1
        }
        var utf8 = Array(bytes[start..<index])
        while true {
            guard index < bytes.count else { throw failure("unterminated string") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return try validated(utf8, isASCII: false)
            case UInt8(ascii: "\\"):
                try escape(into: &utf8)
            case 0..<0x20:
                throw failure("a control character in a string must be escaped")
            default:
                utf8.append(byte)
            }
        }
    }

    private func validated(_ text: some Collection<UInt8>, isASCII: Bool) throws(ReadError) -> String {
        if !isASCII {
            let isInvalid = transcode(
                text.makeIterator(), from: UTF8.self, to: UTF8.self, stoppingOnError: true, into: { _ in })
            guard !isInvalid else { throw failure("a string is not valid UTF-8") }
        }
        return String(decoding: text, as: UTF8.self)
    }

    private mutating func escape(into utf8: inout [UInt8]) throws(ReadError) {
        guard index < bytes.count else { throw failure("unterminated string") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hexQuad())
            if (0xD800..<0xDC00).contains(scalar) {
                guard next(is: "\\"), next(is: "u") else { throw failure("a lone surrogate in a string") }
                let low = UInt32(try hexQuad())
                guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate in a string") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let character = Unicode.Scalar(scalar) else {
                throw failure("a lone surrogate in a string")
            }
            utf8.append(contentsOf: String(Character(character)).utf8)
        default: throw failure("invalid escape in a string")
        }
    }

    private mutating func hexQuad() throws(ReadError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw failure("unterminated string") }
        var value: UInt16 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid \\u escape in a string")
            }
            value = value << 4 | UInt16(digit)
        }
        index += 4
        return value
    }

    /// Reads a number as JSON writes one, and returns its text.
    private mutating func number() throws(ReadError) -> String {
        let start = index
        _ = next(is: "-")
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0 else { throw failure("a number needs digits") }
        if integerDigits > 1, bytes[integerStart] == UInt8(ascii: "0") {
            throw failure("a number cannot start with 0")
        }
        if next(is: "."), digits() == 0 { throw failure("a number needs digits after \".\"") }
        if next(is: "e") || next(is: "E") {
            if !next(is: "+") { _ = next(is: "-") }
            guard digits() > 0 else { throw failure("a number needs digits in its exponent") }
        }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    /// Skips decimal digits; returns how many.
    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            index += 1
        }
        return index - start
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(ReadError) -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count, memcmp(bytes.baseAddress! + index, word.utf8Start, count) == 0
        else { throw failure("unexpected character") }
        index += count
        return value
    }

    /// Consumes `character` if it comes next.
    private mutating func next(is character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func failure(_ problem: String) -> ReadError {
        ReadError(description: "\(problem) at byte \(index)", isTooDeep: false)
    }
}

// MARK: Writing

extension JSONValue {
    /// The JSON text, numbers as they were read or given, strings escaped as `JSONEncoder` escapes
    /// them (quotes, backslashes and control characters).
    var data: Data {
        var output: [UInt8] = []
        write(to: &output, sortingKeys: false)
        return Data(output)
    }

    /// Appends the JSON text to `output`; `sortingKeys` writes each object's members by name.
    func write(to output: inout [UInt8], sortingKeys: Bool) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let text): output.append(contentsOf: text.utf8)
        case .string(let text): Self.write(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output, sortingKeys: sortingKeys)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            func write(_ member: (key: String, value: JSONValue), first: Bool) {
                if !first { output.append(UInt8(ascii: ",")) }
                Self.write(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(to: &output, sortingKeys: sortingKeys)
            }
            if sortingKeys {
                for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                    write(member, first: index == 0)
                }
            } else {
                var first = true
                for member in members {
                    write(member, first: first)
                    first = false
                }
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func write(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Most strings need no escape: their bytes are copied at once.
        if !string.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
        {
            output.append(contentsOf: string.utf8)
            output.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case 0x0A: output.append(contentsOf: #"\n"#.utf8)
            case 0x0D: output.append(contentsOf: #"\r"#.utf8)
            case 0x09: output.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0xF)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}

// MARK: Changing

extension JSONValue {
    /// This value with each string passed through `transform`; object members' names are kept.
    func mappingStrings(_ transform: (String) -> String) -> JSONValue {
        switch self {
        case .string(let text): return .string(transform(text))
        case .array(let elements): return .array(elements.map { $0.mappingStrings(transform) })
        case .object(let members): return .object(members.mapValues { $0.mappingStrings(transform) })
        default: return self
        }
    }

    /// This value without the object members whose names `isRemoved` picks, at any depth.
    func removingMembers(where isRemoved: (String) -> Bool) -> JSONValue {
        switch self {
        case .array(let elements): return .array(elements.map { $0.removingMembers(where: isRemoved) })
        case .object(let members):
            var kept: [String: JSONValue] = [:]
            for (key, member) in members where !isRemoved(key) {
                kept[key] = member.removingMembers(where: isRemoved)
            }
            return .object(kept)
        default: return self
        }
    }

    /// This value with each number under `prefix` passed through `transform`, which gets its path
    /// and text and returns the text to keep, in one order every run: elements in order, and the
    /// members of each object by name.
    func mappingNumbers(
        under prefix: ArraySlice<JSONPathComponent> = [], path: inout [JSONPathComponent],
        _ transform: ([JSONPathComponent], String) -> String
    ) -> JSONValue {
        switch self {
        case .number(let text) where prefix.isEmpty: return .number(transform(path, text))
        case .array(let elements):
            return .array(
                elements.enumerated().map { index, element in
                    guard prefix.first.map({ $0 == .index(index) }) ?? true else { return element }
                    path.append(.index(index))
                    defer { path.removeLast() }
                    return element.mappingNumbers(under: prefix.dropFirst(), path: &path, transform)
                })
        case .object(var members):
            for (key, member) in members.sorted(by: { $0.key < $1.key })
            where prefix.first.map({ $0 == .key(key) }) ?? true {
                path.append(.key(key))
                members[key] = member.mappingNumbers(under: prefix.dropFirst(), path: &path, transform)
                path.removeLast()
            }
            return .object(members)
        default: return self
        }
    }
}

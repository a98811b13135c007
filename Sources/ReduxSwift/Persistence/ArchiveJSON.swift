import Foundation

/// Reads JSON into the objects `JSONSerialization` produces (`[String: Any]`, `[Any]`, `String`,
/// `NSNumber`, `NSNull`), keeping the values that `JSONSerialization` changes.
///
/// `JSONEncoder` writes `-0.0` as `-0`, which `JSONSerialization` reads as the integer 0, and
/// swift-corelibs-foundation's `JSONSerialization` drops a U+FEFF at the start of a string.
/// Migrations and the removal of underscored keys read the state with this parser instead, so that
/// a value they do not touch is written back exactly as it was.
struct ArchiveJSONReader {
    /// Why the bytes are not JSON, or that they nest deeper than ``ArchiveFormat/depthLimit``.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        let isTooDeep: Bool
    }

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    /// Where the numbers are, collected only by ``numberRanges(in:under:)`` and
    /// ``path(ofNumberAt:in:)``.
    private var numberScan: NumberScan?

    /// The path of the value being read, and what a scan for numbers has found so far.
    private struct NumberScan {
        /// Only numbers whose path starts with this are collected.
        let prefix: [JSONPathComponent]
        /// The byte offset of the number whose path is wanted, if any.
        let wantedOffset: Int?
        var path: [JSONPathComponent] = []
        var ranges: [Range<Int>] = []
        var wantedPath: [JSONPathComponent]?

        mutating func record(_ range: Range<Int>) {
            if range.lowerBound == wantedOffset { wantedPath = path }
            if path.starts(with: prefix) { ranges.append(range) }
        }
    }

    private init(_ bytes: [UInt8], numberScan: NumberScan? = nil) {
        self.bytes = bytes
        self.numberScan = numberScan
    }

    /// Parses one JSON value of any kind, with nothing but whitespace around it.
    ///
    /// Integers that fit `Int` (or `UInt64`) become integer `NSNumber`s, `-0` becomes the double
    /// `-0.0`, other numbers become doubles (infinite when out of `Double`'s range), `true` and
    /// `false` become boolean `NSNumber`s.
    static func parse(_ data: Data) throws(Failure) -> Any {
        var reader = ArchiveJSONReader(Array(data))
        reader.skipWhitespace()
        let value = try reader.value()
        reader.skipWhitespace()
        guard reader.index == reader.bytes.count else {
            throw reader.failure("unexpected text after the JSON value")
        }
        return value
    }

    /// The byte ranges of the numbers in `data` whose path starts with `prefix`, in the order they
    /// appear.
    static func numberRanges(in data: Data, under prefix: [JSONPathComponent]) throws(Failure) -> [Range<Int>]
    {
        try scan(data, NumberScan(prefix: prefix, wantedOffset: nil)).ranges
    }

    /// The path of the number that starts at byte `offset` of `data`, if one does.
    static func path(ofNumberAt offset: Int, in data: Data) throws(Failure) -> [JSONPathComponent]? {
        try scan(data, NumberScan(prefix: [], wantedOffset: offset)).wantedPath
    }

    private static func scan(_ data: Data, _ numberScan: NumberScan) throws(Failure) -> NumberScan {
        var reader = ArchiveJSONReader(Array(data), numberScan: numberScan)
        reader.skipWhitespace()
        _ = try reader.value()
        return reader.numberScan ?? numberScan
    }

    private mutating func value() throws(Failure) -> Any {
        guard index < bytes.count else { throw failure("unexpected end of data") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return try string()
        case UInt8(ascii: "t"):
            try literal("true")
            return NSNumber(value: true)
        case UInt8(ascii: "f"):
            try literal("false")
            return NSNumber(value: false)
        case UInt8(ascii: "n"):
            try literal("null")
            return NSNull()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try number()
        default:
            throw failure("unexpected character")
        }
    }

    private mutating func object() throws(Failure) -> [String: Any] {
        try enter()
        defer { depth -= 1 }
        index += 1
        var object: [String: Any] = [:]
        skipWhitespace()
        if next(is: "}") { return object }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw failure("expected a member name in quotes")
            }
            let key = try string()
            skipWhitespace()
            guard next(is: ":") else { throw failure("expected \":\" after a member name") }
            skipWhitespace()
            numberScan?.path.append(.key(key))
            object[key] = try value()
            numberScan?.path.removeLast()
            skipWhitespace()
            if next(is: ",") { continue }
            if next(is: "}") { return object }
            throw failure("expected \",\" or \"}\" in an object")
        }
    }

    private mutating func array() throws(Failure) -> [Any] {
        try enter()
        defer { depth -= 1 }
        index += 1
        var array: [Any] = []
        skipWhitespace()
        if next(is: "]") { return array }
        while true {
            skipWhitespace()
            numberScan?.path.append(.index(array.count))
            array.append(try value())
            numberScan?.path.removeLast()
            skipWhitespace()
            if next(is: ",") { continue }
            if next(is: "]") { return array }
            throw failure("expected \",\" or \"]\" in an array")
        }
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        if depth > ArchiveFormat.depthLimit {
            throw Failure(
                description: "arrays and objects nest deeper than \(ArchiveFormat.depthLimit) levels",
                isTooDeep: true)
        }
    }

    private mutating func string() throws(Failure) -> String {
        index += 1
        var utf8: [UInt8] = []
        while true {
            guard index < bytes.count else { throw failure("unterminated string") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                let isInvalid = transcode(
                    utf8.makeIterator(), from: UTF8.self, to: UTF8.self, stoppingOnError: true, into: { _ in }
                )
                guard !isInvalid else { throw failure("a string is not valid UTF-8") }
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try escape(into: &utf8)
            case 0..<0x20:
                throw failure("a control character in a string must be escaped")
            default:
                utf8.append(byte)
            }
        }
    }

    private mutating func escape(into utf8: inout [UInt8]) throws(Failure) {
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
        case UInt8(ascii: "u"): try unicodeEscape(into: &utf8)
        default: throw failure("invalid escape in a string")
        }
    }

    private mutating func unicodeEscape(into utf8: inout [UInt8]) throws(Failure) {
        var scalar = UInt32(try hexQuad())
        if (0xD800..<0xDC00).contains(scalar) {
            guard next(is: "\\"), next(is: "u") else { throw failure("a lone surrogate in a string") }
            let low = UInt32(try hexQuad())
            guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate in a string") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let character = Unicode.Scalar(scalar) else { throw failure("a lone surrogate in a string") }
        utf8.append(contentsOf: String(Character(character)).utf8)
    }

    private mutating func hexQuad() throws(Failure) -> UInt16 {
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

    private mutating func number() throws(Failure) -> NSNumber {
        let start = index
        var isInteger = true
        _ = next(is: "-")
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0 else { throw failure("a number needs digits") }
        if integerDigits > 1, bytes[integerStart] == UInt8(ascii: "0") {
            throw failure("a number cannot start with 0")
        }
        if next(is: ".") {
            isInteger = false
            guard digits() > 0 else { throw failure("a number needs digits after \".\"") }
        }
        if next(is: "e") || next(is: "E") {
            isInteger = false
            if !next(is: "+") { _ = next(is: "-") }
            guard digits() > 0 else { throw failure("a number needs digits in its exponent") }
        }
        numberScan?.record(start..<index)
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger {
            // JSONEncoder writes -0.0 as `-0`; it is a double, since no integer is negative zero.
            if text == "-0" { return NSNumber(value: -0.0) }
            if let value = Int(text) { return NSNumber(value: value) }
            if let value = UInt64(text) { return NSNumber(value: value) }
        }
        // Valid JSON number syntax always parses; numbers out of range become ±infinity.
        return NSNumber(value: Double(text) ?? .nan)
    }

    /// Skips decimal digits; returns how many.
    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            index += 1
        }
        return index - start
    }

    private mutating func literal(_ word: String) throws(Failure) {
        let count = word.utf8.count
        guard index + count <= bytes.count, bytes[index..<index + count].elementsEqual(word.utf8) else {
            throw failure("unexpected character")
        }
        index += count
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

    private func failure(_ problem: String) -> Failure {
        Failure(description: "\(problem) at byte \(index)", isTooDeep: false)
    }
}

import Foundation

/// Reads JSON into the objects `JSONSerialization` produces (`[String: Any]`, `[Any]`, `String`,
/// `NSNumber`, `NSNull`), keeping the values that `JSONSerialization` changes, and reads every
/// file `JSONDecoder` reads, as `JSONDecoder` reads it.
///
/// `JSONEncoder` writes `-0.0` as `-0`, which `JSONSerialization` reads as the integer 0, and
/// swift-corelibs-foundation's `JSONSerialization` drops a U+FEFF at the start of a string.
/// Migrations read the state with this parser instead, so that a value they do not touch is written
/// back exactly as it was: a number whose text a `Double` would not give back (more digits than a
/// `Double` holds, an integer beyond `UInt64`, `1E2`) is recorded in ``NumberTexts`` with its text,
/// which ``ArchiveJSONWriter`` writes again unless the migration replaced the number.
///
/// Like `JSONDecoder`, it reads UTF-16 and UTF-32 (told apart by a byte order mark or by where the
/// zero bytes are), skips a UTF-8 byte order mark, allows one comma after the last element of an
/// array or member of an object, and keeps the first of two members with the same name.
struct ArchiveJSONReader {
    /// Why the bytes are not JSON, or that they nest deeper than ``ArchiveFormat/depthLimit``.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        let isTooDeep: Bool
    }

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    /// The numbers read so far whose text the writer would not give back.
    private var numberTexts = NumberTexts()
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
    /// `-0.0`, and other numbers whose text `Double`'s gives back (as `JSONEncoder` writes a
    /// `Double`) become doubles. Any other number (more digits than a `Double` holds, an integer
    /// beyond `UInt64`, `1E2`) becomes an `NSDecimalNumber` (a double when `Decimal` cannot hold it
    /// or it is zero, to keep its sign) and is recorded with its text in `numberTexts`. `true` and
    /// `false` become boolean `NSNumber`s.
    static func parse(_ data: Data) throws(Failure) -> (value: Any, numberTexts: NumberTexts) {
        var reader = ArchiveJSONReader(try utf8(data))
        reader.skipWhitespace()
        let value = try reader.value()
        reader.skipWhitespace()
        guard reader.index == reader.bytes.count else {
            throw reader.failure("unexpected text after the JSON value")
        }
        return (value, reader.numberTexts)
    }

    /// `data` as the UTF-8 `JSONDecoder` reads: without a byte order mark, and converted from
    /// UTF-16 or UTF-32 when `JSONDecoder` takes it to be that.
    ///
    /// The encoding is told the way `JSONDecoder` tells it (RFC 4627, section 3): by a byte order
    /// mark, else by the zero bytes among the first four, since the first two characters of JSON
    /// are ASCII.
    static func utf8(_ data: Data) throws(Failure) -> [UInt8] {
        let first = Array(data.prefix(4))
        func byte(_ offset: Int) -> UInt8? { offset < first.count ? first[offset] : nil }
        let encoding: String.Encoding
        let markLength: Int
        switch (byte(0), byte(1), byte(2), byte(3)) {
        case (0, 0, 0xFE, 0xFF): (encoding, markLength) = (.utf32BigEndian, 4)
        // `JSONDecoder` takes these bytes, not FF FE 00 00, as the mark of UTF-32 little-endian.
        case (0xFE, 0xFF, 0, 0): (encoding, markLength) = (.utf32LittleEndian, 4)
        case (0xFE, 0xFF, _, _): (encoding, markLength) = (.utf16BigEndian, 2)
        case (0xFF, 0xFE, _, _): (encoding, markLength) = (.utf16LittleEndian, 2)
        case (0xEF, 0xBB, 0xBF, _): (encoding, markLength) = (.utf8, 3)
        case (0, 0, 0, .some(let last)) where last != 0: (encoding, markLength) = (.utf32BigEndian, 0)
        case (0, .some(let a), 0, .some(let b)) where a != 0 && b != 0:
            (encoding, markLength) = (.utf16BigEndian, 0)
        case (.some(let first), 0, 0, 0) where first != 0: (encoding, markLength) = (.utf32LittleEndian, 0)
        case (.some(let a), 0, .some(let b), 0) where a != 0 && b != 0:
            (encoding, markLength) = (.utf16LittleEndian, 0)
        // Two bytes can be one digit in UTF-16.
        case (0, .some(let last), nil, nil) where last != 0: (encoding, markLength) = (.utf16BigEndian, 0)
        case (.some(let first), 0, nil, nil) where first != 0:
            (encoding, markLength) = (.utf16LittleEndian, 0)
        default: (encoding, markLength) = (.utf8, 0)
        }
        let text = data.dropFirst(markLength)
        if encoding == .utf8 { return Array(text) }
        guard let string = String(bytes: text, encoding: encoding) else {
            let name =
                switch encoding {
                case .utf16BigEndian: "UTF-16 (big-endian)"
                case .utf16LittleEndian: "UTF-16 (little-endian)"
                case .utf32BigEndian: "UTF-32 (big-endian)"
                default: "UTF-32 (little-endian)"
                }
            throw Failure(
                description: "its first bytes make JSONDecoder read it as \(name), but it is not valid "
                    + name,
                isTooDeep: false)
        }
        return Array(string.utf8)
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
        var reader = ArchiveJSONReader(try utf8(data), numberScan: numberScan)
        reader.skipWhitespace()
        _ = try reader.value()
        return reader.numberScan ?? numberScan
    }

    /// `data` without the object members whose names `isRemoved` picks, at any depth.
    ///
    /// Everything else is copied byte for byte, except whitespace between tokens (and a comma
    /// after a last element): no number or string is written again, so none can change.
    static func removingMembers(from data: Data, where isRemoved: (String) -> Bool) throws(Failure) -> Data {
        var reader = ArchiveJSONReader(try utf8(data))
        var output: [UInt8] = []
        output.reserveCapacity(reader.bytes.count)
        reader.skipWhitespace()
        try reader.copyValue(into: &output, removing: isRemoved)
        reader.skipWhitespace()
        guard reader.index == reader.bytes.count else {
            throw reader.failure("unexpected text after the JSON value")
        }
        return Data(output)
    }

    /// Copies the value that starts at `index` to `output`, without the members `isRemoved` picks.
    private mutating func copyValue(into output: inout [UInt8], removing isRemoved: (String) -> Bool)
        throws(Failure)
    {
        guard index < bytes.count else { throw failure("unexpected end of data") }
        let isObject = bytes[index] == UInt8(ascii: "{")
        guard isObject || bytes[index] == UInt8(ascii: "[") else {
            let start = index
            _ = try value()
            output.append(contentsOf: bytes[start..<index])
            return
        }
        try enter()
        defer { depth -= 1 }
        let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
        output.append(bytes[index])
        index += 1
        skipWhitespace()
        var copied = 0
        var isClosed = next(is: close)
        while !isClosed {
            skipWhitespace()
            var isKept = true
            if isObject {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw failure("expected a member name in quotes")
                }
                let nameStart = index
                isKept = !isRemoved(try string())
                let name = bytes[nameStart..<index]
                skipWhitespace()
                guard next(is: ":") else { throw failure("expected \":\" after a member name") }
                skipWhitespace()
                if isKept {
                    if copied > 0 { output.append(UInt8(ascii: ",")) }
                    output.append(contentsOf: name)
                    output.append(UInt8(ascii: ":"))
                }
            } else if copied > 0 {
                output.append(UInt8(ascii: ","))
            }
            if isKept {
                try copyValue(into: &output, removing: isRemoved)
                copied += 1
            } else {
                _ = try value()
            }
            skipWhitespace()
            if next(is: ",") {
                skipWhitespace()
                isClosed = next(is: close)
            } else if next(is: close) {
                isClosed = true
            } else {
                throw failure(
                    isObject ? "expected \",\" or \"}\" in an object" : "expected \",\" or \"]\" in an array")
            }
        }
        output.append(close)
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
            let member = try value()
            numberScan?.path.removeLast()
            // `JSONDecoder` decodes the first of two members with the same name.
            if object[key] == nil { object[key] = member }
            skipWhitespace()
            if next(is: ",") {
                // `JSONDecoder` allows a comma after the last member.
                skipWhitespace()
                if next(is: "}") { return object }
                continue
            }
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
            if next(is: ",") {
                // `JSONDecoder` allows a comma after the last element.
                skipWhitespace()
                if next(is: "]") { return array }
                continue
            }
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
        let double = Double(text) ?? .nan
        if ArchiveJSONWriter.text(of: double) == text { return NSNumber(value: double) }
        // A Double would lose part of this number: keep its text for the writer, and hand out a
        // number a cast reads exactly as a `Decimal` and, rounded, as a `Double`. A zero stays a
        // double, which keeps the sign that `Decimal` has not.
        let number: NSNumber
        if double.isFinite, double != 0, case let decimal = NSDecimalNumber(string: text, locale: nil),
            !decimal.decimalValue.isNaN
        {
            number = decimal
        } else {
            number = NSNumber(value: double)
        }
        numberTexts.record(number, text: text)
        return number
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

    /// Consumes `byte` if it comes next.
    private mutating func next(is byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
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

/// The text of each number a read produced that the writer would not give back by itself, so that
/// a number a migration does not replace is written again exactly as it was read.
///
/// A number is known by its identity: the reader creates a new object for each such number (an
/// `NSDecimalNumber`, or a double `NSNumber` that is zero, infinite or beyond `Decimal`'s range),
/// and the record keeps it alive, so no other number can take its identity while the record lasts.
/// A number the migration leaves in place, or moves elsewhere, keeps its text.
struct NumberTexts {
    private var texts: [ObjectIdentifier: (number: NSNumber, text: String)] = [:]

    mutating func record(_ number: NSNumber, text: String) {
        texts[ObjectIdentifier(number)] = (number, text)
    }

    /// The text `number` was read from, if it is one the reader recorded.
    func text(of number: NSNumber) -> String? {
        guard let entry = texts[ObjectIdentifier(number)], entry.number === number else { return nil }
        return entry.text
    }
}

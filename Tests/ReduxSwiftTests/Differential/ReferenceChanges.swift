import Foundation
import ReduxSwift

/// JSON as `JSONEncoder` writes it, parsed without interpretation: strings as their UTF-8 bytes (so
/// `"é"` precomposed differs from decomposed) and numbers as their exact text.
enum ReferenceJSON: Hashable {
    case string([UInt8])
    case number([UInt8])
    /// `true`, `false` or `null`.
    case literal([UInt8])
    case array([ReferenceJSON])
    case object([[UInt8]: ReferenceJSON])

    struct Malformed: Error {
        let offset: Int
    }

    static func parse(_ data: Data) throws -> ReferenceJSON {
        var parser = Parser(bytes: Array(data))
        let value = try parser.value()
        parser.skipSpace()
        guard parser.offset == parser.bytes.count else { throw Malformed(offset: parser.offset) }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var offset = 0

        mutating func skipSpace() {
            while offset < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[offset]) { offset += 1 }
        }

        mutating func value() throws -> ReferenceJSON {
            skipSpace()
            guard offset < bytes.count else { throw Malformed(offset: offset) }
            switch bytes[offset] {
            case UInt8(ascii: "{"):
                offset += 1
                var members: [[UInt8]: ReferenceJSON] = [:]
                skipSpace()
                if bytes[offset] == UInt8(ascii: "}") {
                    offset += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    let key = try string()
                    skipSpace()
                    try expect(":")
                    // Duplicate keys: the first wins, as `JSONDecoder` reads them.
                    let member = try value()
                    if members[key] == nil { members[key] = member }
                    skipSpace()
                    if try separator(closing: "}") { return .object(members) }
                }
            case UInt8(ascii: "["):
                offset += 1
                var elements: [ReferenceJSON] = []
                skipSpace()
                if bytes[offset] == UInt8(ascii: "]") {
                    offset += 1
                    return .array(elements)
                }
                while true {
                    elements.append(try value())
                    skipSpace()
                    if try separator(closing: "]") { return .array(elements) }
                }
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                let start = offset
                while offset < bytes.count, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[offset]) {
                    offset += 1
                }
                return .literal(Array(bytes[start..<offset]))
            default:
                let start = offset
                let numberBytes = Array("+-0123456789.eE".utf8)
                while offset < bytes.count, numberBytes.contains(bytes[offset]) { offset += 1 }
                guard offset > start else { throw Malformed(offset: offset) }
                return .number(Array(bytes[start..<offset]))
            }
        }

        mutating func expect(_ character: Unicode.Scalar) throws {
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: character) else {
                throw Malformed(offset: offset)
            }
            offset += 1
        }

        /// Consumes a `,` (returning `false`) or the closing bracket (returning `true`).
        mutating func separator(closing: Unicode.Scalar) throws -> Bool {
            guard offset < bytes.count else { throw Malformed(offset: offset) }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
                return false
            }
            try expect(closing)
            return true
        }

        /// A string's content, unescaped, as UTF-8.
        mutating func string() throws -> [UInt8] {
            try expect("\"")
            var result: [UInt8] = []
            while true {
                guard offset < bytes.count else { throw Malformed(offset: offset) }
                let byte = bytes[offset]
                offset += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return result
                case UInt8(ascii: "\\"):
                    guard offset < bytes.count else { throw Malformed(offset: offset) }
                    let escaped = bytes[offset]
                    offset += 1
                    switch escaped {
                    case UInt8(ascii: "b"): result.append(0x08)
                    case UInt8(ascii: "f"): result.append(0x0C)
                    case UInt8(ascii: "n"): result.append(0x0A)
                    case UInt8(ascii: "r"): result.append(0x0D)
                    case UInt8(ascii: "t"): result.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800..<0xDC00).contains(scalar) {
                            try expect("\\")
                            try expect("u")
                            let low = try hex4()
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { throw Malformed(offset: offset) }
                        result.append(contentsOf: Array(String(Character(unicode)).utf8))
                    default: result.append(escaped)  // `"`, `\` and `/`
                    }
                default:
                    result.append(byte)
                }
            }
        }

        mutating func hex4() throws -> UInt32 {
            guard offset + 4 <= bytes.count,
                let value = UInt32(String(decoding: bytes[offset..<offset + 4], as: UTF8.self), radix: 16)
            else { throw Malformed(offset: offset) }
            offset += 4
            return value
        }
    }
}

/// The changes a store must report between two values, found independently of the library:
/// `JSONEncoder` (sorted keys) writes both, ``ReferenceJSON`` parses them, and the values are
/// compared leaf by leaf. Arrays that `unordered` names (sets, and dictionaries written as arrays
/// of keys and values) are compared as multisets and change as a whole, except that the values of
/// such a dictionary whose keys are the same strings compare key by key.
enum ReferenceChanges {
    enum Unordered {
        /// A `Set`: its elements, in any order.
        case elements
        /// A dictionary written as `[key, value, key, value, …]`: its pairs, in any order.
        case pairs
    }

    /// A change: its path, and whether there was a value before and is one after.
    struct Change: Hashable, CustomStringConvertible {
        var path: String
        var hadValue: Bool
        var hasValue: Bool

        var description: String {
            "\(path)\(hadValue ? "" : " (added)")\(hasValue ? "" : " (removed)")"
        }
    }

    static func changes<Value: Encodable>(
        from old: Value, to new: Value, unordered: ([String]) -> Unordered?
    ) throws -> [Change] {
        let encoder = ReferenceCoders.encoder(sortedKeys: true)
        let before = try ReferenceJSON.parse(encoder.encode(old))
        let after = try ReferenceJSON.parse(encoder.encode(new))
        var found: [Change] = []
        compare(before, after, components: [], unordered: unordered, into: &found)
        return sorted(found)
    }

    static func sorted(_ changes: [Change]) -> [Change] {
        changes.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    }

    /// A path as ``StateChange/path`` writes it: components joined by `.`, with `.` and `\` inside
    /// a component escaped by `\`.
    static func path(_ components: [String]) -> String {
        components.map { component in
            var escaped = ""
            for character in component.unicodeScalars {
                if character == "." || character == "\\" { escaped.unicodeScalars.append("\\") }
                escaped.unicodeScalars.append(character)
            }
            return escaped
        }.joined(separator: ".")
    }

    private static func compare(
        _ old: ReferenceJSON?, _ new: ReferenceJSON?, components: [String],
        unordered: ([String]) -> Unordered?, into found: inout [Change]
    ) {
        switch (old, new) {
        case (.object(let before)?, .object(let after)?):
            for key in Set(before.keys).union(after.keys) {
                compare(
                    before[key], after[key], components: components + [String(decoding: key, as: UTF8.self)],
                    unordered: unordered, into: &found)
            }
        case (.array(let before)?, .array(let after)?):
            if let kind = unordered(components) {
                guard !sameMultiset(before, after, kind) else { return }
                // A dictionary's values under the same string keys compare key by key.
                if kind == .pairs, let old = stringKeyed(before), let new = stringKeyed(after),
                    Set(old.keys) == Set(new.keys)
                {
                    for (key, value) in new {
                        compare(
                            old[key], value, components: components + [String(decoding: key, as: UTF8.self)],
                            unordered: unordered, into: &found)
                    }
                    return
                }
                found.append(Change(path: path(components), hadValue: true, hasValue: true))
                return
            }
            for index in 0..<max(before.count, after.count) {
                compare(
                    index < before.count ? before[index] : nil, index < after.count ? after[index] : nil,
                    components: components + [String(index)], unordered: unordered, into: &found)
            }
        default:
            if old != new {
                found.append(Change(path: path(components), hadValue: old != nil, hasValue: new != nil))
            }
        }
    }

    /// The values of `[key, value, …]` by their keys, when every key is a string, once.
    private static func stringKeyed(_ elements: [ReferenceJSON]) -> [[UInt8]: ReferenceJSON]? {
        guard elements.count.isMultiple(of: 2) else { return nil }
        var values: [[UInt8]: ReferenceJSON] = [:]
        for start in stride(from: 0, to: elements.count, by: 2) {
            guard case .string(let key) = elements[start],
                values.updateValue(elements[start + 1], forKey: key) == nil
            else { return nil }
        }
        return values
    }

    private static func sameMultiset(_ before: [ReferenceJSON], _ after: [ReferenceJSON], _ kind: Unordered)
        -> Bool
    {
        func counts(_ elements: [ReferenceJSON]) -> [ReferenceJSON: Int] {
            var counts: [ReferenceJSON: Int] = [:]
            switch kind {
            case .elements:
                for element in elements { counts[element, default: 0] += 1 }
            case .pairs:
                for start in stride(from: 0, to: elements.count, by: 2) {
                    let pair = ReferenceJSON.array(Array(elements[start..<min(start + 2, elements.count)]))
                    counts[pair, default: 0] += 1
                }
            }
            return counts
        }
        return before.count == after.count && counts(before) == counts(after)
    }

    /// Where the fixtures keep their unordered arrays: `Catalog`'s sets and its dictionaries keyed
    /// by `Region` and `UUID`, wherever a catalog sits (a member `catalog`, or the payload `_0` of
    /// the case `catalog`).
    static func fixtureUnordered(_ components: [String]) -> Unordered? {
        guard let last = components.last else { return nil }
        let parent = components.dropLast()
        let inCatalog =
            parent.last == "catalog" || (parent.last == "_0" && parent.dropLast().last == "catalog")
            || parent.isEmpty || parent.last == "value"
        guard inCatalog else { return nil }
        switch last {
        case "tags", "numbers": return .elements
        case "byRegion", "byUUID": return .pairs
        default: return nil
        }
    }

    /// The library's changes in the same form, for comparison.
    static func form(_ changes: [StateChange]) -> [Change] {
        sorted(
            changes.map { Change(path: $0.path, hadValue: $0.oldValue != nil, hasValue: $0.newValue != nil) })
    }

    /// Whether two lists of changes are the same, comparing paths as bytes.
    static func same(_ lhs: [Change], _ rhs: [Change]) -> Bool {
        lhs.count == rhs.count
            && zip(lhs, rhs).allSatisfy {
                $0.path.utf8.elementsEqual($1.path.utf8) && $0.hadValue == $1.hadValue
                    && $0.hasValue == $1.hasValue
            }
    }
}

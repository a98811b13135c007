import Foundation

/// Writes the JSON objects that migrations produce, after checking that JSON can represent every
/// value in them.
///
/// It writes the JSON itself rather than through `JSONSerialization`, which must never see a value
/// JSON cannot represent (a `Date`, a type of the app, a NaN, a dictionary whose keys are not
/// strings: on Apple platforms it raises an Objective-C exception, which Swift cannot catch and
/// which ends the program, and on Linux it throws an error that names no value), and which would
/// write a number the reader kept the text of (see ``NumberTexts``) as a `Double`, and a `Decimal`
/// with fewer digits. ``data(from:at:keeping:)`` walks the object, writes every `String`,
/// `NSNumber`, `NSNull`, array and `[String: Any]` as `JSONEncoder` writes it, and throws
/// ``Invalid`` naming the path of the first value it cannot write, what that value is, and how the
/// archive writes such a value.
enum ArchiveJSONWriter {
    /// A value JSON cannot represent, or nesting deeper than JSON is read back.
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    /// Serializes `object`, an array or a dictionary; `path` names it in errors, such as `state`.
    ///
    /// A number recorded in `numberTexts` is written as the text it was read from.
    static func data(from object: Any, at path: String, keeping numberTexts: NumberTexts = NumberTexts())
        throws(Invalid) -> Data
    {
        var walk = Walk(root: path, numberTexts: numberTexts)
        try walk.write(object, depth: 0)
        return Data(walk.output)
    }

    /// The text `JSONEncoder` writes for `value`, which is finite: its shortest digits that read
    /// back as it, without a trailing `.0`.
    static func text(of value: Double) -> String {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// The text `JSONEncoder` writes for `value`, which is finite.
    static func text(of value: Float) -> String {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// One walk over a value: where it is, which Foundation collections enclose that place, and
    /// the JSON written so far.
    private struct Walk {
        var path: Path
        /// The `NSArray`s and `NSDictionary`s being walked, each with the length of its path: a
        /// Foundation collection, unlike a Swift one, can contain itself.
        var enclosing: [ObjectIdentifier: Int] = [:]
        let numberTexts: NumberTexts
        var output: [UInt8] = []

        init(root: String, numberTexts: NumberTexts) {
            path = Path(root: root)
            self.numberTexts = numberTexts
        }

        /// Writes `value` as JSON.
        mutating func write(_ value: Any, depth: Int) throws(Invalid) {
            if let string = value as? String { return write(string) }
            // Every Swift integer and floating-point type, `Bool` and `Decimal` bridge to `NSNumber`,
            // on Linux as on Apple platforms.
            if let number = value as? NSNumber { return try write(number) }
            if value is NSNull { return output.append(contentsOf: "null".utf8) }
            // Before the Swift casts below: on Linux, casting an `NSArray` or `NSDictionary` to a
            // Swift array or dictionary converts everything inside it first, without end when it
            // contains itself. (A Swift array or dictionary is never a class, so it is not cast here.)
            if type(of: value) is AnyClass {
                if let array = value as? NSArray {
                    let identity = try open(array)
                    defer { enclosing[identity] = nil }
                    return try write(FoundationCollection.elements(of: array), depth: depth)
                }
                if let object = value as? NSDictionary {
                    let identity = try open(object)
                    defer { enclosing[identity] = nil }
                    return try write(try stringKeyed(FoundationCollection.members(of: object)), depth: depth)
                }
            }
            if let array = value as? [Any] {
                return try write(array, depth: depth)
            }
            if let object = value as? [String: Any] {
                return try write(object, depth: depth)
            }
            if let object = value as? [AnyHashable: Any] {
                return try write(try stringKeyed(object.lazy.map { ($0.key.base, $0.value) }), depth: depth)
            }
            // Linux does not bridge CGFloat to NSNumber; Apple platforms did above.
            if let number = value as? CGFloat {
                guard number.isFinite else { throw nonFinite(Double(number), at: path) }
                return output.append(contentsOf: text(of: Double(number)).utf8)
            }
            // `Optional` values that got into an `Any`, such as the elements of an `[Int?]`: `nil` is
            // null.
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                guard let wrapped = mirror.children.first?.value else {
                    return output.append(contentsOf: "null".utf8)
                }
                return try write(wrapped, depth: depth)
            }
            let (name, advice) = JSONKind.nonJSON(value)
            throw Invalid(
                description: "the value at \(path) is \(name), which JSON cannot represent: store a "
                    + "string, a number, a boolean, an array, a [String: Any] or NSNull()"
                    + (advice.map { " (\($0))" } ?? ""))
        }

        /// Writes `number` as `JSONEncoder` writes the Swift value it holds, or as the text the
        /// reader read it from.
        private mutating func write(_ number: NSNumber) throws(Invalid) {
            if let text = numberTexts.text(of: number) { return output.append(contentsOf: text.utf8) }
            if JSONKind.isBoolean(number) {
                return output.append(contentsOf: (number.boolValue ? "true" : "false").utf8)
            }
            // A `Decimal` bridges to an `NSDecimalNumber`, whose digits a `Double` may not hold.
            if let decimal = number as? NSDecimalNumber {
                let value = decimal.decimalValue
                guard !value.isNaN else { throw nonFinite(.nan, at: path) }
                return output.append(contentsOf: value.description.utf8)
            }
            let text: String
            switch UInt8(bitPattern: number.objCType.pointee) {
            case UInt8(ascii: "c"), UInt8(ascii: "s"), UInt8(ascii: "i"), UInt8(ascii: "l"),
                UInt8(ascii: "q"):
                text = String(number.int64Value)
            case UInt8(ascii: "C"), UInt8(ascii: "S"), UInt8(ascii: "I"), UInt8(ascii: "L"),
                UInt8(ascii: "Q"):
                text = String(number.uint64Value)
            case UInt8(ascii: "f"):
                let value = number.floatValue
                guard value.isFinite else { throw nonFinite(Double(value), at: path) }
                text = ArchiveJSONWriter.text(of: value)
            default:
                let value = number.doubleValue
                guard value.isFinite else { throw nonFinite(value, at: path) }
                text = ArchiveJSONWriter.text(of: value)
            }
            output.append(contentsOf: text.utf8)
        }

        /// Writes `string` in quotes, escaping what JSON requires: quotes, backslashes and control
        /// characters.
        private mutating func write(_ string: String) {
            output.append(UInt8(ascii: "\""))
            for byte in string.utf8 {
                switch byte {
                case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
                case 0x0A: output.append(contentsOf: #"\n"#.utf8)
                case 0x0D: output.append(contentsOf: #"\r"#.utf8)
                case 0x09: output.append(contentsOf: #"\t"#.utf8)
                case 0..<0x20:
                    output.append(contentsOf: #"\u00"#.utf8)
                    output.append(ArchiveJSONWriter.hexDigits[Int(byte >> 4)])
                    output.append(ArchiveJSONWriter.hexDigits[Int(byte & 0xF)])
                default: output.append(byte)
                }
            }
            output.append(UInt8(ascii: "\""))
        }

        /// Records that `collection` encloses the values walked next, until the caller removes it
        /// from `enclosing`; throws when it already encloses this place, as a collection that
        /// contains itself does.
        private mutating func open(_ collection: AnyObject) throws(Invalid) -> ObjectIdentifier {
            let identity = ObjectIdentifier(collection)
            if let length = enclosing[identity] {
                let outer = Path(root: path.root, components: Array(path.components.prefix(length)))
                let kind = collection is NSArray ? "array" : "object"
                throw Invalid(
                    description: "the value at \(path) is the \(kind) at \(outer) that contains it, and "
                        + "JSON cannot represent a value that contains itself")
            }
            enclosing[identity] = path.components.count
            return identity
        }

        private mutating func write(_ array: [Any], depth: Int) throws(Invalid) {
            try enter(depth)
            output.append(UInt8(ascii: "["))
            for (index, element) in array.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                path.components.append(.index(index))
                try write(element, depth: depth + 1)
                path.components.removeLast()
            }
            output.append(UInt8(ascii: "]"))
        }

        private mutating func write(_ object: [String: Any], depth: Int) throws(Invalid) {
            try enter(depth)
            output.append(UInt8(ascii: "{"))
            var isFirst = true
            for (key, member) in object {
                if !isFirst { output.append(UInt8(ascii: ",")) }
                isFirst = false
                write(key)
                output.append(UInt8(ascii: ":"))
                path.components.append(.key(key))
                try write(member, depth: depth + 1)
                path.components.removeLast()
            }
            output.append(UInt8(ascii: "}"))
        }

        /// `members` keyed by their names, or ``Invalid`` naming the first key that is not a string.
        private func stringKeyed(_ members: some Sequence<(Any, Any)>) throws(Invalid) -> [String: Any] {
            var object: [String: Any] = [:]
            for (key, member) in members {
                guard let name = key as? String else {
                    let kind = JSONKind.of(key)
                    // Only a scalar is shown: a Foundation collection can contain itself, which makes its
                    // description endless.
                    let isScalar = kind != "an array" && kind != "an object"
                    throw Invalid(
                        description:
                            "the object at \(path) has the key \(isScalar ? "\(key), " : "")\(kind), but "
                            + "the keys of a JSON object are strings: use String keys, as JSONEncoder writes "
                            + "them" + (isScalar ? " (\"\(key)\")" : ""))
                }
                object[name] = member
            }
            return object
        }

        private func enter(_ depth: Int) throws(Invalid) {
            guard depth < ArchiveFormat.depthLimit else {
                throw Invalid(
                    description: "the value at \(path) nests arrays and objects deeper than "
                        + "\(ArchiveFormat.depthLimit) levels, the most JSON is read back with")
            }
        }
    }

    private static func nonFinite(_ value: Double, at path: Path) -> Invalid {
        let (name, string) =
            value.isNaN
            ? ("NaN", SnapshotCoder.notANumber)
            : value > 0
                ? ("infinity", SnapshotCoder.positiveInfinity) : ("-infinity", SnapshotCoder.negativeInfinity)
        return Invalid(
            description: "the value at \(path) is \(name), which JSON cannot represent: store the string "
                + "\"\(string)\", as the archive writes a Double that is \(name)")
    }

    /// Where a value is, such as `state.todos[3].due`, spelled only when an error names it.
    private struct Path: CustomStringConvertible {
        typealias Component = JSONPathComponent

        let root: String
        var components: [Component] = []

        init(root: String, components: [Component] = []) {
            self.root = root
            self.components = components
        }

        /// The path as ``SnapshotError`` writes coding paths: past 12 components, the first and last
        /// 5 around the number left out.
        var description: String {
            var segments = [root]
            for component in components {
                switch component {
                case .key(let key): segments.append(".\(key)")
                case .index(let index): segments.append("[\(index)]")
                }
            }
            return SnapshotError.abbreviated(segments)
        }
    }
}

/// Names values in errors by their JSON kind (a string, a number, a boolean, null, an array, an
/// object) rather than by a runtime class such as `__NSCFString` or `__NSCFBoolean`, which differ
/// between Apple platforms and Linux and mean nothing to a reader.
enum JSONKind {
    /// The class of the `NSNumber`s that hold `true` and `false` (`__NSCFBoolean` on Apple
    /// platforms and Linux alike), which no other number has.
    private static let booleanClass = ObjectIdentifier(type(of: NSNumber(value: true)))

    /// Whether `number` is a boolean (`true`, `false`, a Swift `Bool`), not a number.
    static func isBoolean(_ number: NSNumber) -> Bool {
        ObjectIdentifier(type(of: number)) == booleanClass
    }

    /// "a string", "a number", "a boolean", "null", "an array" or "an object"; for a value JSON cannot
    /// hold, its type, as in "a Date".
    static func of(_ value: Any) -> String {
        if value is String { return "a string" }
        if let number = value as? NSNumber { return isBoolean(number) ? "a boolean" : "a number" }
        if value is NSNull { return "null" }
        // Before the Swift casts below, which on Linux convert everything inside a Foundation
        // collection first, without end when it contains itself.
        if type(of: value) is AnyClass {
            if value is NSArray { return "an array" }
            if value is NSDictionary { return "an object" }
        }
        if value is [Any] { return "an array" }
        if value is [AnyHashable: Any] { return "an object" }
        return nonJSON(value).name
    }

    /// Names a value JSON cannot hold by its type, and says how the archive writes it if it does.
    static func nonJSON(_ value: Any) -> (name: String, advice: String?) {
        // Checked by cast, so that `NSDate`, `NSData`, `NSURL` and `NSUUID` objects are named too.
        switch value {
        case is Date:
            return ("a Date", "the archive writes a Date as the number date.timeIntervalSinceReferenceDate")
        case is Data:
            return ("Data", "the archive writes Data as the string data.base64EncodedString()")
        case is URL:
            return ("a URL", "the archive writes a URL as the string url.absoluteString")
        case is UUID:
            return ("a UUID", "the archive writes a UUID as the string uuid.uuidString")
        default:
            return ("a value of type \(typeName(of: value))", nil)
        }
    }

    /// The name of `value`'s type, or of its first superclass whose name does not start with `_`
    /// (runtime classes such as `__SwiftValue` are not what the program created).
    private static func typeName(of value: Any) -> String {
        var mirror: Mirror? = Mirror(reflecting: value)
        var name = String(describing: type(of: value))
        while name.hasPrefix("_"), let superclass = mirror?.superclassMirror {
            name = String(describing: superclass.subjectType)
            mirror = superclass
        }
        return name
    }
}

import Foundation

/// Migrations see an archived state as the objects `JSONSerialization` produces (`[String: Any]`,
/// `[Any]`, `String`, `NSNumber`, `NSNull`), made from ``JSONValue``, the library's one reader and
/// writer of JSON, so that they hold the same types on every platform and a value a migration does
/// not touch is written back exactly as it was read.
///
/// `JSONSerialization` would change values on the way: `JSONEncoder` writes `-0.0` as `-0`, which it
/// reads as the integer 0; swift-corelibs-foundation's drops a U+FEFF at the start of a string; a
/// number with more digits than a `Double` holds loses them. And it must never see a value JSON
/// cannot represent (a `Date`, a type of the app, a NaN, a dictionary whose keys are not strings):
/// on Apple platforms it raises an Objective-C exception, which Swift cannot catch and which ends
/// the program, and on Linux it throws an error that names no value.
extension JSONValue {
    /// The value as a Foundation object, recording in `numberTexts` each number whose text the
    /// conversion back would not give by itself.
    ///
    /// Integers that fit `Int` (or `UInt64`) become integer `NSNumber`s, `-0` becomes the double
    /// `-0.0`, and other numbers whose text `Double`'s gives back (as `JSONEncoder` writes a `Double`)
    /// become doubles. Any other number (more digits than a `Double` holds, an integer beyond
    /// `UInt64`, `1E2`) becomes an `NSDecimalNumber` (a double when `Decimal` cannot hold it or it is
    /// zero, to keep its sign), recorded with its text. `true` and `false` become boolean
    /// `NSNumber`s.
    func foundationObject(recording numberTexts: inout NumberTexts) -> Any {
        switch self {
        case .null: return NSNull()
        case .bool(let value): return NSNumber(value: value)
        case .string(let text): return text
        case .number(let text): return Self.foundationNumber(text, recording: &numberTexts)
        case .array(let elements):
            var array: [Any] = []
            array.reserveCapacity(elements.count)
            for element in elements { array.append(element.foundationObject(recording: &numberTexts)) }
            return array
        case .object(let members):
            var object: [String: Any] = [:]
            object.reserveCapacity(members.count)
            for (key, member) in members { object[key] = member.foundationObject(recording: &numberTexts) }
            return object
        }
    }

    private static func foundationNumber(_ text: String, recording numberTexts: inout NumberTexts) -> NSNumber
    {
        if !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }) {
            // JSONEncoder writes -0.0 as `-0`; it is a double, since no integer is negative zero.
            if text == "-0" { return NSNumber(value: -0.0) }
            if let value = Int(text) { return NSNumber(value: value) }
            if let value = UInt64(text) { return NSNumber(value: value) }
        }
        // Valid JSON number syntax always parses; numbers out of range become ±infinity.
        let double = Double(text) ?? .nan
        if Self.text(of: double) == text { return NSNumber(value: double) }
        // A Double would lose part of this number: keep its text for the way back, and hand out a
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

    /// A value JSON cannot represent, or nesting deeper than JSON is read back.
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    /// The JSON of `object`, a Foundation object or Swift value that a migration produced; `path`
    /// names it in errors, such as `state`.
    ///
    /// Every `String`, `NSNumber`, `NSNull`, array and `[String: Any]` becomes what `JSONEncoder`
    /// writes for it; a number recorded in `numberTexts` keeps the text it was read from. Anything
    /// else throws ``Invalid`` naming the path of the first such value, what it is, and how the
    /// archive writes such a value.
    init(foundationObject object: Any, at path: String, keeping numberTexts: NumberTexts = NumberTexts())
        throws(Invalid)
    {
        var conversion = Conversion(root: path, numberTexts: numberTexts)
        self = try conversion.value(object, depth: 0)
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

    /// One conversion of a Foundation object: where it is, and which Foundation collections enclose
    /// that place.
    private struct Conversion {
        var path: Path
        /// The `NSArray`s and `NSDictionary`s being walked, each with the length of its path: a
        /// Foundation collection, unlike a Swift one, can contain itself.
        var enclosing: [ObjectIdentifier: Int] = [:]
        let numberTexts: NumberTexts

        init(root: String, numberTexts: NumberTexts) {
            path = Path(root: root)
            self.numberTexts = numberTexts
        }

        private static let stringType = ObjectIdentifier(String.self)
        private static let objectType = ObjectIdentifier([String: Any].self)
        private static let arrayType = ObjectIdentifier([Any].self)

        mutating func value(_ value: Any, depth: Int) throws(Invalid) -> JSONValue {
            // The types the library's own reader makes, told by their exact type: a cast that fails
            // costs more than one that succeeds, and a state holds hundreds of thousands of values.
            let exactType = ObjectIdentifier(type(of: value))
            if exactType == Self.stringType, let string = value as? String { return .string(string) }
            if exactType == Self.objectType, let object = value as? [String: Any] {
                return try self.object(object, depth: depth)
            }
            if exactType == Self.arrayType, let array = value as? [Any] {
                return try self.array(array, depth: depth)
            }
            if let string = value as? String { return .string(string) }
            if type(of: value) is AnyClass {
                if let number = value as? NSNumber { return try self.number(number) }
                if value is NSNull { return .null }
                // Before any Swift collection cast: on Linux, casting an `NSArray` or `NSDictionary`
                // to a Swift array or dictionary converts everything inside it first, without end
                // when it contains itself.
                if let array = value as? NSArray {
                    let identity = try open(array)
                    defer { enclosing[identity] = nil }
                    return try self.array(FoundationCollection.elements(of: array), depth: depth)
                }
                if let object = value as? NSDictionary {
                    let identity = try open(object)
                    defer { enclosing[identity] = nil }
                    return try self.object(
                        try stringKeyed(FoundationCollection.members(of: object)), depth: depth)
                }
            } else {
                // Swift collections before `NSNumber`: casting one to a class bridges all of it to
                // an `NSDictionary` or `NSArray` first, only to fail, which made converting a state
                // of many objects several times slower than reading it.
                if let object = value as? [String: Any] { return try self.object(object, depth: depth) }
                if let array = value as? [Any] { return try self.array(array, depth: depth) }
                // Every Swift integer and floating-point type, `Bool` and `Decimal` bridge to
                // `NSNumber`, on Linux as on Apple platforms.
                if let number = value as? NSNumber { return try self.number(number) }
            }
            if let object = value as? [AnyHashable: Any] {
                return try self.object(
                    try stringKeyed(object.lazy.map { ($0.key.base, $0.value) }), depth: depth)
            }
            // Linux does not bridge CGFloat to NSNumber; Apple platforms did above.
            if let number = value as? CGFloat {
                guard number.isFinite else { throw JSONValue.nonFinite(Double(number), at: path) }
                return .number(JSONValue.text(of: Double(number)))
            }
            // `Optional` values that got into an `Any`, such as the elements of an `[Int?]`: `nil` is
            // null.
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                guard let wrapped = mirror.children.first?.value else { return .null }
                return try self.value(wrapped, depth: depth)
            }
            let (name, advice) = JSONKind.nonJSON(value)
            throw Invalid(
                description: "the value at \(path) is \(name), which JSON cannot represent: store a "
                    + "string, a number, a boolean, an array, a [String: Any] or NSNull()"
                    + (advice.map { " (\($0))" } ?? ""))
        }

        /// `number` as `JSONEncoder` writes the Swift value it holds, or as the text it was read from.
        private func number(_ number: NSNumber) throws(Invalid) -> JSONValue {
            if let text = numberTexts.text(of: number) { return .number(text) }
            if JSONKind.isBoolean(number) { return .bool(number.boolValue) }
            // A `Decimal` bridges to an `NSDecimalNumber`, whose digits a `Double` may not hold.
            if let decimal = number as? NSDecimalNumber {
                let value = decimal.decimalValue
                guard !value.isNaN else { throw JSONValue.nonFinite(.nan, at: path) }
                return .number(value.description)
            }
            switch UInt8(bitPattern: number.objCType.pointee) {
            case UInt8(ascii: "c"), UInt8(ascii: "s"), UInt8(ascii: "i"), UInt8(ascii: "l"),
                UInt8(ascii: "q"):
                return .number(String(number.int64Value))
            case UInt8(ascii: "C"), UInt8(ascii: "S"), UInt8(ascii: "I"), UInt8(ascii: "L"),
                UInt8(ascii: "Q"):
                return .number(String(number.uint64Value))
            case UInt8(ascii: "f"):
                let value = number.floatValue
                guard value.isFinite else { throw JSONValue.nonFinite(Double(value), at: path) }
                return .number(JSONValue.text(of: value))
            default:
                let value = number.doubleValue
                guard value.isFinite else { throw JSONValue.nonFinite(value, at: path) }
                return .number(JSONValue.text(of: value))
            }
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

        private mutating func array(_ array: [Any], depth: Int) throws(Invalid) -> JSONValue {
            try enter(depth)
            var elements: [JSONValue] = []
            elements.reserveCapacity(array.count)
            for (index, element) in array.enumerated() {
                path.components.append(.index(index))
                elements.append(try value(element, depth: depth + 1))
                path.components.removeLast()
            }
            return .array(elements)
        }

        private mutating func object(_ object: [String: Any], depth: Int) throws(Invalid) -> JSONValue {
            try enter(depth)
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(object.count)
            for (key, member) in object {
                path.components.append(.key(key))
                members[key] = try value(member, depth: depth + 1)
                path.components.removeLast()
            }
            return .object(members)
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
            guard depth < JSONNesting.readLimit else {
                throw Invalid(
                    description: "the value at \(path) nests arrays and objects deeper than "
                        + "\(JSONNesting.readLimit) levels, the most JSON is read back with")
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

/// The text of each number a conversion to Foundation objects produced that the conversion back
/// would not give by itself, so that a number a migration does not replace is written again exactly
/// as it was read.
///
/// A number is known by its identity: the conversion creates a new object for each such number (an
/// `NSDecimalNumber`, or a double `NSNumber` that is zero, infinite or beyond `Decimal`'s range),
/// and the record keeps it alive, so no other number can take its identity while the record lasts.
/// A number the migration leaves in place, or moves elsewhere, keeps its text.
struct NumberTexts {
    private var texts: [ObjectIdentifier: (number: NSNumber, text: String)] = [:]

    mutating func record(_ number: NSNumber, text: String) {
        texts[ObjectIdentifier(number)] = (number, text)
    }

    /// The text `number` was read from, if it is one the conversion recorded.
    func text(of number: NSNumber) -> String? {
        guard !texts.isEmpty, let entry = texts[ObjectIdentifier(number)], entry.number === number else {
            return nil
        }
        return entry.text
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

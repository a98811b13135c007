import Foundation

/// Writes the JSON objects that migrations and the removal of underscored keys produce, after
/// checking that JSON can represent every value in them.
///
/// `JSONSerialization` must never see a value JSON cannot represent (a `Date`, a type of the app, a
/// NaN, a dictionary whose keys are not strings): on Apple platforms it raises an Objective-C
/// exception, which Swift cannot catch and which ends the program, and on Linux it throws an error
/// that names no value. ``data(from:at:)`` first walks the object, converts every value to the
/// `String`, `NSNumber`, `NSNull`, `[Any]` or `[String: Any]` that `JSONSerialization` writes
/// alike on every platform, and throws ``Invalid`` naming the path of the first value it cannot
/// convert, what that value is, and how the archive writes such a value.
enum ArchiveJSONWriter {
    /// A value JSON cannot represent, or nesting deeper than JSON is read back.
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    /// Serializes `object`, an array or a dictionary; `path` names it in errors, such as `state`.
    static func data(from object: Any, at path: String) throws(Invalid) -> Data {
        var walk = Walk(root: path)
        let checked = try walk.canonical(object, depth: 0)
        // The walk lets through only what `JSONSerialization` writes; checked again because on Apple
        // platforms anything else raises an exception instead of throwing.
        guard JSONSerialization.isValidJSONObject(checked) else {
            throw Invalid(description: "\(path) holds a value JSON cannot represent")
        }
        do {
            return try JSONSerialization.data(withJSONObject: checked)
        } catch {
            throw Invalid(description: "\(path) could not be written as JSON: \(error.localizedDescription)")
        }
    }

    /// One walk over a value: where it is, and which Foundation collections enclose that place.
    private struct Walk {
        var path: Path
        /// The `NSArray`s and `NSDictionary`s being walked, each with the length of its path: a
        /// Foundation collection, unlike a Swift one, can contain itself.
        var enclosing: [ObjectIdentifier: Int] = [:]

        init(root: String) {
            path = Path(root: root)
        }

        /// `value` as the objects `JSONSerialization` writes alike on every platform.
        mutating func canonical(_ value: Any, depth: Int) throws(Invalid) -> Any {
            if let string = value as? String { return string }
            // Every Swift integer and floating-point type, `Bool` and `Decimal` bridge to `NSNumber`,
            // on Linux as on Apple platforms.
            if let number = value as? NSNumber {
                guard number.doubleValue.isFinite else { throw nonFinite(number.doubleValue, at: path) }
                return number
            }
            if value is NSNull { return NSNull() }
            // Before the Swift casts below: on Linux, casting an `NSArray` or `NSDictionary` to a
            // Swift array or dictionary converts everything inside it first, without end when it
            // contains itself. (A Swift array or dictionary is never a class, so it is not cast here.)
            if type(of: value) is AnyClass {
                if let array = value as? NSArray {
                    let identity = try open(array)
                    defer { enclosing[identity] = nil }
                    return try canonical(FoundationCollection.elements(of: array), depth: depth)
                }
                if let object = value as? NSDictionary {
                    let identity = try open(object)
                    defer { enclosing[identity] = nil }
                    return try canonical(
                        try stringKeyed(FoundationCollection.members(of: object)), depth: depth)
                }
            }
            if let array = value as? [Any] {
                return try canonical(array, depth: depth)
            }
            if let object = value as? [String: Any] {
                return try canonical(object, depth: depth)
            }
            if let object = value as? [AnyHashable: Any] {
                return try canonical(
                    try stringKeyed(object.lazy.map { ($0.key.base, $0.value) }), depth: depth)
            }
            // Linux does not bridge CGFloat to NSNumber; Apple platforms did above.
            if let number = value as? CGFloat {
                guard number.isFinite else { throw nonFinite(Double(number), at: path) }
                return NSNumber(value: Double(number))
            }
            // `Optional` values that got into an `Any`, such as the elements of an `[Int?]`: `nil` is
            // null.
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                guard let wrapped = mirror.children.first?.value else { return NSNull() }
                return try canonical(wrapped, depth: depth)
            }
            let (name, advice) = JSONKind.nonJSON(value)
            throw Invalid(
                description: "the value at \(path) is \(name), which JSON cannot represent: store a "
                    + "string, a number, a boolean, an array, a [String: Any] or NSNull()"
                    + (advice.map { " (\($0))" } ?? ""))
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

        private mutating func canonical(_ array: [Any], depth: Int) throws(Invalid) -> Any {
            try enter(depth)
            var converted: [Any] = []
            converted.reserveCapacity(array.count)
            for (index, element) in array.enumerated() {
                path.components.append(.index(index))
                converted.append(try canonical(element, depth: depth + 1))
                path.components.removeLast()
            }
            return converted
        }

        private mutating func canonical(_ object: [String: Any], depth: Int) throws(Invalid) -> Any {
            try enter(depth)
            var converted: [String: Any] = [:]
            converted.reserveCapacity(object.count)
            for (key, member) in object {
                path.components.append(.key(key))
                converted[key] = try canonical(member, depth: depth + 1)
                path.components.removeLast()
            }
            return converted
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

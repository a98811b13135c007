/// The error thrown by ``Store/snapshot()`` when a state cannot round-trip through JSON.
///
/// Its ``kind`` says whether encoding or decoding failed; it names the state type and the coding
/// path of the value that failed, such as `todos[3].due`. A state that nests arrays and objects
/// deeper than `JSONEncoder` writes, which is what a cyclic object graph does, fails to encode
/// with ``NestingTooDeep`` as its ``underlyingError``; a `Decimal` NaN (such as `1 / 0`), which JSON
/// cannot hold, fails to encode with an `EncodingError` naming its path:
///
/// ```swift
/// do {
///     let state = try store.snapshot()
/// } catch {
///     print(error)  // "Cannot decode AppState at todos[3].due: ..."
/// }
/// ```
public struct SnapshotError: Error, Sendable, CustomStringConvertible {
    /// What went wrong: the step of the round trip that failed.
    public enum Kind: Sendable, Equatable {
        /// The store's state could not be turned into JSON.
        case encodingFailed
        /// The JSON could not be turned back into a state value.
        case decodingFailed
    }

    /// What went wrong.
    public let kind: Kind
    /// The name of the state type, such as `"AppState"`.
    public let stateType: String
    /// Where in the state the failure happened, such as `"todos[3].due"`; empty for the root.
    public let codingPath: String
    /// The error the encoder or `JSONDecoder` reported: an `EncodingError` or `DecodingError`,
    /// ``NestingTooDeep``, or what the state's own `Codable` code threw.
    public let underlyingError: any Error
    /// The components of ``codingPath`` (`todos`, `[3]`, `.due`), for the abbreviated description.
    private let pathSegments: [String]

    /// The ``SnapshotError/underlyingError`` when a state nests arrays and objects deeper than
    /// `JSONEncoder` writes, which is what a cyclic object graph does without end.
    ///
    /// `JSONEncoder` refuses to write JSON nested more than ``limit`` levels (and older Apple
    /// systems overflow the stack instead), so the store stops at the
    /// first value past the limit, whose path the error names, before `JSONEncoder` starts. It
    /// stops there even where an `encode(to:)` would go on to discard that value with `try?`: going
    /// deeper is what overflows the stack. A cycle that adds no level (values written through
    /// single-value containers, `encode(to:)`s that pass their encoder on to a child's) ends the
    /// same way, where the 64 MiB stack the store encodes deep states on runs short; ``codingPath``
    /// is then where the cycle was when it did.
    public struct NestingTooDeep: Error, CustomStringConvertible, Sendable {
        /// The deepest nesting that round-trips: 511 levels of arrays and objects.
        public let limit: Int
        /// Where the first value past the limit is, such as `"next.next.next"`.
        public let codingPath: String
        /// The components of ``codingPath``.
        fileprivate let pathSegments: [String]
        /// Whether the encoding ran out of stack before its JSON reached the limit: its
        /// `encode(to:)` calls nest deeper than a thread holds, through values that add no level.
        let ranOutOfStack: Bool

        init(limit: Int, codingPath: [any CodingKey], ranOutOfStack: Bool = false) {
            self.limit = limit
            self.pathSegments = SnapshotError.segments(of: codingPath)
            self.codingPath = pathSegments.joined()
            self.ranOutOfStack = ranOutOfStack
        }

        /// A sentence naming the limit and the likely cause.
        public var description: String {
            if ranOutOfStack {
                return "the state's encode(to:) calls nest deeper than a thread's stack holds, through "
                    + "values that add no level of JSON (is there a cycle in its object graph?)"
            }
            return "the state nests arrays and objects deeper than \(limit) levels, the most JSONEncoder "
                + "writes (is there a cycle in its object graph?)"
        }
    }

    init(_ kind: Kind, stateType: Any.Type, underlyingError: any Error) {
        self.kind = kind
        self.stateType = String(reflecting: stateType)
        self.underlyingError = underlyingError
        self.pathSegments = Self.pathSegments(of: underlyingError)
        self.codingPath = pathSegments.joined()
    }

    /// A sentence naming the failed step, the type, the coding path and the underlying error's
    /// explanation, such as `Cannot encode AppState at todos[3].due: …`. A path of more than 12
    /// components, such as a cycle's, is abbreviated to its first and last 5, with the number left
    /// out between them; ``codingPath`` has it whole.
    public var description: String {
        let verb: String
        switch kind {
        case .encodingFailed: verb = "encode"
        case .decodingFailed: verb = "decode"
        }
        let location = pathSegments.isEmpty ? "" : " at \(Self.abbreviated(pathSegments))"
        return "Cannot \(verb) \(stateType)\(location): \(Self.reason(of: underlyingError))"
    }

    /// `segments` joined, or, past 12, the first and last 5 around `… (N more) …`.
    static func abbreviated(_ segments: [String]) -> String {
        let kept = 5
        guard segments.count > 12 else { return segments.joined() }
        var tail = segments.suffix(kept).joined()
        if tail.hasPrefix(".") { tail.removeFirst() }
        return segments.prefix(kept).joined() + " … (\(segments.count - 2 * kept) more) … " + tail
    }

    private static func pathSegments(of error: any Error) -> [String] {
        let path: [any CodingKey]
        switch error {
        case EncodingError.invalidValue(_, let context):
            path = context.codingPath
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.keyNotFound(_, let context), DecodingError.dataCorrupted(let context):
            path = context.codingPath
        case let error as NestingTooDeep:
            return error.pathSegments
        default:
            return []
        }
        var rendered = segments(of: path)
        // A missing key is reported at its container's path; name the key too.
        if case DecodingError.keyNotFound(let key, _) = error {
            rendered.append(rendered.isEmpty ? key.stringValue : ".\(key.stringValue)")
        }
        return rendered
    }

    /// The components of `path` as they are written: `todos`, `[3]`, `.due`.
    static func segments(of path: [any CodingKey]) -> [String] {
        var rendered: [String] = []
        for key in path {
            // Unkeyed containers report positions as keys named "Index 3" (or "3") with an int value.
            let isPosition =
                key.stringValue.hasPrefix("Index ") || key.stringValue == key.intValue.map(String.init)
            if let index = key.intValue, isPosition {
                rendered.append("[\(index)]")
            } else {
                rendered.append(rendered.isEmpty ? key.stringValue : ".\(key.stringValue)")
            }
        }
        return rendered
    }

    private static func reason(of error: any Error) -> String {
        switch error {
        case EncodingError.invalidValue(_, let context):
            return context.debugDescription
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.keyNotFound(_, let context), DecodingError.dataCorrupted(let context):
            return context.debugDescription
        default:
            return String(describing: error)
        }
    }
}

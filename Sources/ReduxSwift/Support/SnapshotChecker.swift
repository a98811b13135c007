import Foundation

/// Sits between a value's `encode(to:)` and `JSONEncoder`: every call is checked, then passed on,
/// so that `JSONEncoder` writes the JSON in one pass and never sees what it would crash on or
/// write as JSON that `JSONDecoder` cannot read back.
///
/// What it refuses, with an error, and nothing else:
/// - arrays and objects nested deeper than ``JSONNesting/limit`` (``SnapshotError/NestingTooDeep``,
///   which is also how a cyclic object graph ends), and `encode(to:)` calls nested deeper than the
///   deep stack holds (a cycle through single-value wrappers or `encode(to:)`s that flatten a
///   child into their own container), found by comparing the stack pointer with the thread's
///   stack at each checked `encode(to:)` and container request (see ``DeepStack``);
/// - a value that writes two values through its single-value container, or that asks for a keyed
///   and an unkeyed container, or for a container and a single value, or for a nested container
///   under a key that holds another value (`EncodingError`): `JSONEncoder` stops the program there;
/// - a `Decimal` NaN, which `JSONEncoder` writes as `NaN`, not JSON (`EncodingError`).
///
/// A misuse found in a call that cannot throw is recorded; the container it returns passes nothing
/// on, and the next call that can throw, or the end of the encoding, throws it.
///
/// **Members.** Refusing a nested container under a key that already holds a value needs the keys
/// each keyed container wrote, which costs a dictionary per object. Most types never ask for a
/// nested container, so keys are recorded only inside the `encode(to:)` of types seen doing so:
/// the first time a type asks for one, the encoding starts again, recording its keys (see
/// ``SnapshotEncoder``).
///
/// It also finds the paths of the unordered arrays (sets, and dictionaries written as arrays of
/// keys and values), for change sets.
final class SnapshotChecker {
    /// The position of one value in the JSON and what its `encode(to:)` has asked for so far; the
    /// encoder that value's `encode(to:)` writes through, passing each call on to `base`.
    final class Slot: Encoder {
        enum Kind {
            case empty
            case keyed
            case unkeyed
            case single
        }

        enum Component {
            case key(String)
            case index(Int)
        }

        // Exclusivity is unchecked on the mutable state below: one encoding runs on one thread.
        let checker: SnapshotChecker
        let parent: Slot?
        let component: Component?
        /// The JSON nesting level of the value: 0 for the root; its container is one level deeper.
        let level: Int
        /// Whether its keyed container records the keys it writes (see ``SnapshotChecker``).
        @exclusivity(unchecked) var tracksMembers: Bool
        @exclusivity(unchecked) var kind = Kind.empty
        /// The number of elements of its unkeyed container.
        @exclusivity(unchecked) var count = 0
        /// A filter of the keys its keyed container wrote values under: a bit per key, so that a
        /// nested container asked for under a key no value was written under needs no record.
        @exclusivity(unchecked) var writtenKeys: UInt64 = 0
        /// How many times a container was asked of it: an `encode(to:)` that writes a child's
        /// members into its own object through the same encoder recurses without a new level, and
        /// asks again at each (see ``SnapshotChecker/request(_:)``).
        @exclusivity(unchecked) var requests = 0
        /// What its keyed container holds under each key that has a nested container, and which
        /// keys hold a value: `JSONEncoder` stops the program when a nested container is asked for
        /// under a key that holds anything but a container of the same kind.
        @exclusivity(unchecked) var members: [String: Kind] = [:]
        /// The type of the value written here, or `nil` for a nested container or super encoder.
        @exclusivity(unchecked) var type: Any.Type?
        /// The type whose `encode(to:)` writes here: for a super encoder, the subclass.
        @exclusivity(unchecked) var owner: Any.Type = Never.self
        /// `JSONEncoder`'s encoder for this position, once the value is written; `nil` before, and
        /// when a misuse was found: nothing is passed on then.
        @exclusivity(unchecked) var base: (any Encoder)?

        init(
            checker: SnapshotChecker, parent: Slot?, component: Component?, level: Int,
            tracksMembers: Bool = false
        ) {
            self.checker = checker
            self.parent = parent
            self.component = component
            self.level = level
            self.tracksMembers = tracksMembers
        }

        /// A slot for a member or element of this value's container, written by a value of its own.
        func child(_ component: Component) -> Slot {
            Slot(checker: checker, parent: self, component: component, level: level + 1)
        }

        /// A slot for a nested container or super encoder: written by this value's `encode(to:)`.
        func nested(_ component: Component) -> Slot {
            let slot = Slot(
                checker: checker, parent: self, component: component, level: level + 1,
                tracksMembers: tracksMembers)
            slot.owner = owner
            return slot
        }

        /// A slot for the value this one writes through its single-value container: the same
        /// position, not yet written.
        func replacement() -> Slot {
            Slot(checker: checker, parent: parent, component: component, level: level)
        }

        var components: [Component] {
            var components: [Component] = []
            var slot: Slot? = self
            while let current = slot {
                if let component = current.component { components.append(component) }
                slot = current.parent
            }
            return components.reversed()
        }

        /// The coding path of this position, for errors.
        var path: [any CodingKey] {
            components.map { component in
                switch component {
                case .key(let key): return CheckedKey(stringValue: key)
                case .index(let index): return IndexKey(intValue: index)
                }
            }
        }

        /// The path as change sets write it: `todos.3.tags`.
        var statePath: String {
            components.reduce(into: "") { path, component in
                switch component {
                case .key(let key): path = StatePath.appending(key, to: path)
                case .index(let index): path = StatePath.appending(String(index), to: path)
                }
            }
        }

        // MARK: Encoder

        var codingPath: [any CodingKey] { base?.codingPath ?? path }
        var userInfo: [CodingUserInfoKey: Any] { base?.userInfo ?? [:] }

        func container<Key: CodingKey>(keyedBy keyType: Key.Type) -> KeyedEncodingContainer<Key> {
            let passes = checker.request(self) && checker.open(self, as: .keyed, type: type)
            return KeyedEncodingContainer(
                CheckingKeyedContainer<Key>(
                    slot: self, base: passes ? base?.container(keyedBy: Key.self) : nil))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            let passes = checker.request(self) && checker.open(self, as: .unkeyed, type: type)
            return CheckingUnkeyedContainer(slot: self, base: passes ? base?.unkeyedContainer() : nil)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            CheckingSingleValueContainer(
                slot: self, base: checker.request(self) ? base?.singleValueContainer() : nil)
        }
    }

    /// Whether the encoding runs on the ``DeepStack``, where running out of stack is the end.
    let onDeepStack: Bool
    /// The address below which an `encode(to:)` or a container request finds too little stack left
    /// for what may follow it (see ``DeepStack/callerMargin`` and ``DeepStack/margin``); 0 when the
    /// thread's stack is unknown, and ``callLimit`` guards instead.
    let stackFloor: UInt
    /// The deepest nesting of `encode(to:)` calls, and the most container requests of one value,
    /// where the thread's stack is unknown (see ``DeepStack/callerCallLimit``); `Int.max` where
    /// ``stackFloor`` guards.
    let callLimit: Int
    /// The types whose keyed containers record the keys they write.
    let trackedTypes: Set<ObjectIdentifier>
    /// The type that asked for a nested container where keys were not recorded: the encoding must
    /// start again with it in ``trackedTypes``.
    @exclusivity(unchecked) private(set) var newlyTrackedType: ObjectIdentifier?
    /// Whether some `encode(to:)` call or container request found too little stack left on a
    /// thread that is not the deep stack: the encoding must start again there, even if a `try?`
    /// swallowed the error.
    @exclusivity(unchecked) private(set) var needsDeepStack = false
    /// Whether `encode(to:)` calls nested, containers nested, or one value's container requests
    /// numbered more than ``DeepStack/callerCallLimit``: reading the JSON back may recurse as deep,
    /// which is more than a reader's thread may have (it may not be this one, nor have its stack),
    /// so it is decoded on the deep stack.
    @exclusivity(unchecked) private(set) var decodesOnDeepStack = false
    @exclusivity(unchecked) private var callDepth = 0
    /// The first misuse found; every later call that can throw throws it.
    @exclusivity(unchecked) var failure: (any Error)?
    /// Path → whether the unordered array there alternates keys and values.
    @exclusivity(unchecked) private(set) var unorderedPaths: [String: Bool] = [:]
    /// Whether a `Decimal` NaN was passed on, which `JSONEncoder` writes as a bare `NaN`.
    @exclusivity(unchecked) private var passedDecimalNaN = false
    /// Whether a `Double` or `Float` that is NaN or infinite was passed on, or a `Date` whose
    /// interval is: `JSONEncoder` writes it as a string (see ``EncodedSnapshot/floatStrings``).
    @exclusivity(unchecked) private(set) var passedFloatString = false
    /// The first string passed on that is one those floats are written as, and where it is.
    @exclusivity(unchecked) private(set) var floatLikeStringPath: (text: String, codingPath: [any CodingKey])?
    /// The variant of strings those floats are written as (see ``SnapshotCoder``).
    @exclusivity(unchecked) var floatStringVariant = 0

    init(onDeepStack: Bool, trackedTypes: Set<ObjectIdentifier>) {
        self.onDeepStack = onDeepStack
        if let bounds = ThreadStack.bounds() {
            stackFloor = max(
                bounds.lowest + UInt(onDeepStack ? DeepStack.margin : DeepStack.callerMargin),
                bounds.highest - min(bounds.highest, ThreadStack.sanitizerLimit))
            callLimit = .max
        } else {
            stackFloor = 0
            callLimit = onDeepStack ? DeepStack.callLimit : DeepStack.callerCallLimit
        }
        self.trackedTypes = trackedTypes
    }

    /// Whether `JSONEncoder` writes values of `type` itself, without calling their `encode(to:)`,
    /// or they write one scalar: such values are passed on as they are.
    static func isWrittenDirectly(_ type: Any.Type) -> Bool {
        type == String.self || type == Int.self || type == Bool.self || type == Double.self
            || type == Date.self || type == Data.self || type == URL.self || type == Decimal.self
            || type == Float.self
    }

    /// Whether a value of `type` placed at `level` is passed on as it is: a value `JSONEncoder`
    /// writes itself, or an array of scalars that adds its one level within the limit, which
    /// `JSONEncoder` writes on a fast path of its own.
    static func isPassedAsIs(_ type: Any.Type, at level: Int) -> Bool {
        if isWrittenDirectly(type) { return true }
        guard level < JSONNesting.limit else { return false }
        return type == [String].self || type == [Int].self || type == [Double].self || type == [Bool].self
    }

    /// Throws the recorded misuse, and notes a `Decimal` NaN, which is an error only if it reaches
    /// the JSON (see ``decimalNaNError(in:)``), and the floats and strings that JSON writes alike.
    func checkScalar<Value>(_ value: Value, at path: @autoclosure () -> [any CodingKey]) throws {
        if let failure { throw failure }
        // Passed on all the same: whether it reaches the JSON is known only at the end, since an
        // `encode(to:)` may overwrite the key or throw and have a `try?` discard the member.
        if Value.self == Decimal.self, (value as? Decimal)?.isNaN == true { passedDecimalNaN = true }
        // Compared as types first: a cast is only tried for the one type it can be.
        let type = Value.self
        if type == Double.self {
            noteFloat(value as! Double)
        } else if type == Float.self {
            noteFloat(Double(value as! Float))
        } else if type == Date.self {
            noteFloat((value as! Date).timeIntervalSinceReferenceDate)
        } else if type == String.self {
            noteString(value as! String, at: path())
        } else if type == URL.self {
            noteString((value as! URL).absoluteString, at: path())
        } else if type == [Double].self {
            if (value as! [Double]).contains(where: { !$0.isFinite }) { passedFloatString = true }
        } else if type == [String].self {
            let texts = value as! [String]
            if let index = texts.firstIndex(where: {
                SnapshotCoder.isFloatString($0, variant: floatStringVariant)
            }) {
                noteString(texts[index], at: path() + [IndexKey(intValue: index)])
            }
        } else if type == Data.self, case let data = value as! Data, data.count == 6 {
            // Base64 text can be "Infinity" (six bytes); no other float string is Base64.
            noteString(data.base64EncodedString(), at: path())
        }
    }

    /// Notes a `Double` that `JSONEncoder` writes as a string.
    func noteFloat(_ value: Double) {
        if !value.isFinite { passedFloatString = true }
    }

    /// Notes a string that is one those `Double`s are written as.
    func noteString(_ text: String, at path: @autoclosure () -> [any CodingKey]) {
        if floatLikeStringPath == nil, SnapshotCoder.isFloatString(text, variant: floatStringVariant) {
            floatLikeStringPath = (text, path())
        }
    }

    /// The error of a `Decimal` NaN that reached `data`, `JSONEncoder`'s output, as the bare `NaN`
    /// it writes for one, naming where it stands; `nil` when none did.
    func decimalNaNError(in data: Data) -> EncodingError? {
        guard passedDecimalNaN, let path = Self.pathOfBareNaN(in: data) else { return nil }
        return EncodingError.invalidValue(
            Decimal.nan,
            EncodingError.Context(
                codingPath: path,
                debugDescription: "a Decimal NaN (such as a division by zero), which JSON cannot hold"))
    }

    /// The path of the first `NaN` that stands in `json` outside its strings, or `nil`.
    static func pathOfBareNaN(in json: Data) -> [any CodingKey]? {
        json.withUnsafeBytes { bytes -> [any CodingKey]? in
            // Each open container: its key so far (objects) or its element's index (arrays).
            var frames: [(isObject: Bool, key: String, index: Int)] = []
            var expectsKey = false
            var index = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    var end = index + 1
                    while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                        end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
                    }
                    if expectsKey, !frames.isEmpty {
                        frames[frames.count - 1].key = String(
                            decoding: bytes[(index + 1)..<min(end, bytes.count)], as: UTF8.self)
                    }
                    index = end
                case UInt8(ascii: "{"):
                    frames.append((true, "", 0))
                    expectsKey = true
                case UInt8(ascii: "["):
                    frames.append((false, "", 0))
                    expectsKey = false
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if !frames.isEmpty { frames.removeLast() }
                    expectsKey = false
                case UInt8(ascii: ":"):
                    expectsKey = false
                case UInt8(ascii: ","):
                    if frames.last?.isObject == true {
                        expectsKey = true
                    } else if !frames.isEmpty {
                        frames[frames.count - 1].index += 1
                    }
                case UInt8(ascii: "N"):
                    return frames.map { frame -> any CodingKey in
                        frame.isObject ? CheckedKey(stringValue: frame.key) : IndexKey(intValue: frame.index)
                    }
                default:
                    break
                }
                index += 1
            }
            return nil
        }
    }

    /// Writes `value` into `slot` through `base`: a value `JSONEncoder` writes itself as it is,
    /// any other through its own `encode(to:)`, checked.
    func write<Value: Encodable>(_ value: Value, in slot: Slot, to base: any Encoder) throws {
        if let failure { throw failure }
        // One of the two always passes: the floor is 0 where the limit counts, and the limit is
        // `Int.max` where the floor guards.
        guard ThreadStack.currentAddress() > stackFloor, callDepth < callLimit else {
            throw outOfStack(at: slot)
        }
        callDepth += 1
        defer { callDepth -= 1 }
        if callDepth > DeepStack.callerCallLimit { decodesOnDeepStack = true }
        slot.type = Value.self
        slot.owner = Value.self
        slot.base = base
        if !slot.tracksMembers, !trackedTypes.isEmpty, trackedTypes.contains(ObjectIdentifier(Value.self)) {
            slot.tracksMembers = true
        }
        try value.encode(to: slot)
        if let failure { throw failure }
    }

    /// Counts a request for `slot`'s container, and says whether it may be passed on. An
    /// `encode(to:)` that passes its encoder on to a child's, or a super encoder to a child's,
    /// recurses without a checked call and maybe without a new level: where the stack runs short
    /// (in a cycle, it does), the encoding starts again on the deep stack, or fails as nested too
    /// deep there.
    func request(_ slot: Slot) -> Bool {
        guard failure == nil else { return false }
        slot.requests += 1
        if slot.requests > DeepStack.callerCallLimit { decodesOnDeepStack = true }
        guard ThreadStack.currentAddress() > stackFloor, slot.requests <= callLimit else {
            failure = outOfStack(at: slot)
            return false
        }
        return true
    }

    /// What running out of stack at `slot` throws: on the calling thread, the request to start
    /// again on the deep stack; on the deep stack, ``SnapshotError/NestingTooDeep``, which is how a
    /// cycle ends, whatever kinds of `encode(to:)` it goes through.
    private func outOfStack(at slot: Slot) -> any Error {
        guard onDeepStack else {
            needsDeepStack = true
            return NeedsDeepStack()
        }
        return SnapshotError.NestingTooDeep(
            limit: JSONNesting.limit, codingPath: slot.path, ranOutOfStack: true)
    }

    /// Opens `slot`'s container of `kind`, or records why `JSONEncoder` would stop the program.
    /// Returns whether the container may be passed on to `JSONEncoder`.
    func open(_ slot: Slot, as kind: Slot.Kind, type: Any.Type?) -> Bool {
        guard failure == nil else { return false }
        if slot.level >= JSONNesting.limit {
            failure = SnapshotError.NestingTooDeep(limit: JSONNesting.limit, codingPath: slot.path)
            return false
        }
        if slot.level >= DeepStack.callerCallLimit { decodesOnDeepStack = true }
        if slot.kind == kind { return true }
        guard slot.kind == .empty else {
            misuse(
                slot,
                "a value asked for a \(kind == .keyed ? "keyed" : "unkeyed") container after it "
                    + (slot.kind == .single ? "wrote a single value" : "asked for another kind of container"))
            return false
        }
        slot.kind = kind
        if kind == .unkeyed, let type, type is any UnorderedCollection.Type {
            unorderedPaths[slot.statePath] = type is any DictionaryMarker.Type
        }
        return true
    }

    /// The slot of a nested container of `kind` under `key` of `slot`'s keyed container, and
    /// whether the container may be passed on to `JSONEncoder`; or records why it would stop the
    /// program, or that keys must be recorded for `owner`.
    func nested(_ kind: Slot.Kind, at key: String, of slot: Slot) -> (Slot, Bool) {
        let child = slot.nested(.key(key))
        guard failure == nil else { return (child, false) }
        guard slot.tracksMembers || slot.writtenKeys & Self.filterBit(of: key) == 0 else {
            // A value may have been written under this key, and keys are not recorded here: start
            // again, recording them for this type.
            newlyTrackedType = ObjectIdentifier(slot.owner)
            failure = SnapshotEncoder.StartAgain()
            return (child, false)
        }
        if let existing = slot.members[key], existing != kind {
            misuse(child, "a value asked for a nested container under a key that already holds another value")
            return (child, false)
        }
        slot.members[key] = kind
        return (child, open(child, as: kind, type: nil))
    }

    /// The bit of a key in ``Slot/writtenKeys``.
    static func filterBit(of key: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return 1 << (hash >> 58)
    }

    /// Marks `slot`'s single value written, or records and throws why `JSONEncoder` would stop the
    /// program.
    func writeSingle(_ slot: Slot) throws {
        if let failure { throw failure }
        guard slot.kind == .empty else {
            misuse(
                slot,
                slot.kind == .single
                    ? "a value wrote two values through its single-value container"
                    : "a value wrote a single value after it asked for a container")
            throw failure!
        }
        slot.kind = .single
    }

    private func misuse(_ slot: Slot, _ description: String) {
        failure = EncodingError.invalidValue(
            description, EncodingError.Context(codingPath: slot.path, debugDescription: description))
    }
}

/// A value `JSONEncoder` received wrapped, which an error it throws may name.
protocol CheckedValue {
    /// The value the app's state holds.
    var wrapped: Any { get }
    /// The name `JSONEncoder` gives the wrapper, and the value's own.
    static var names: (wrapper: String, value: String) { get }
}

/// A value whose `encode(to:)` runs through the checker: what `JSONEncoder` receives in its place.
struct Checked<Value: Encodable>: Encodable, CheckedValue {
    let value: Value
    let slot: SnapshotChecker.Slot

    var wrapped: Any { value }
    static var names: (wrapper: String, value: String) { ("\(Self.self)", "\(Value.self)") }

    func encode(to encoder: any Encoder) throws {
        try slot.checker.write(value, in: slot, to: encoder)
    }
}

/// A position in an unkeyed container, named as `JSONEncoder` names it in a coding path.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

/// A key of a path the checker reports.
private struct CheckedKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

private struct CheckingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: SnapshotChecker.Slot
    var checker: SnapshotChecker { slot.checker }
    /// `JSONEncoder`'s container, or `nil` when a misuse was found: nothing is passed on then.
    var base: KeyedEncodingContainer<Key>?

    var codingPath: [any CodingKey] { base?.codingPath ?? slot.path }

    private func note(_ key: Key) throws {
        if let failure = checker.failure { throw failure }
        let name = key.stringValue
        slot.writtenKeys |= SnapshotChecker.filterBit(of: name)
        if slot.tracksMembers { slot.members[name] = .single }
    }

    mutating func encodeNil(forKey key: Key) throws {
        try note(key)
        try base?.encodeNil(forKey: key)
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try note(key)
        try base?.encode(value, forKey: key)
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        checker.noteString(value, at: slot.path + [CheckedKey(stringValue: key.stringValue)])
        try note(key)
        try base?.encode(value, forKey: key)
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        checker.noteFloat(value)
        try note(key)
        try base?.encode(value, forKey: key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        checker.noteFloat(Double(value))
        try note(key)
        try base?.encode(value, forKey: key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        try note(key)
        try base?.encode(value, forKey: key)
    }
    mutating func encode(_ value: Int8, forKey key: Key) throws {
        try note(key)
        try base?.encode(value, forKey: key)
    }
    mutating func encode(_ value: Int16, forKey key: Key) throws {
        try note(key)
        try base?.encode(value, forKey: key)
    }
    mutating func encode(_ value: Int32, forKey key: Key) throws {
        try note(key)
        try base?.encode(value, forKey: key)
    }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
        try note(key)
        try base?.encode(value, forKey: key)
    }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        try note(key)
        try base?.encode(value, forKey: key)
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        try note(key)
        try base?.encode(value, forKey: key)
    }
    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        try note(key)
        try base?.encode(value, forKey: key)
    }
    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        try note(key)
        try base?.encode(value, forKey: key)
    }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        try note(key)
        try base?.encode(value, forKey: key)
    }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws {
        try note(key)
        try base?.encode(value, forKey: key)
    }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws {
        try note(key)
        try base?.encode(value, forKey: key)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try note(key)
        if SnapshotChecker.isPassedAsIs(T.self, at: slot.level + 1) {
            try checker.checkScalar(value, at: slot.path + [CheckedKey(stringValue: key.stringValue)])
            try base?.encode(value, forKey: key)
        } else {
            let checked = Checked(value: value, slot: slot.child(.key(key.stringValue)))
            try base?.encode(checked, forKey: key)
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let (child, passes) = checker.nested(.keyed, at: key.stringValue, of: slot)
        return KeyedEncodingContainer(
            CheckingKeyedContainer<NestedKey>(
                slot: child, base: passes ? base?.nestedContainer(keyedBy: NestedKey.self, forKey: key) : nil)
        )
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let (child, passes) = checker.nested(.unkeyed, at: key.stringValue, of: slot)
        return CheckingUnkeyedContainer(
            slot: child, base: passes ? base?.nestedUnkeyedContainer(forKey: key) : nil)
    }

    mutating func superEncoder() -> any Encoder {
        let child = slot.nested(.key("super"))
        if checker.failure == nil { child.base = base?.superEncoder() }
        return child
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let child = slot.nested(.key(key.stringValue))
        if checker.failure == nil { child.base = base?.superEncoder(forKey: key) }
        return child
    }
}

private struct CheckingUnkeyedContainer: UnkeyedEncodingContainer {
    let slot: SnapshotChecker.Slot
    var checker: SnapshotChecker { slot.checker }
    /// `JSONEncoder`'s container, or `nil` when a misuse was found: nothing is passed on then.
    var base: (any UnkeyedEncodingContainer)?

    var codingPath: [any CodingKey] { base?.codingPath ?? slot.path }
    var count: Int { slot.count }

    private func scalar() throws {
        if let failure = checker.failure { throw failure }
        slot.count += 1
    }

    /// Counts a scalar element, which the caller then passes on.
    private func passing() throws { try scalar() }

    /// The slot of the next element, written by a value of its own.
    private func nextChild() -> SnapshotChecker.Slot {
        defer { slot.count += 1 }
        return slot.child(.index(slot.count))
    }

    /// The slot of the next element, written by this container's own `encode(to:)`.
    private func nextNested() -> SnapshotChecker.Slot {
        defer { slot.count += 1 }
        return slot.nested(.index(slot.count))
    }

    mutating func encodeNil() throws {
        try passing()
        try base?.encodeNil()
    }
    mutating func encode(_ value: Bool) throws {
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: String) throws {
        checker.noteString(value, at: slot.path + [IndexKey(intValue: slot.count)])
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: Double) throws {
        checker.noteFloat(value)
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: Float) throws {
        checker.noteFloat(Double(value))
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: Int) throws {
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: Int8) throws {
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: Int16) throws {
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: Int32) throws {
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: Int64) throws {
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: UInt) throws {
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: UInt8) throws {
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: UInt16) throws {
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: UInt32) throws {
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: UInt64) throws {
        try passing()
        try base?.encode(value)
    }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: Int128) throws {
        try passing()
        try base?.encode(value)
    }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: UInt128) throws {
        try passing()
        try base?.encode(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if let failure = checker.failure { throw failure }
        if SnapshotChecker.isPassedAsIs(T.self, at: slot.level + 1) {
            try checker.checkScalar(value, at: slot.path + [IndexKey(intValue: slot.count)])
            slot.count += 1
            try base?.encode(value)
        } else {
            let checked = Checked(value: value, slot: nextChild())
            try base?.encode(checked)
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = nextNested()
        let passes = checker.open(child, as: .keyed, type: nil)
        return KeyedEncodingContainer(
            CheckingKeyedContainer<NestedKey>(
                slot: child, base: passes ? base?.nestedContainer(keyedBy: NestedKey.self) : nil))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = nextNested()
        let passes = checker.open(child, as: .unkeyed, type: nil)
        return CheckingUnkeyedContainer(slot: child, base: passes ? base?.nestedUnkeyedContainer() : nil)
    }

    mutating func superEncoder() -> any Encoder {
        let child = nextNested()
        if checker.failure == nil { child.base = base?.superEncoder() }
        return child
    }
}

private struct CheckingSingleValueContainer: SingleValueEncodingContainer {
    let slot: SnapshotChecker.Slot
    var checker: SnapshotChecker { slot.checker }
    /// `JSONEncoder`'s container, or `nil` when a misuse was found: nothing is passed on then.
    var base: (any SingleValueEncodingContainer)?

    var codingPath: [any CodingKey] { base?.codingPath ?? slot.path }

    /// Marks the single value written, which the caller then passes on.
    private func passing() throws { try checker.writeSingle(slot) }

    mutating func encodeNil() throws {
        try passing()
        try base?.encodeNil()
    }
    mutating func encode(_ value: Bool) throws {
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: String) throws {
        checker.noteString(value, at: slot.path)
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: Double) throws {
        checker.noteFloat(value)
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: Float) throws {
        checker.noteFloat(Double(value))
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: Int) throws {
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: Int8) throws {
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: Int16) throws {
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: Int32) throws {
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: Int64) throws {
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: UInt) throws {
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: UInt8) throws {
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: UInt16) throws {
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: UInt32) throws {
        try passing()
        try base?.encode(value)
    }
    mutating func encode(_ value: UInt64) throws {
        try passing()
        try base?.encode(value)
    }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: Int128) throws {
        try passing()
        try base?.encode(value)
    }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: UInt128) throws {
        try passing()
        try base?.encode(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try checker.writeSingle(slot)
        if SnapshotChecker.isPassedAsIs(T.self, at: slot.level) {
            try checker.checkScalar(value, at: slot.path)
            try base?.encode(value)
        } else {
            let checked = Checked(value: value, slot: slot.replacement())
            try base?.encode(checked)
        }
    }
}

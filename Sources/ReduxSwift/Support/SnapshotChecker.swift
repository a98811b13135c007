import Foundation

/// Walks a value's `encode(to:)` without writing anything, before `JSONEncoder` writes a value that
/// strays from ``SnapshotEncoder``'s fast path.
///
/// It refuses, with an error, what would make `JSONEncoder` overflow the stack or stop the
/// program, and nothing else:
/// - arrays and objects nested deeper than ``JSONNesting/limit`` (``SnapshotError/NestingTooDeep``,
///   which is also how a cyclic object graph ends), and `encode(to:)` calls nested deeper than
///   the thread's call limit (a cycle through single-value wrappers);
/// - a value that writes two values through its single-value container, or that asks for a keyed
///   and an unkeyed container, or for a container and a single value (`EncodingError`).
///
/// It also finds the paths of the unordered arrays (sets, and dictionaries written as arrays of
/// keys and values) of the JSON `JSONEncoder` will write, for change sets.
final class SnapshotChecker {
    /// The position of one value in the JSON, and what its `encode(to:)` has asked for so far.
    final class Slot {
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

        let parent: Slot?
        let component: Component?
        /// The JSON nesting level of the value: 0 for the root; its container is one level deeper.
        let level: Int
        var kind = Kind.empty
        /// The number of elements of its unkeyed container.
        var count = 0
        /// What its keyed container holds under each key that has a nested container, and which
        /// keys hold a value: `JSONEncoder` stops the program when a nested container is asked for
        /// under a key that holds anything but a container of the same kind.
        var members: [String: Kind] = [:]

        init(parent: Slot?, component: Component?, level: Int) {
            self.parent = parent
            self.component = component
            self.level = level
        }

        /// A slot for a member or element of this value's container.
        func child(_ component: Component) -> Slot {
            Slot(parent: self, component: component, level: level + 1)
        }

        /// A slot for the value this one writes through its single-value container: the same
        /// position, not yet written.
        func replacement() -> Slot {
            Slot(parent: parent, component: component, level: level)
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

        var codingPath: [any CodingKey] {
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
    }

    let callLimit: Int
    private var callDepth = 0
    /// The first misuse found in a call that cannot throw; every later call throws it.
    var failure: (any Error)?
    /// Path → whether the unordered array there alternates keys and values.
    private(set) var unorderedPaths: [String: Bool] = [:]

    init(callLimit: Int) {
        self.callLimit = callLimit
    }

    /// Walks `value`, throwing what `JSONEncoder` could not survive.
    func check<Value: Encodable>(_ value: Value) throws {
        try checkValue(value, in: Slot(parent: nil, component: nil, level: 0))
        if let failure { throw failure }
    }

    func checkValue<Value: Encodable>(_ value: Value, in slot: Slot) throws {
        if let failure { throw failure }
        if Self.isPrimitive(Value.self) { return }
        guard callDepth < callLimit else {
            if callLimit < DeepStack.callLimit { throw NeedsDeepStack() }
            throw SnapshotError.NestingTooDeep(limit: JSONNesting.limit, codingPath: slot.codingPath)
        }
        callDepth += 1
        defer { callDepth -= 1 }
        try value.encode(to: CheckingEncoder(checker: self, slot: slot, type: Value.self))
        if let failure { throw failure }
    }

    /// The types `JSONEncoder` writes itself, or that write one scalar.
    private static func isPrimitive(_ type: Any.Type) -> Bool {
        type == String.self || type == Int.self || type == Bool.self || type == Double.self
            || type == Date.self || type == Data.self || type == URL.self || type == Decimal.self
            || type == Float.self
    }

    /// Opens `slot`'s container of `kind`, or records why `JSONEncoder` would stop the program.
    func open(_ slot: Slot, as kind: Slot.Kind, type: Any.Type?) {
        guard failure == nil else { return }
        if slot.level >= JSONNesting.limit {
            failure = SnapshotError.NestingTooDeep(limit: JSONNesting.limit, codingPath: slot.codingPath)
            return
        }
        if slot.kind == kind { return }
        guard slot.kind == .empty else {
            return misuse(
                slot,
                "a value asked for a \(kind == .keyed ? "keyed" : "unkeyed") container after it "
                    + (slot.kind == .single ? "wrote a single value" : "asked for another kind of container"))
        }
        slot.kind = kind
        if kind == .unkeyed, let type, type is any UnorderedCollection.Type {
            unorderedPaths[slot.statePath] = type is any DictionaryMarker.Type
        }
    }

    /// Records that `slot`'s keyed container wrote a value under `key`.
    func noteMember(_ key: String, of slot: Slot) throws {
        if let failure { throw failure }
        slot.members[key] = .single
    }

    /// The slot of a nested container of `kind` under `key` of `slot`'s keyed container, or records
    /// why `JSONEncoder` would stop the program.
    func nested(_ kind: Slot.Kind, at key: String, of slot: Slot) -> Slot {
        let child = slot.child(.key(key))
        if let existing = slot.members[key], existing != kind, failure == nil {
            misuse(child, "a value asked for a nested container under a key that already holds another value")
        }
        slot.members[key] = kind
        open(child, as: kind, type: nil)
        return child
    }

    /// Marks `slot`'s single value written, or records why `JSONEncoder` would stop the program.
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
            description, EncodingError.Context(codingPath: slot.codingPath, debugDescription: description))
    }
}

/// A key of a path the checker reports.
private struct CheckedKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

private struct CheckingEncoder: Encoder {
    let checker: SnapshotChecker
    let slot: SnapshotChecker.Slot
    var type: Any.Type?

    var codingPath: [any CodingKey] { slot.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy keyType: Key.Type) -> KeyedEncodingContainer<Key> {
        checker.open(slot, as: .keyed, type: type)
        return KeyedEncodingContainer(CheckingKeyedContainer<Key>(checker: checker, slot: slot))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        checker.open(slot, as: .unkeyed, type: type)
        return CheckingUnkeyedContainer(checker: checker, slot: slot)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        CheckingSingleValueContainer(checker: checker, slot: slot)
    }
}

private struct CheckingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let checker: SnapshotChecker
    let slot: SnapshotChecker.Slot

    var codingPath: [any CodingKey] { slot.codingPath }

    private func scalar(_ key: Key) throws {
        try checker.noteMember(key.stringValue, of: slot)
    }

    mutating func encodeNil(forKey key: Key) throws { try scalar(key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try scalar(key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try scalar(key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try scalar(key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try scalar(key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try scalar(key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try scalar(key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try scalar(key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try scalar(key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try scalar(key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try scalar(key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try scalar(key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try scalar(key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try scalar(key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try scalar(key) }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws { try scalar(key) }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws { try scalar(key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try scalar(key)
        try checker.checkValue(value, in: slot.child(.key(key.stringValue)))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = checker.nested(.keyed, at: key.stringValue, of: slot)
        return KeyedEncodingContainer(CheckingKeyedContainer<NestedKey>(checker: checker, slot: child))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = checker.nested(.unkeyed, at: key.stringValue, of: slot)
        return CheckingUnkeyedContainer(checker: checker, slot: child)
    }

    mutating func superEncoder() -> any Encoder {
        CheckingEncoder(checker: checker, slot: slot.child(.key("super")))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        CheckingEncoder(checker: checker, slot: slot.child(.key(key.stringValue)))
    }
}

private struct CheckingUnkeyedContainer: UnkeyedEncodingContainer {
    let checker: SnapshotChecker
    let slot: SnapshotChecker.Slot

    var codingPath: [any CodingKey] { slot.codingPath }
    var count: Int { slot.count }

    private func scalar() throws {
        if let failure = checker.failure { throw failure }
        slot.count += 1
    }

    /// The slot of the next element.
    private func nextChild() -> SnapshotChecker.Slot {
        defer { slot.count += 1 }
        return slot.child(.index(slot.count))
    }

    mutating func encodeNil() throws { try scalar() }
    mutating func encode(_ value: Bool) throws { try scalar() }
    mutating func encode(_ value: String) throws { try scalar() }
    mutating func encode(_ value: Double) throws { try scalar() }
    mutating func encode(_ value: Float) throws { try scalar() }
    mutating func encode(_ value: Int) throws { try scalar() }
    mutating func encode(_ value: Int8) throws { try scalar() }
    mutating func encode(_ value: Int16) throws { try scalar() }
    mutating func encode(_ value: Int32) throws { try scalar() }
    mutating func encode(_ value: Int64) throws { try scalar() }
    mutating func encode(_ value: UInt) throws { try scalar() }
    mutating func encode(_ value: UInt8) throws { try scalar() }
    mutating func encode(_ value: UInt16) throws { try scalar() }
    mutating func encode(_ value: UInt32) throws { try scalar() }
    mutating func encode(_ value: UInt64) throws { try scalar() }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: Int128) throws { try scalar() }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: UInt128) throws { try scalar() }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try checker.checkValue(value, in: nextChild())
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = nextChild()
        checker.open(child, as: .keyed, type: nil)
        return KeyedEncodingContainer(CheckingKeyedContainer<NestedKey>(checker: checker, slot: child))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = nextChild()
        checker.open(child, as: .unkeyed, type: nil)
        return CheckingUnkeyedContainer(checker: checker, slot: child)
    }

    mutating func superEncoder() -> any Encoder {
        CheckingEncoder(checker: checker, slot: nextChild())
    }
}

private struct CheckingSingleValueContainer: SingleValueEncodingContainer {
    let checker: SnapshotChecker
    let slot: SnapshotChecker.Slot

    var codingPath: [any CodingKey] { slot.codingPath }

    private func scalar() throws {
        try checker.writeSingle(slot)
    }

    mutating func encodeNil() throws { try scalar() }
    mutating func encode(_ value: Bool) throws { try scalar() }
    mutating func encode(_ value: String) throws { try scalar() }
    mutating func encode(_ value: Double) throws { try scalar() }
    mutating func encode(_ value: Float) throws { try scalar() }
    mutating func encode(_ value: Int) throws { try scalar() }
    mutating func encode(_ value: Int8) throws { try scalar() }
    mutating func encode(_ value: Int16) throws { try scalar() }
    mutating func encode(_ value: Int32) throws { try scalar() }
    mutating func encode(_ value: Int64) throws { try scalar() }
    mutating func encode(_ value: UInt) throws { try scalar() }
    mutating func encode(_ value: UInt8) throws { try scalar() }
    mutating func encode(_ value: UInt16) throws { try scalar() }
    mutating func encode(_ value: UInt32) throws { try scalar() }
    mutating func encode(_ value: UInt64) throws { try scalar() }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: Int128) throws { try scalar() }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: UInt128) throws { try scalar() }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try scalar()
        try checker.checkValue(value, in: slot.replacement())
    }
}

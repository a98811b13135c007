import Foundation

/// Encodes a state with Foundation's `JSONEncoder`, through a ``SnapshotChecker`` that refuses,
/// with a typed error, what `JSONEncoder` would crash on or write as JSON that `JSONDecoder`
/// cannot read back.
///
/// `JSONEncoder` recurses once per `encode(to:)` call: a cyclic object graph, or a state nested
/// thousands of levels, can overflow the stack inside it before it refuses the depth (older Apple
/// systems do not refuse it at all); it stops the program when a value's `encode(to:)` writes two
/// values through one single-value container; and it writes a `Decimal` NaN as `NaN`, which is not
/// JSON. The checker sits between each value's `encode(to:)` and `JSONEncoder`, in the same pass,
/// and throws ``SnapshotError/NestingTooDeep`` or an `EncodingError` naming the coding path
/// instead. Everything else, the bytes included, is `JSONEncoder`'s, and each `encode(to:)` runs
/// once: a store's copies are exactly Foundation's round trip.
///
/// **Deep states.** A state whose `encode(to:)` calls leave less than ``DeepStack/callerMargin`` of
/// the calling thread's stack is encoded again on a thread with a deep stack (see ``DeepStack``);
/// one whose calls nest deeper than ``DeepStack/callerCallLimit`` is decoded there too.
///
/// Not thread-safe per call: one instance serves one caller at a time, as the holder of the state uses it.
final class SnapshotEncoder {
    /// Thrown inside an encoding that must start again (see ``SnapshotChecker``).
    struct StartAgain: Error {}

    /// The `JSONEncoder` of each variant of float strings used so far (see ``SnapshotCoder``).
    private var encoders: [Int: JSONEncoder] = [:]
    private let sortingKeys: Bool
    private let choosesFloatStrings: Bool

    /// An encoder with the snapshot settings; `sortingKeys` writes each object's members by name.
    /// `choosesFloatStrings` writes the floats JSON cannot hold as strings none of the state's own
    /// strings equals; without it, always as `"NaN"`, `"Infinity"` and `"-Infinity"`, so that two
    /// states compare as JSON whatever strings they hold (change sets).
    init(sortingKeys: Bool = false, choosesFloatStrings: Bool = true) {
        self.sortingKeys = sortingKeys
        self.choosesFloatStrings = choosesFloatStrings
    }

    /// The `JSONEncoder` that writes floats with the strings of `variant`.
    private func encoder(floatStrings variant: Int) -> JSONEncoder {
        if let encoder = encoders[variant] { return encoder }
        let encoder = SnapshotCoder.makeJSONEncoder(floatStrings: variant)
        if sortingKeys { encoder.outputFormatting = [.sortedKeys] }
        encoders[variant] = encoder
        return encoder
    }

    /// The types seen asking for nested containers, whose keyed containers record their keys.
    private var trackedTypes: Set<ObjectIdentifier> = []

    /// Encodes `value`, or throws `EncodingError`, ``SnapshotError/NestingTooDeep``, or what the
    /// value's `encode(to:)` threw.
    func encode<Value: Encodable>(_ value: Value) throws -> Data {
        try encodeMarkingUnordered(value).data
    }

    /// Encodes `value` and says where in the output its unordered collections are.
    func encodeMarkingUnordered<Value: Encodable>(_ value: Value) throws -> EncodedSnapshot {
        do {
            return try encode(value, onDeepStack: false)
        } catch is NeedsDeepStack {
            var encoded = try DeepStack.run { try encode(value, onDeepStack: true) }
            encoded.needsDeepStack = true
            return encoded
        }
    }

    private func encode<Value: Encodable>(_ value: Value, onDeepStack: Bool) throws -> EncodedSnapshot {
        var variant = 0
        while true {
            let checker = SnapshotChecker(onDeepStack: onDeepStack, trackedTypes: trackedTypes)
            checker.floatStringVariant = variant
            let encoder = encoder(floatStrings: variant)
            let root = SnapshotChecker.Slot(checker: checker, parent: nil, component: nil, level: 0)
            let data: Data?
            let thrown: (any Error)?
            do {
                if SnapshotChecker.isWrittenDirectly(Value.self) {
                    try checker.checkScalar(value, at: [])
                    data = try encoder.encode(value)
                } else {
                    data = try encoder.encode(Checked(value: value, slot: root))
                }
                thrown = nil
            } catch {
                data = nil
                thrown = error
            }
            // What the checker recorded comes first: a `try?` in some `encode(to:)` may have
            // swallowed it, and `JSONEncoder` then wrote something else.
            if checker.needsDeepStack { throw NeedsDeepStack() }
            if let type = checker.newlyTrackedType {
                precondition(
                    trackedTypes.insert(type).inserted, "a type's keys were recorded and not recorded")
                continue
            }
            if let failure = checker.failure { throw failure }
            if let thrown { throw Self.unwrapped(thrown) }
            if let error = checker.decimalNaNError(in: data!) { throw error }
            if choosesFloatStrings, checker.passedFloatString, checker.floatLikeStringPath != nil {
                // One of the state's strings is one its floats would be written as: write them as
                // strings it does not hold. (Each variant adds a suffix no shorter string can equal.)
                variant += 1
                continue
            }
            return EncodedSnapshot(
                data: data!, unordered: checker.unorderedPaths,
                floatStrings: checker.passedFloatString ? variant : nil,
                needsDeepStack: checker.decodesOnDeepStack)
        }
    }
}

extension SnapshotEncoder {
    /// `error`, naming the app's value where `JSONEncoder` named the ``Checked`` wrapper it was
    /// handed (as it does for a top-level value that encodes nothing).
    static func unwrapped(_ error: any Error) -> any Error {
        guard case EncodingError.invalidValue(let value as any CheckedValue, let context) = error else {
            return error
        }
        let names = type(of: value).names
        return EncodingError.invalidValue(
            value.wrapped,
            EncodingError.Context(
                codingPath: context.codingPath,
                debugDescription: context.debugDescription.replacingOccurrences(
                    of: names.wrapper, with: names.value),
                underlyingError: context.underlyingError))
    }
}

/// A snapshot's JSON, with what change sets and archives need to know of it.
struct EncodedSnapshot: Sendable {
    let data: Data
    /// Where the JSON holds sets and dictionaries written as arrays: path → whether the array
    /// alternates keys and values.
    let unordered: [String: Bool]
    /// The variant of strings a `Double` or `Float` that is NaN or infinite is written as, when one
    /// is (see ``SnapshotCoder``): only then is the JSON read back with a decoder that reads those
    /// strings as floats. Any other JSON is read without, so that an app's string `"NaN"` stays a
    /// string where an `init(from:)` tries a `Double` first; and the variant is one that none of the
    /// state's strings equals.
    var floatStrings: Int?
    /// Whether reading it back recurses deeper than a caller's thread may: decode it on the
    /// ``DeepStack``.
    var needsDeepStack = false
}

/// The collections that encode as unordered arrays when they ask for an unkeyed container.
/// (Dictionaries with `String` or `Int` keys ask for a keyed one and become objects.)
protocol UnorderedCollection {}
extension Set: UnorderedCollection {}
extension Dictionary: UnorderedCollection {}
protocol DictionaryMarker {}
extension Dictionary: DictionaryMarker {}

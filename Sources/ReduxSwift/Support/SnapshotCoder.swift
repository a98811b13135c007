import Foundation

/// How store states are turned into JSON and back.
///
/// A `Double` or `Float` that JSON cannot hold (NaN, ±infinity) is written as a string, `"NaN"`,
/// `"Infinity"` or `"-Infinity"`, so that it round-trips. Only JSON that holds such a float is read
/// with a decoder that turns those strings back into floats (see
/// ``EncodedSnapshot/floatStrings``): any other keeps an app's string `"NaN"` a string, even where
/// an `init(from:)` tries a `Double` first. A state that holds such a float and also a string
/// equal to one of those is written with other strings, `"NaN#1"` and so on, that none of its
/// strings equals. Dates and data use the coders' defaults, which round-trip exactly.
enum SnapshotCoder {
    static let positiveInfinity = "Infinity"
    static let negativeInfinity = "-Infinity"
    static let notANumber = "NaN"

    /// The strings of variant `variant` for NaN, +infinity and -infinity: the ones above for 0,
    /// with `#` and the variant after them for any other.
    static func floatStrings(_ variant: Int) -> (nan: String, positive: String, negative: String) {
        let suffix = variant == 0 ? "" : "#\(variant)"
        return (notANumber + suffix, positiveInfinity + suffix, negativeInfinity + suffix)
    }

    /// Whether `text` is one of the strings of variant `variant`.
    static func isFloatString(_ text: String, variant: Int = 0) -> Bool {
        guard text.utf8.count <= 9 + (variant == 0 ? 0 : 21) else { return false }
        let strings = floatStrings(variant)
        return text == strings.nan || text == strings.positive || text == strings.negative
    }

    /// The encoder of store snapshots: `JSONEncoder` with ``makeJSONEncoder(floatStrings:)``'s
    /// settings, after a check that throws instead of overflowing the stack on a cyclic or too
    /// deeply nested state.
    static func makeEncoder() -> SnapshotEncoder {
        SnapshotEncoder()
    }

    /// A `JSONEncoder` with the snapshot settings, writing floats with the strings of `variant`.
    /// Encode states with ``makeEncoder()``, which checks first what this one would crash on (see
    /// ``SnapshotEncoder``).
    static func makeJSONEncoder(floatStrings variant: Int = 0) -> JSONEncoder {
        let encoder = JSONEncoder()
        let strings = floatStrings(variant)
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: strings.positive, negativeInfinity: strings.negative, nan: strings.nan)
        return encoder
    }

    /// A decoder of snapshots whose floats are written with the strings of `variant`; for `nil`,
    /// one that reads no string as a float.
    static func makeDecoder(floatStrings variant: Int? = 0) -> JSONDecoder {
        let decoder = JSONDecoder()
        if let variant {
            let strings = floatStrings(variant)
            decoder.nonConformingFloatDecodingStrategy = .convertFromString(
                positiveInfinity: strings.positive, negativeInfinity: strings.negative, nan: strings.nan)
        }
        return decoder
    }

    /// The decoder of JSON whose floats are written with the strings of `variant` (`nil`: none):
    /// `strict` or `lenient` (variant 0), or for another variant a new one with `lenient`'s
    /// `userInfo`.
    static func decoder(floatStrings variant: Int?, strict: JSONDecoder, lenient: JSONDecoder) -> JSONDecoder
    {
        switch variant {
        case nil: return strict
        case 0?: return lenient
        case let variant?:
            let decoder = makeDecoder(floatStrings: variant)
            decoder.userInfo = lenient.userInfo
            return decoder
        }
    }

    /// The variant of float strings that JSON says it was written with, in a member named
    /// `"floatStrings"`: among its first 64 bytes, where an archive says it, or, `last`, the last
    /// such member, where a log line says it, after the action; `nil` when it says none.
    static func declaredFloatStrings(in data: Data, last: Bool = false) -> Int? {
        let head = last ? data[...] : data.prefix(64)
        guard let key = head.range(of: Data(#""floatStrings":"#.utf8), options: last ? .backwards : [])
        else { return nil }
        let digits = head[key.upperBound...].prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        return digits.count <= 4 ? Int(String(decoding: digits, as: UTF8.self)) : nil
    }

    /// Decodes `type` from JSON of unknown origin, such as an archive an earlier version wrote:
    /// first as JSON with no float written as a string, then, if that fails, as JSON with some.
    static func decode<T: Decodable>(
        _ type: T.Type, from data: Data, strict: JSONDecoder, lenient: JSONDecoder
    )
        throws -> T
    {
        do {
            return try strict.decode(T.self, from: data)
        } catch {
            return try lenient.decode(T.self, from: data)
        }
    }

    /// Encodes `state` as the given version, capturing a failure instead of throwing.
    static func encode<State: StateProtocol>(
        _ state: State, version: UInt64, with encoder: SnapshotEncoder
    ) -> Snapshot {
        do {
            let encoded = try encoder.encodeMarkingUnordered(state)
            if encoded.data.count >= MemoryRelease.threshold { MemoryRelease.returnFreedMemory() }
            return Snapshot(
                version: version, result: .success(encoded.data), needsDeepStack: encoded.needsDeepStack,
                floatStrings: encoded.floatStrings)
        } catch {
            return Snapshot(
                version: version,
                result: .failure(
                    SnapshotError(.encodingFailed, stateType: State.self, underlyingError: error)))
        }
    }
}

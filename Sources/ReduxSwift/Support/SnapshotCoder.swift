import Foundation

/// How store states are turned into JSON and back.
///
/// Non-conforming floats are written as the strings below, so `nan` and `±infinity` round-trip.
/// Dates and data use the coders' defaults, which round-trip exactly.
enum SnapshotCoder {
    static let positiveInfinity = "Infinity"
    static let negativeInfinity = "-Infinity"
    static let notANumber = "NaN"

    /// The encoder of store snapshots: `JSONEncoder` with ``makeJSONEncoder()``'s settings, after a
    /// check that throws instead of overflowing the stack on a cyclic or too deeply nested state.
    static func makeEncoder() -> SnapshotEncoder {
        SnapshotEncoder()
    }

    /// A `JSONEncoder` with the snapshot settings. Encode states with ``makeEncoder()``, which
    /// checks first what this one would crash on (see ``SnapshotEncoder``).
    static func makeJSONEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: positiveInfinity, negativeInfinity: negativeInfinity, nan: notANumber)
        return encoder
    }

    static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: positiveInfinity, negativeInfinity: negativeInfinity, nan: notANumber)
        return decoder
    }

    /// Encodes `state` as the given version, capturing a failure instead of throwing.
    static func encode<State: StateProtocol>(
        _ state: State, version: UInt64, with encoder: SnapshotEncoder
    ) -> Snapshot {
        do {
            let encoded = try encoder.encodeMarkingUnordered(state)
            return Snapshot(
                version: version, result: .success(encoded.data), needsDeepStack: encoded.needsDeepStack)
        } catch {
            return Snapshot(
                version: version,
                result: .failure(
                    SnapshotError(.encodingFailed, stateType: State.self, underlyingError: error)))
        }
    }
}

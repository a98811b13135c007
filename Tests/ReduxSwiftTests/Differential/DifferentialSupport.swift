import Foundation
import Testing

@testable import ReduxSwift

/// The seeds the differential suite draws its random cases from, and how a failure names them.
///
/// By default the seeds are fixed, so that every run checks the same cases. Set
/// `REDUXSWIFT_DIFF_SEED` (decimal, or hexadecimal with `0x`) to replay one seed, the one a failure
/// printed:
///
/// ```
/// REDUXSWIFT_DIFF_SEED=0x5EED0002 swift test --filter Differential
/// ```
enum DifferentialSeeds {
    static let fixed: [UInt64] = [0x5EED_0001, 0x5EED_0002, 0x5EED_0003]

    /// The seed from `REDUXSWIFT_DIFF_SEED`, if it is set and parses.
    static var replayed: UInt64? {
        guard let text = ProcessInfo.processInfo.environment["REDUXSWIFT_DIFF_SEED"] else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased().hasPrefix("0x") { return UInt64(trimmed.dropFirst(2), radix: 16) }
        return UInt64(trimmed)
    }

    static var all: [UInt64] {
        replayed.map { [$0] } ?? fixed
    }

    /// A generator for one test and one seed: tests that share a seed draw different streams.
    static func generator(seed: UInt64, test: String) -> SeededGenerator {
        var salt: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in test.utf8 { salt = (salt ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return SeededGenerator(seed: seed ^ salt)
    }

    static func name(_ seed: UInt64) -> String {
        "0x" + String(seed, radix: 16, uppercase: true)
    }
}

/// Collects the failures of one seed by check, and records one issue per failing check: how many
/// cases failed, the first case's index and what it saw, and how to replay the seed.
struct DifferentialReport {
    let test: String
    let seed: UInt64
    private var failures: [(check: String, count: Int, first: Int, detail: String)] = []

    init(test: String, seed: UInt64) {
        self.test = test
        self.seed = seed
    }

    mutating func fail(_ check: String, case index: Int, _ detail: @autoclosure () -> String) {
        if let position = failures.firstIndex(where: { $0.check == check }) {
            failures[position].count += 1
        } else {
            failures.append((check, 1, index, String(detail().prefix(1_500))))
        }
    }

    /// Records the collected failures; `cases` is how many cases the seed ran.
    func flush(cases: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        for failure in failures {
            Issue.record(
                """
                \(test) [\(failure.check)]: \(failure.count) of \(cases) cases fail with seed \
                \(DifferentialSeeds.name(seed)) (replay: REDUXSWIFT_DIFF_SEED=\(DifferentialSeeds.name(seed))); \
                first at case \(failure.first): \(failure.detail)
                """,
                sourceLocation: sourceLocation)
        }
    }
}

/// Foundation's round trip, configured as the store's snapshots are: non-conforming floats as the
/// strings `"NaN"`, `"Infinity"` and `"-Infinity"`.
enum ReferenceCoders {
    static func encoder(sortedKeys: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        if sortedKeys { encoder.outputFormatting = [.sortedKeys] }
        return encoder
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return decoder
    }

    /// `JSONEncoder` then `JSONDecoder`: the value every copy the store hands out must equal.
    static func roundTrip<Value: Codable>(_ value: Value) -> Result<Value, any Error> {
        Result { try decoder().decode(Value.self, from: encoder().encode(value)) }
    }
}

/// A value handed to a reducer inside an action.
///
/// `@unchecked Sendable`: the test makes the value and does not change it after dispatching it;
/// the store only encodes it.
final class Carried<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A state that holds one fixture value, `nil` at first (so the initial state always round-trips
/// and `currentState()` has a fallback), and a counter that every `set` moves on.
struct Holder<Value: Codable & Equatable & SendableMetatype>: StateProtocol, Equatable {
    var value: Value?
    var tick = 0

    static var set: Reducer<Holder> {
        { state, action in
            guard let carried = action.payload as? Carried<Value> else { return }
            state.value = carried.value
            state.tick += 1
        }
    }

    /// A store holding `Holder()`, read once: its initial state has round-tripped, so
    /// `currentState()` always has a state to fall back on and never stops the program.
    static func makeStore() -> Store<Holder> {
        let store = Store(reducers: [set], state: Holder(), notificationCenter: StoreNotificationCenter())
        _ = try? store.snapshot()
        return store
    }
}

/// Floating-point equality under which `nan` equals `nan` and `-0.0` differs from `0.0`: what a
/// faithful round trip keeps.
func sameFloat<F: BinaryFloatingPoint>(_ lhs: F, _ rhs: F) -> Bool {
    if lhs.isNaN || rhs.isNaN { return lhs.isNaN && rhs.isNaN }
    return lhs == rhs && lhs.sign == rhs.sign
}

func sameFloats<F: BinaryFloatingPoint>(_ lhs: [F], _ rhs: [F]) -> Bool {
    lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { sameFloat($0, $1) }
}

/// String equality by UTF-8 bytes: `"é"` precomposed differs from `"e\u{301}"`, which `==` does not
/// tell apart.
func sameText(_ lhs: String, _ rhs: String) -> Bool {
    lhs.utf8.elementsEqual(rhs.utf8)
}

/// A short description of a value for a failure message.
func describe<Value>(_ value: Value) -> String {
    String(String(describing: value).prefix(600))
}

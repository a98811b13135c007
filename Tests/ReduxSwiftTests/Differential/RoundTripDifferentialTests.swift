import Foundation
import Testing

@testable import ReduxSwift

/// Every copy of its state a store hands out equals Foundation's `JSONEncoder` → `JSONDecoder` round trip of the
/// same value, for random values of the shapes apps write; where Foundation fails, the store throws
/// a `SnapshotError`.
@Suite(.serialized, .offThePool) struct RoundTripDifferentialTests {
    /// Puts `cases` random values per seed into a store, one after another, and compares what
    /// `snapshot()` and `currentState()` hand back with Foundation's round trip. (Selectors read the
    /// live state itself, not a copy, so they are not compared.)
    static func compare<Value: Codable & Equatable & SendableMetatype>(
        _ test: String, cases: Int, sourceLocation: SourceLocation = #_sourceLocation,
        draw: (inout Draw) -> Value
    ) {
        for seed in DifferentialSeeds.all {
            var random = Draw(DifferentialSeeds.generator(seed: seed, test: test))
            var report = DifferentialReport(test: test, seed: seed)
            let store = Holder<Value>.makeStore()
            for index in 0..<cases {
                check(draw(&random), in: store, case: index, report: &report)
            }
            report.flush(cases: cases, sourceLocation: sourceLocation)
        }
    }

    static func check<Value: Codable & Equatable & SendableMetatype>(
        _ value: Value, in store: Store<Holder<Value>>, case index: Int, report: inout DifferentialReport
    ) {
        let foundation = ReferenceCoders.roundTrip(Holder(value: value))
        store.dispatch(Action("set", payload: Carried(value)))
        switch foundation {
        case .success(let expected):
            do {
                let snapshot = try store.snapshot()
                if snapshot.value != expected.value {
                    report.fail(
                        "snapshot() equals Foundation's round trip", case: index,
                        "store \(describe(snapshot.value)), Foundation \(describe(expected.value))")
                }
            } catch {
                report.fail(
                    "snapshot() succeeds where Foundation round-trips", case: index,
                    "\(error) for \(describe(value))")
            }
            let current = store.currentState()
            if current.value != expected.value {
                report.fail(
                    "currentState() equals Foundation's round trip", case: index,
                    "store \(describe(current.value)), Foundation \(describe(expected.value))")
            }
        case .failure(let error):
            do {
                let snapshot = try store.snapshot()
                report.fail(
                    "snapshot() throws SnapshotError where Foundation fails", case: index,
                    "Foundation: \(error); store returned \(describe(snapshot.value))")
            } catch {
                // A typed SnapshotError, as required.
            }
        }
    }

    @Test func randomCompositionsOfEveryShapeComeBackAsFoundationsRoundTrip() {
        Self.compare("compositions", cases: 400) { $0.piece() }
    }

    @Test func subclassesThatWriteAKeyAgainAfterSuperEncodeKeepTheLastValue() {
        Self.compare("super.encode then the same key", cases: 40) { draw in
            (0..<draw.int(1...3)).map { _ in draw.premiumAccount() }
        }
    }

    @Test func anEncodeThatWritesADefaultThenTheValueKeepsTheValue() {
        Self.compare("a key written twice", cases: 40) { $0.settings() }
    }

    @Test func subclassesEncodedThroughSuperEncoderRoundTripWithSingleValueMembers() {
        Self.compare("superEncoder()", cases: 60) { draw in (0..<draw.int(1...3)).map { _ in draw.car() } }
        Self.compare("superEncoder(forKey:) and unkeyed superEncoder()", cases: 60) { $0.truck() }
    }

    @Test func customNestedContainersAndSingleValueWrappersRoundTrip() {
        Self.compare("nested containers", cases: 60) { $0.route() }
        Self.compare("single-value wrappers", cases: 40) { draw in
            (0..<draw.int(0...3)).map { _ in Wrapper(draw.price()) }
        }
    }

    @Test func foundationScalarsFloatsAndStringsRoundTripExactly() {
        Self.compare("scalars", cases: 300) { $0.scalars() }
    }

    @Test func int128AndUInt128RoundTrip() {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            Self.compare("Int128", cases: 60) { draw in
                let high = draw.bits()
                let low = draw.bits()
                return BigIntegers(
                    signed: Int128(Int64(bitPattern: high)) << 64 | Int128(low),
                    unsigned: UInt128(high) << 64 | UInt128(low),
                    list: [.min, .max, 0, Int128(Int64.min) - 1, Int128(UInt64.max) + 1])
            }
        }
    }

    @Test func enumsWithPayloadsAndRawValuesRoundTrip() {
        Self.compare("enums", cases: 60) { draw in
            (0..<draw.int(1...4)).map { _ in
                draw.chance(0.5) ? Piece.player(draw.player()) : .priority(draw.pick(Priority.allCases))
            }
        }
    }

    @Test func dictionariesOfEveryKeyKindAndSetsRoundTrip() {
        Self.compare("dictionaries and sets", cases: 100) { $0.catalog() }
    }

    @Test func deepListsWhoseLevelsGoThroughWrappersRoundTripUpToTheLimit() {
        Self.compare("wrapped levels", cases: 12) { draw in
            let levels = draw.pick([1, 2, 100, 300, 301, 400, 509, 510])
            var wrappers = Draw(SeededGenerator(seed: draw.bits()))
            return WrappedLevel.list(levels: levels) { _ in wrappers.int(1...3) }
        }
    }

    /// History steps are copies too: undoing to a step hands back Foundation's round trip of it.
    @Test func historyStepsComeBackAsFoundationsRoundTrip() {
        let test = "history steps"
        for seed in DifferentialSeeds.all {
            var random = Draw(DifferentialSeeds.generator(seed: seed, test: test))
            var report = DifferentialReport(test: test, seed: seed)
            let cases = 20
            for index in 0..<cases {
                let store = Holder<Shapes>.makeStore()
                let history = store.recordHistory()
                // Only values Foundation round-trips: an undo decodes its step, and a step that
                // cannot be decoded is refused (reported through `dispatchDidFail`), as it must be.
                let values = (0..<3).map { _ in
                    var value = random.shapes()
                    while case .failure = ReferenceCoders.roundTrip(Holder(value: value)) {
                        value = random.shapes()
                    }
                    return value
                }
                for value in values { store.dispatch(Action("set", payload: Carried(value))) }
                for (step, value) in values.enumerated().reversed() {
                    if step < values.count - 1 { history.undo() }
                    guard case .success(let expected) = ReferenceCoders.roundTrip(Holder(value: value)) else {
                        continue
                    }
                    do {
                        let state = try store.snapshot()
                        if state.value != expected.value {
                            report.fail(
                                "an undone history step equals Foundation's round trip", case: index,
                                "step \(step + 1): store \(describe(state.value)), "
                                    + "Foundation \(describe(expected.value))")
                        }
                    } catch {
                        report.fail(
                            "an undone history step round-trips", case: index, "step \(step + 1): \(error)")
                    }
                }
            }
            report.flush(cases: cases * 3)  // three steps a case
        }
    }
}

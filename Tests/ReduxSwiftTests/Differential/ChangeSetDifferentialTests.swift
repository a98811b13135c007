import Foundation
import Testing

@testable import ReduxSwift

/// `StateChange.changes(from:to:)` and `observeStateChanges(at:)` report exactly the paths whose
/// JSON values differ, as ``ReferenceChanges`` finds them without the library.
@Suite(.serialized, .offThePool) struct ChangeSetDifferentialTests {
    /// How long to wait for an observer that should hear of a change.
    static let deliveryTimeout: TimeInterval = 2

    /// The changes the reference finds between two holders, with the holder's `tick` moved on.
    static func expected<Value: Codable & Equatable & SendableMetatype>(
        from old: Holder<Value>, to new: Holder<Value>
    ) throws -> [ReferenceChanges.Change] {
        try ReferenceChanges.changes(from: old, to: new, unordered: ReferenceChanges.fixtureUnordered)
    }

    /// Draws `cases` pairs per seed and compares `StateChange.changes` with the reference; with
    /// `observing`, also what `observeStateChanges(at: [])` delivers when a store goes from one
    /// value of the pair to the other.
    static func compare(
        _ test: String, cases: Int, observing: Bool, sourceLocation: SourceLocation = #_sourceLocation,
        draw: (inout Draw) -> Shapes, change: (inout Draw, Shapes) -> Shapes
    ) async throws {
        for seed in DifferentialSeeds.all {
            var random = Draw(DifferentialSeeds.generator(seed: seed, test: test))
            var report = DifferentialReport(test: test, seed: seed)
            let store = Holder<Shapes>.makeStore()
            let deliveries = Recorder<[StateChange]>()
            let token = store.observeStateChanges(at: []) { deliveries.append($0) }
            var observerHears = observing
            for index in 0..<cases {
                let old = draw(&random)
                let new = change(&random, old)
                do {
                    let found = ReferenceChanges.form(try StateChange.changes(from: old, to: new))
                    let want = try ReferenceChanges.changes(
                        from: old, to: new, unordered: ReferenceChanges.fixtureUnordered)
                    if !ReferenceChanges.same(found, want) {
                        report.fail(
                            "StateChange.changes reports exactly the differing paths", case: index,
                            "library \(found), reference \(want)")
                    }
                } catch {
                    report.fail("StateChange.changes does not throw", case: index, "\(error)")
                }
                guard observerHears else { continue }
                // Two dispatches, each awaited, so that the second delivery is exactly old → new.
                for value in [old, new] {
                    let count = deliveries.count
                    store.dispatch(Action("set", payload: Carried(value)))
                    let heard = await deliveries.waitOffThePool(timeout: Self.deliveryTimeout) {
                        $0.count >= count + 1
                    }
                    if !heard {
                        report.fail(
                            "observeStateChanges hears of every change", case: index,
                            "no delivery within \(Self.deliveryTimeout) s after setting \(describe(value)); "
                                + "the observer is not checked further with this seed")
                        observerHears = false
                        break
                    }
                }
                guard observerHears, let delivered = deliveries.values.last else { continue }
                let want = ReferenceChanges.sorted(
                    try Self.expected(from: Holder(value: old, tick: 0), to: Holder(value: new, tick: 0))
                        + [ReferenceChanges.Change(path: "tick", hadValue: true, hasValue: true)])
                let heard = ReferenceChanges.form(delivered)
                if !ReferenceChanges.same(heard, want) {
                    report.fail(
                        "observeStateChanges(at: []) reports exactly the differing paths", case: index,
                        "observer \(heard), reference \(want)")
                }
            }
            token.cancel()
            report.flush(cases: cases, sourceLocation: sourceLocation)
        }
    }

    @Test func changeSetsOfRandomPairsReportExactlyThePathsWhoseJSONDiffers() async throws {
        try await Self.compare(
            "change sets", cases: 300, observing: false, draw: { $0.shapes() }, change: { $0.changed($1) })
    }

    @Test func observersOfRandomPairsHearExactlyThePathsWhoseJSONDiffers() async throws {
        try await Self.compare(
            "observed change sets", cases: 200, observing: true, draw: { $0.shapes() },
            change: { $0.changed($1) })
    }

    struct Jukebox: StateProtocol, Equatable {
        var player: Player = .playing(1)
        var volume = 0
    }

    @Test func anEnumPayloadChangeIsReportedUnderItsMember() async throws {
        let changes = try StateChange.changes(from: Jukebox(), to: Jukebox(player: .playing(2)))
        #expect(changes.map(\.path) == ["player.playing._0"])

        let setPlayer: Reducer<Jukebox> = { state, action in
            if let player = action.payload as? Carried<Player> { state.player = player.value }
            if let volume = action.payload as? Int { state.volume = volume }
        }
        let store = Store(
            reducers: [setPlayer], state: Jukebox(), notificationCenter: StoreNotificationCenter())
        let deliveries = Recorder<[StateChange]>()
        let token = store.observeStateChanges(at: ["player", "volume"]) { deliveries.append($0) }
        defer { token.cancel() }
        store.dispatch(Action("player", payload: Carried(Player.playing(2))))
        store.dispatch(Action("volume", payload: 7))
        #expect(
            await deliveries.waitOffThePool(timeout: Self.deliveryTimeout) {
                $0.joined().contains { $0.path == "volume" }
            })
        let paths = deliveries.values.joined().map(\.path)
        #expect(
            paths.contains { $0.hasPrefix("player") },
            "observeStateChanges(at: [\"player\"]) never heard of .playing(1) → .playing(2): \(paths)")
    }

    @Test func equalSetsAndDictionariesInOtherStorageAreNoChange() throws {
        let test = "equal unordered collections"
        let cases = 60
        for seed in DifferentialSeeds.all {
            var random = Draw(DifferentialSeeds.generator(seed: seed, test: test))
            var report = DifferentialReport(test: test, seed: seed)
            for index in 0..<cases {
                // `LateWriter` makes the store's encoder take its fallback path for the whole state;
                // a car, its `superEncoder()` path.
                var old = FallbackShapes(
                    shapes: random.shapes(), late: random.chance(0.5) ? LateWriter() : nil)
                if random.chance(0.3) { old.shapes.cars = [random.car()] } else { old.shapes.cars = [] }
                old.shapes.pieces = []
                var new = old
                new.shapes.catalog = random.restored(old.shapes.catalog)
                do {
                    let changes = try StateChange.changes(from: old, to: new)
                    if !changes.isEmpty {
                        report.fail(
                            "equal sets in other storage are no change", case: index,
                            "\(changes.prefix(5)) with late writer: \(old.late != nil), cars: \(old.shapes.cars.count)"
                        )
                    }
                } catch {
                    report.fail("StateChange.changes does not throw", case: index, "\(error)")
                }
            }
            report.flush(cases: cases)
        }
    }

    @Test func precomposedAndDecomposedTextsAreAChange() throws {
        struct Text: Codable { var title: String }
        let changes = try StateChange.changes(from: Text(title: "caf\u{E9}"), to: Text(title: "cafe\u{301}"))
        #expect(changes.map(\.path) == ["title"], "\"é\" precomposed → decomposed changes the bytes")
    }

    /// Writes to a nested container after writing to its parent again, which Foundation allows.
    struct LateWriter: Codable, Equatable {
        enum CodingKeys: String, CodingKey {
            case inner
            case outer
        }

        init() {}

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            _ = try container.nestedContainer(keyedBy: CodingKeys.self, forKey: .inner)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var inner = container.nestedContainer(keyedBy: CodingKeys.self, forKey: .inner)
            try container.encode(1, forKey: .outer)
            try inner.encode(2, forKey: .inner)
        }
    }

    struct FallbackShapes: Codable, Equatable {
        var shapes: Shapes
        var late: LateWriter?
    }

    @Test func aStateNested512LevelsDeepHasChangeSets() async throws {
        let shallow = Brackets(depth: 1)
        let deep = Brackets(depth: 512)
        // `[]` → `[[…]]`: element 0 is added. (JSONEncoder on Linux refuses 512 levels, though
        // JSONDecoder reads them, so the reference is written out.)
        let expected = [ReferenceChanges.Change(path: "0", hadValue: false, hasValue: true)]
        do {
            let changes = try StateChange.changes(from: shallow, to: deep)
            #expect(ReferenceChanges.same(ReferenceChanges.form(changes), expected))
        } catch {
            Issue.record(
                "StateChange.changes throws for a state 512 levels deep, which round-trips: \(error)")
        }

        let setDepth: Reducer<Brackets> = { state, action in
            if let depth = action.payload as? Int { state = Brackets(depth: depth) }
        }
        let store = Store(reducers: [setDepth], state: shallow, notificationCenter: StoreNotificationCenter())
        let deliveries = Recorder<[StateChange]>()
        let token = store.observeStateChanges(at: []) { deliveries.append($0) }
        defer { token.cancel() }
        store.dispatch(Action("deep", payload: 512))
        #expect(
            await deliveries.waitOffThePool(timeout: Self.deliveryTimeout) { $0.count >= 1 },
            "the observer never hears of a change to a state 512 levels deep")
    }
}

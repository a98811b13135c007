import Foundation
import Testing

@testable import ReduxSwift

/// Shapes that apps write and that an encoder of its own decides differently from Foundation's:
/// the store's copies, its change sets and its archives must be exactly Foundation's round trip.
@Suite(.offThePool) struct FoundationShapeDifferentialTests {
    enum Key: String, CodingKey {
        case amount, note, detail, first, second
    }

    /// A member whose `encode(to:)` writes part of itself and then throws, inside a `try?` of its
    /// parent: Foundation drops the member whole.
    struct PartlyWritten: Codable, Equatable {
        var amount = 1
        var note = "kept"

        struct Refusal: Error {}

        struct Fragile: Codable, Equatable {
            var value = 2
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(value, forKey: .amount)
                throw Refusal()
            }
        }

        var detail: Fragile? = Fragile()

        init() {}

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            amount = try container.decode(Int.self, forKey: .amount)
            note = try container.decode(String.self, forKey: .note)
            detail = try container.decodeIfPresent(Fragile.self, forKey: .detail)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(amount, forKey: .amount)
            try? container.encode(detail, forKey: .detail)
            try container.encode(note, forKey: .note)
        }
    }

    /// Asks twice for a nested container under one key: Foundation merges what both wrote.
    struct TwiceNested: Codable, Equatable {
        var first = 1
        var second = 2

        init() {}

        init(from decoder: any Decoder) throws {
            let nested = try decoder.container(keyedBy: Key.self).nestedContainer(
                keyedBy: Key.self, forKey: .detail)
            first = try nested.decodeIfPresent(Int.self, forKey: .first) ?? -1
            second = try nested.decodeIfPresent(Int.self, forKey: .second) ?? -1
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            var once = container.nestedContainer(keyedBy: Key.self, forKey: .detail)
            try once.encode(first, forKey: .first)
            var twice = container.nestedContainer(keyedBy: Key.self, forKey: .detail)
            try twice.encode(second, forKey: .second)
        }
    }

    /// Asks its encoder twice for a keyed container, as a helper that takes the encoder does:
    /// Foundation writes both into one object.
    struct TwiceKeyed: Codable, Equatable {
        var first = 1
        var second = 2

        init() {}

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            first = try container.decodeIfPresent(Int.self, forKey: .first) ?? -1
            second = try container.decodeIfPresent(Int.self, forKey: .second) ?? -1
        }

        func encode(to encoder: any Encoder) throws {
            var once = encoder.container(keyedBy: Key.self)
            var twice = encoder.container(keyedBy: Key.self)
            try twice.encode(second, forKey: .second)
            try once.encode(first, forKey: .first)
        }
    }

    /// Writes one key twice, as dictionaries whose keys map to the same coding key do: Foundation
    /// keeps the last value.
    struct KeyWrittenTwice: Codable, Equatable {
        var stale = 1
        var fresh = 2

        init() {}

        init(from decoder: any Decoder) throws {
            stale = -1
            fresh = try decoder.container(keyedBy: Key.self).decode(Int.self, forKey: .amount)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(stale, forKey: .amount)
            try container.encode(fresh, forKey: .amount)
        }
    }

    /// Dictionary keys whose coding keys collide: `CodingKeyRepresentable` keys that read the same.
    @available(macOS 12.3, iOS 15.4, tvOS 15.4, watchOS 8.5, *)
    struct Currency: Hashable, Codable, CodingKeyRepresentable {
        var code: String
        var codingKey: any CodingKey { Key(stringValue: code.uppercased()) ?? Key.note }
        init(_ code: String) { self.code = code }
        init?<K: CodingKey>(codingKey: K) { code = codingKey.stringValue }
    }

    /// Where both coders agree, the store's copy and change sets must agree with them.
    static func expectFoundationsRoundTrip<Value: Codable & Equatable & SendableMetatype>(
        _ value: Value, comparingBytes: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let foundation = try ReferenceCoders.roundTrip(value).get()
        let store = Holder<Value>.makeStore()
        store.dispatch(Action("set", payload: Carried(value)))
        #expect(try store.snapshot().value == foundation, sourceLocation: sourceLocation)
        #expect(store.currentState().value == foundation, sourceLocation: sourceLocation)
        // The bytes the store archives are Foundation's bytes, member for member.
        guard comparingBytes else { return }
        let ours = try SnapshotEncoder().encode(value)
        let theirs = try ReferenceCoders.encoder().encode(value)
        #expect(try canonical(ours) == canonical(theirs), sourceLocation: sourceLocation)
    }

    static func canonical(_ data: Data) throws -> String {
        let object = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
        let sorted = try JSONSerialization.data(
            withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        return String(decoding: sorted, as: UTF8.self)
    }

    @Test func aMemberThatWritesPartOfItselfAndThrowsInsideTryIsDroppedWhole() throws {
        try Self.expectFoundationsRoundTrip(PartlyWritten())
        #expect(try ReferenceCoders.roundTrip(PartlyWritten()).get().detail == nil)
    }

    @Test func aNestedContainerAskedForTwiceUnderOneKeyHoldsWhatBothWrote() throws {
        try Self.expectFoundationsRoundTrip(TwiceNested())
        #expect(try ReferenceCoders.roundTrip(TwiceNested()).get() == TwiceNested())
    }

    @Test func aKeyedContainerAskedForTwiceHoldsWhatBothWrote() throws {
        try Self.expectFoundationsRoundTrip([TwiceKeyed()])
        #expect(try ReferenceCoders.roundTrip(TwiceKeyed()).get() == TwiceKeyed())
    }

    @Test func anErrorJSONEncoderThrowsNamesTheValueAsFoundationsDoes() throws {
        struct Nothing: Encodable {
            func encode(to encoder: any Encoder) throws {}
        }
        let ours = try #require(throws: EncodingError.self) { try SnapshotEncoder().encode(Nothing()) }
        let theirs = try #require(throws: EncodingError.self) {
            try ReferenceCoders.encoder().encode(Nothing())
        }
        #expect(String(describing: ours) == String(describing: theirs))
        #expect(!String(describing: ours).contains("Checked"))
    }

    @Test func aKeyWrittenTwiceKeepsTheLastValue() throws {
        try Self.expectFoundationsRoundTrip(KeyWrittenTwice())
        #expect(try ReferenceCoders.roundTrip(KeyWrittenTwice()).get().fresh == 2)
    }

    @Test func dictionaryKeysWhoseCodingKeysCollideKeepTheLastValue() throws {
        guard #available(macOS 12.3, iOS 15.4, tvOS 15.4, watchOS 8.5, *) else { return }
        // Both keys are written as "EUR"; which survives depends on the dictionary's order, and the
        // store must keep the one Foundation keeps.
        for _ in 0..<20 {
            let prices: [Currency: Int] = [Currency("eur"): 1, Currency("EUR"): 2]
            try Self.expectFoundationsRoundTrip(prices)
        }
    }

    /// Writes a `Decimal` NaN and then discards it: a member that throws after writing one, inside
    /// a `try?`, and a key written again.
    struct DiscardedNaN: Codable, Equatable {
        var kept = 1

        struct Refusal: Error {}

        struct Poisoned: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(Decimal(1) / Decimal(0), forKey: .amount)
                throw Refusal()
            }
        }

        init() {}

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            kept = try container.decode(Int.self, forKey: .first)
            _ = try container.decode(Decimal.self, forKey: .second)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(kept, forKey: .first)
            try? container.encode(Poisoned(), forKey: .detail)
            var elements = container.nestedUnkeyedContainer(forKey: .note)
            try? elements.encode(Poisoned())
            try container.encode(Decimal(1) / Decimal(0), forKey: .second)
            try container.encode(Decimal(2), forKey: .second)
        }
    }

    /// Writes its child's members into its own object through the same encoder, as flattening
    /// `encode(to:)`s do: a cycle of them adds no level.
    final class Flattened: Codable, Equatable, @unchecked Sendable {
        var child: Flattened?
        var depth: Int

        init(depth: Int) { self.depth = depth }

        init(from decoder: any Decoder) throws {
            depth = try decoder.container(keyedBy: Key.self).decode(Int.self, forKey: .amount)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(depth, forKey: .amount)
            try child?.encode(to: encoder)
        }

        static func == (lhs: Flattened, rhs: Flattened) -> Bool { lhs.depth == rhs.depth }

        static func chain(_ length: Int) -> Flattened {
            let head = Flattened(depth: 0)
            var tail = head
            for depth in 1..<length {
                tail.child = Flattened(depth: depth)
                tail = tail.child!
            }
            return head
        }
    }

    @Test func aDecimalNaNThatEncodeToDiscardsIsNoFailure() throws {
        try Self.expectFoundationsRoundTrip(DiscardedNaN())
        #expect(try ReferenceCoders.roundTrip(DiscardedNaN()).get() == DiscardedNaN())
    }

    @Test func theErrorNamesTheDecimalNaNThatReachesTheJSONNotOneDiscarded() throws {
        struct TwoNaNs: Codable, Equatable {
            init() {}
            init(from decoder: any Decoder) throws {}
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(Decimal.nan, forKey: .first)
                try container.encode(Decimal(1), forKey: .first)
                var list = container.nestedUnkeyedContainer(forKey: .detail)
                try list.encode(Decimal(2))
                try list.encode(Decimal.nan)
            }
        }
        #expect(throws: (any Error).self) { try ReferenceCoders.roundTrip(TwoNaNs()).get() }
        let store = Holder<TwoNaNs>.makeStore()
        store.dispatch(Action("set", payload: Carried(TwoNaNs())))
        let error = try #require(throws: SnapshotError.self) { try store.snapshot() }
        #expect(error.codingPath == "value.detail[1]")
    }

    @Test func aStateThatAsksForNestedContainersIsEncodedOncePerVersion() throws {
        final class Calls: @unchecked Sendable {
            // `@unchecked Sendable`: only the store's encoding thread changes it, and the test reads
            // it after the reads that caused the encodes have returned.
            var count = 0
        }
        struct Nested: StateProtocol {
            static let calls = Calls()
            var value = 1
            init() {}
            init(from decoder: any Decoder) throws {
                value = try decoder.container(keyedBy: Key.self).nestedContainer(
                    keyedBy: Key.self, forKey: .detail
                )
                .decode(Int.self, forKey: .amount)
            }
            func encode(to encoder: any Encoder) throws {
                Self.calls.count += 1
                var container = encoder.container(keyedBy: Key.self)
                try container.encode("a", forKey: .note)
                var nested = container.nestedContainer(keyedBy: Key.self, forKey: .detail)
                try nested.encode(value, forKey: .amount)
            }
        }
        let store = Store(reducers: [], state: Nested(), notificationCenter: StoreNotificationCenter())
        #expect(Nested.calls.count == 1)
        for _ in 0..<3 { #expect(try store.snapshot().value == 1) }
        #expect(Nested.calls.count == 1)
    }

    @Test func aCycleOfFlatteningEncodeToIsRefusedInsteadOfOverflowingTheStack() throws {
        // A chain writes its last link's members over the others', as Foundation does.
        try Self.expectFoundationsRoundTrip(Flattened.chain(300))
        let cycle = Flattened(depth: 7)
        cycle.child = cycle
        defer { cycle.child = nil }
        let store = Holder<Flattened>.makeStore()
        store.dispatch(Action("set", payload: Carried(cycle)))
        let error = try #require(throws: SnapshotError.self) { try store.snapshot() }
        #expect(error.underlyingError is SnapshotError.NestingTooDeep)
        #expect(store.currentState().value == nil)
    }

    @Test func aDecimalNaNFailsBothRoundTripsAndTheStoreNamesItsPath() throws {
        struct Split: Codable, Equatable { var shares: [Decimal] }
        let split = Split(shares: [1, Decimal(1) / Decimal(0)])
        #expect(throws: (any Error).self) { try ReferenceCoders.roundTrip(split).get() }
        let store = Holder<Split>.makeStore()
        store.dispatch(Action("set", payload: Carried(split)))
        let error = try #require(throws: SnapshotError.self) { try store.snapshot() }
        #expect(error.codingPath == "value.shares[1]")
        #expect(store.currentState().value == nil)
    }

    @Test func decimalsAtTheirLimitsRoundTripAsFoundationDoes() throws {
        struct Amounts: Codable, Equatable { var values: [Decimal] }
        let values: [Decimal] = [
            Decimal(string: "99999999999999999999999999999999999999")!,
            Decimal(string: "-0.00000000000000000001")!,
            .greatestFiniteMagnitude, .leastNormalMagnitude, .leastNonzeroMagnitude, Decimal(string: "-1.5")!,
            0,
        ]
        try Self.expectFoundationsRoundTrip(Amounts(values: values))
    }

    @Test func aStateOfAHundredThousandItemsIsFoundationsRoundTrip() throws {
        struct Expense: Codable, Equatable {
            var id: Int
            var title: String
            var amount: Decimal
            var tags: [String]
            var paid: Date
        }
        let expenses = (0..<100_000).map { index in
            Expense(
                id: index, title: "expense \(index) \u{1F4B6}", amount: Decimal(index) / 100,
                tags: index % 3 == 0 ? ["a", "b"] : [],
                paid: Date(timeIntervalSinceReferenceDate: Double(index) * 86_400.5))
        }
        // The copies are compared whole; the bytes of smaller states are compared above.
        try Self.expectFoundationsRoundTrip(expenses, comparingBytes: false)
    }
}

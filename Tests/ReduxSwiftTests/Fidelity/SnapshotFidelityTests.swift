import Foundation
import Testing

@testable import ReduxSwift

/// Every snapshot equals Foundation's `JSONEncoder` → `JSONDecoder` round trip of the same value,
/// for the shapes of `encode(to:)` that stray from the usual discipline; where Foundation would
/// stop the program, the store throws a typed error instead.
@Suite(.offThePool) struct SnapshotFidelityTests {
    /// Reads `value` back through a real store, as `snapshot()` does.
    static func storeRoundTrip<Value: StateProtocol>(_ value: Value) throws -> Value {
        let store = Store<Value>(reducers: [], state: value, notificationCenter: StoreNotificationCenter())
        return try store.snapshot()
    }

    static func foundationRoundTrip<Value: Codable>(_ value: Value) throws -> Value {
        try SnapshotCoder.makeDecoder().decode(
            Value.self, from: SnapshotCoder.makeJSONEncoder().encode(value))
    }

    // MARK: Keys written twice

    struct Volume: StateProtocol, Equatable {
        var volume: Int
        enum CodingKeys: String, CodingKey { case volume }
        init(volume: Int) { self.volume = volume }
        init(from decoder: any Decoder) throws {
            volume = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .volume)
        }
        /// Writes a default first, then the real value, as some hand-written conformances do.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(0, forKey: .volume)
            try container.encode(volume, forKey: .volume)
        }
    }

    @Test func aKeyWrittenTwiceKeepsTheLastValueAsFoundationDoes() throws {
        #expect(try Self.foundationRoundTrip(Volume(volume: 7)).volume == 7)
        #expect(try Self.storeRoundTrip(Volume(volume: 7)).volume == 7)
    }

    class Entity: Codable, @unchecked Sendable {
        var id: Int
        init(id: Int) { self.id = id }
        enum CodingKeys: String, CodingKey { case id }
    }

    // `@unchecked Sendable`: test values, never mutated after they are made.
    final class Order: Entity, StateProtocol, @unchecked Sendable {
        var orderID: Int
        init(id: Int, orderID: Int) {
            self.orderID = orderID
            super.init(id: id)
        }
        required init(from decoder: any Decoder) throws {
            orderID = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .id)
            try super.init(from: decoder)
        }
        /// `super.encode(to:)` writes `id`, then the subclass writes its own `id`.
        override func encode(to encoder: any Encoder) throws {
            try super.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(orderID, forKey: .id)
        }
    }

    @Test func aSubclassWritingItsSuperclassesKeyAgainKeepsItsOwnValue() throws {
        let order = Order(id: 10, orderID: 20)
        #expect(try Self.foundationRoundTrip(order).id == 20)
        #expect(try Self.storeRoundTrip(order).id == 20)
        #expect(try Self.storeRoundTrip(order).orderID == 20)
    }

    // MARK: Super encoders

    enum Tier: String, Codable, Sendable { case gold, silver }

    // `@unchecked Sendable`: test values, never mutated after they are made.
    final class Member: Entity, StateProtocol, @unchecked Sendable {
        var tier: Tier
        var badge: UUID
        var nicknames: [String?]
        init(id: Int, tier: Tier, badge: UUID, nicknames: [String?]) {
            self.tier = tier
            self.badge = badge
            self.nicknames = nicknames
            super.init(id: id)
        }
        enum MemberKeys: String, CodingKey { case tier, badge, nicknames }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: MemberKeys.self)
            tier = try container.decode(Tier.self, forKey: .tier)
            badge = try container.decode(UUID.self, forKey: .badge)
            nicknames = try container.decode([String?].self, forKey: .nicknames)
            try super.init(from: container.superDecoder())
        }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: MemberKeys.self)
            try super.encode(to: container.superEncoder())
            try container.encode(tier, forKey: .tier)
            try container.encode(badge, forKey: .badge)
            try container.encode(nicknames, forKey: .nicknames)
        }
    }

    @Test func aSuperEncoderFollowedBySingleValuesRoundTrips() throws {
        let member = Member(id: 3, tier: .gold, badge: UUID(), nicknames: ["Al", nil])
        let copy = try Self.storeRoundTrip(member)
        #expect(copy.id == 3)
        #expect(copy.tier == .gold)
        #expect(copy.badge == member.badge)
        #expect(copy.nicknames == ["Al", nil])
    }

    // MARK: Numbers

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    struct Wide: StateProtocol, Equatable {
        var signed: Int128
        var unsigned: UInt128
        var list: [Int128]
    }

    @Test func int128AndUInt128RoundTrip() throws {
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return }
        let wide = Wide(signed: .min, unsigned: .max, list: [0, -1, Int128(Int64.max) * 4])
        #expect(try Self.foundationRoundTrip(wide) == wide)
        #expect(try Self.storeRoundTrip(wide) == wide)
    }

    // MARK: Depth

    /// A value written through its single-value container: a JSON level costs it no level.
    struct Wrapper<Inner: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
        var inner: Inner
        init(_ inner: Inner) { self.inner = inner }
        init(from decoder: any Decoder) throws {
            inner = try decoder.singleValueContainer().decode(Inner.self)
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(inner)
        }
    }

    final class Level: Codable, @unchecked Sendable, Equatable {
        var next: Wrapper<Wrapper<Wrapper<Level>>>?
        init(next: Level?) { self.next = next.map { Wrapper(Wrapper(Wrapper($0))) } }
        static func == (lhs: Level, rhs: Level) -> Bool { lhs.next == rhs.next }
        static func chain(_ count: Int) -> Level {
            var level = Level(next: nil)
            for _ in 1..<count { level = Level(next: level) }
            return level
        }
    }

    struct Chain: StateProtocol, Equatable {
        var head: Level
    }

    @Test func wrappersDoNotCountAgainstTheDepthLimit() throws {
        let chain = Chain(head: .chain(301))
        #expect(try Self.storeRoundTrip(chain) == chain)
    }

    /// `JSONDecoder` reads 512 levels; `JSONEncoder` writes 511 (it refuses the 512th with an
    /// `EncodingError`). The store's copies are Foundation's round trip: 511 levels round-trip, and
    /// 512 are refused with the path, before `JSONEncoder` starts.
    @Test func aStateAtTheDepthLimitRoundTripsAndOnePastItIsRefused() throws {
        // The root object is level 1, each `head`/`next` object one more.
        let belowLimit = Chain(head: .chain(511 - 2))
        #expect(try Self.foundationRoundTrip(belowLimit) == belowLimit)
        #expect(try Self.storeRoundTrip(belowLimit) == belowLimit)
        let atLimit = Chain(head: .chain(511 - 1))
        #expect(try Self.foundationRoundTrip(atLimit) == atLimit)
        #expect(try Self.storeRoundTrip(atLimit) == atLimit)
        #expect(try StateChange.changes(from: atLimit, to: atLimit).isEmpty)
        let pastLimit = Chain(head: .chain(511))
        #expect(throws: (any Error).self) { try Self.foundationRoundTrip(pastLimit) }
        let error = try #require(throws: SnapshotError.self) { try Self.storeRoundTrip(pastLimit) }
        #expect(error.underlyingError is SnapshotError.NestingTooDeep)
    }

    @Test func aCycleThroughSingleValueWrappersIsRefusedWithATypedError() throws {
        struct Forever: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(Forever())
            }
        }
        let error = try #require(throws: (any Error).self) { try SnapshotEncoder().encode(Forever()) }
        #expect(error is SnapshotError.NestingTooDeep)
    }

    // MARK: What Foundation refuses or would crash on

    struct Nothing: StateProtocol {
        init() {}
        init(from decoder: any Decoder) throws {}
        func encode(to encoder: any Encoder) throws {}
    }

    @Test func aRootThatEncodesNothingIsRefusedAsFoundationRefusesIt() throws {
        #expect(throws: EncodingError.self) { try SnapshotCoder.makeJSONEncoder().encode(Nothing()) }
        let error = try #require(throws: SnapshotError.self) { try Self.storeRoundTrip(Nothing()) }
        #expect(error.kind == .encodingFailed)
        #expect(error.underlyingError is EncodingError)
    }

    struct TwoSingles: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(1)
            try container.encode(2)
        }
    }

    struct KeyedThenUnkeyed: Encodable {
        enum CodingKeys: CodingKey { case a }
        func encode(to encoder: any Encoder) throws {
            var keyed = encoder.container(keyedBy: CodingKeys.self)
            try keyed.encode(1, forKey: .a)
            var unkeyed = encoder.unkeyedContainer()
            try unkeyed.encode(2)
        }
    }

    struct SingleThenKeyed: Encodable {
        enum CodingKeys: CodingKey { case a }
        func encode(to encoder: any Encoder) throws {
            var single = encoder.singleValueContainer()
            try single.encode(1)
            var keyed = encoder.container(keyedBy: CodingKeys.self)
            try keyed.encode(2, forKey: .a)
        }
    }

    struct NestedOverValue: Encodable {
        enum CodingKeys: CodingKey { case a }
        let unkeyedFirst: Bool
        func encode(to encoder: any Encoder) throws {
            var keyed = encoder.container(keyedBy: CodingKeys.self)
            if unkeyedFirst {
                _ = keyed.nestedUnkeyedContainer(forKey: .a)
            } else {
                try keyed.encode(7, forKey: .a)
            }
            _ = keyed.nestedContainer(keyedBy: CodingKeys.self, forKey: .a)
        }
    }

    @Test func aNestedContainerUnderAKeyThatHoldsAnotherValueIsATypedError() throws {
        for unkeyedFirst in [false, true] {
            let error = try #require(throws: EncodingError.self) {
                try SnapshotEncoder().encode(NestedOverValue(unkeyedFirst: unkeyedFirst))
            }
            guard case .invalidValue(_, let context) = error else {
                Issue.record("\(error)")
                continue
            }
            #expect(context.codingPath.map(\.stringValue) == ["a"])
        }
    }

    /// `JSONEncoder` stops the program on each of these; the store throws `EncodingError` and names
    /// where.
    @Test func misusesOfContainersThatStopJSONEncoderAreTypedErrors() throws {
        struct Holder<Value: Encodable>: Encodable {
            var list: [Value]
        }
        for (name, encode) in [
            ("two single values", { try SnapshotEncoder().encode(Holder(list: [TwoSingles()])) }),
            ("keyed then unkeyed", { try SnapshotEncoder().encode(Holder(list: [KeyedThenUnkeyed()])) }),
            ("single then keyed", { try SnapshotEncoder().encode(Holder(list: [SingleThenKeyed()])) }),
        ] as [(String, () throws -> Data)] {
            let error = try #require(throws: EncodingError.self, "\(name)") { try encode() }
            guard case .invalidValue(_, let context) = error else {
                Issue.record("\(name): \(error)")
                continue
            }
            #expect(context.codingPath.map(\.stringValue) == ["list", "Index 0"], "\(name)")
        }
    }

    // MARK: Falling back

    /// Encodes every value; refuses to decode a negative one, as a type whose `init(from:)`
    /// validates more than its `encode(to:)` does.
    struct Validated: StateProtocol, Equatable {
        var value: Int
        init(value: Int) { self.value = value }
        init(from decoder: any Decoder) throws {
            value = try decoder.singleValueContainer().decode(Int.self)
            guard value >= 0 else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "negative"))
            }
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    @Test func aFirstReadOfAVersionThatEncodesButDoesNotDecodeReturnsTheInitialState() throws {
        let store = Store<Validated>(
            reducers: [{ state, action in state.value = action.payload as? Int ?? state.value }],
            state: Validated(value: 1), notificationCenter: StoreNotificationCenter())
        store.dispatch(Action("set", payload: -5))
        #expect(throws: SnapshotError.self) { try store.snapshot() }
        #expect(store.currentState() == Validated(value: 1))
        store.dispatch(Action("set", payload: 7))
        #expect(store.currentState() == Validated(value: 7))
        store.dispatch(Action("set", payload: -1))
        #expect(store.currentState() == Validated(value: 7))
    }

    // MARK: Unordered collections on either path

    struct Tagged: StateProtocol, Equatable {
        var tags: Set<String>
        var volume: Volume
    }

    @Test func setsAreUnorderedOnTheJSONEncoderPathToo() throws {
        var first = Set<String>(minimumCapacity: 4)
        var second = Set<String>(minimumCapacity: 256)
        let words = (0..<40).map { "tag\($0)" }
        for word in words { first.insert(word) }
        for word in words.reversed() { second.insert(word) }
        // `Volume` writes a key twice, so the state takes the `JSONEncoder` path.
        let changes = try StateChange.changes(
            from: Tagged(tags: first, volume: Volume(volume: 1)),
            to: Tagged(tags: second, volume: Volume(volume: 1)))
        #expect(changes.isEmpty)
        second.insert("new")
        let changed = try StateChange.changes(
            from: Tagged(tags: first, volume: Volume(volume: 1)),
            to: Tagged(tags: second, volume: Volume(volume: 1)))
        #expect(changed.map(\.path) == ["tags"])
    }
}

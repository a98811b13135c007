import Dispatch
import Foundation
import Testing

@testable import ReduxSwift

/// States that cannot be written as JSON that reads back, because they nest too deeply or without
/// end, are refused with a `SnapshotError` instead of overflowing the stack.
@Suite(.offThePool) struct SnapshotNestingTests {
    /// One link of a chain that a reducer puts into the state whole.
    ///
    /// `@unchecked Sendable`: a chain is built by the test before it is dispatched, and taken apart
    /// by the test only after the store that held it is gone.
    final class Link: Codable, @unchecked Sendable {
        var value: Int
        var next: Link?

        init(_ value: Int, next: Link? = nil) {
            self.value = value
            self.next = next
        }

        /// A chain of `count` links, the last one holding `count`.
        static func chain(_ count: Int) -> Link {
            let head = Link(1)
            var tail = head
            for value in stride(from: 2, through: count, by: 1) {
                let link = Link(value)
                tail.next = link
                tail = link
            }
            return head
        }

        /// Releases the chain one link at a time, so that freeing it does not recurse as deep as
        /// it is long.
        static func takeApart(_ head: Link) {
            var link = head
            while let next = link.next {
                link.next = nil
                link = next
            }
        }
    }

    struct ChainState: StateProtocol {
        var head: Link? = Link(0)

        /// The links from the head, counted without recursion.
        var length: Int {
            var count = 0
            var link = head
            while let current = link {
                count += 1
                link = current.next
            }
            return count
        }
    }

    static let setHead: Reducer<ChainState> = { state, action in
        if let head = action.payload as? Link { state.head = head }
    }

    static func makeChainStore() -> Store<ChainState> {
        Store(reducers: [Self.setHead], state: ChainState(), notificationCenter: StoreNotificationCenter())
    }

    /// Runs `body` on a Dispatch worker thread, whose stack is much smaller than the main thread's,
    /// and returns its result. The wait is long: under the thread sanitizer, beside other tests,
    /// encoding and decoding a state 510 levels deep has taken more than 20 seconds.
    static func onDispatchQueue<Value>(_ body: @escaping @Sendable () -> Value) -> Value? {
        let result = Recorder<Value>()
        DispatchQueue.global().async { result.append(body()) }
        return result.wait(forCount: 1, timeout: 300) ? result.values.first : nil
    }

    /// What `snapshot()` did: the chain length it read, or the error it threw.
    static func readSnapshot(_ store: Store<ChainState>) -> Result<Int, SnapshotError>? {
        onDispatchQueue {
            do throws(SnapshotError) {
                return .success(try store.snapshot().length)
            } catch {
                return .failure(error)
            }
        }
    }

    static func isNestingTooDeep(_ result: Result<Int, SnapshotError>?, pathPrefix: String) -> Bool {
        guard case .failure(let error)? = result,
            let reason = error.underlyingError as? SnapshotError.NestingTooDeep
        else { return false }
        return error.kind == .encodingFailed && reason.limit == JSONNesting.limit
            && error.codingPath.hasPrefix(pathPrefix)
            && error.codingPath == reason.codingPath && error.description.contains("deeper than 511 levels")
    }

    @Test func aCyclicStateThrowsSnapshotErrorInsteadOfOverflowingTheStack() throws {
        let store = Self.makeChainStore()
        let cycle = Link(7)
        cycle.next = cycle
        store.dispatch(Action("set", payload: cycle))
        #expect(Self.isNestingTooDeep(Self.readSnapshot(store), pathPrefix: "head.next.next.next"))
        // Nothing is lost: a state that encodes again reads normally.
        store.dispatch(Action("set", payload: Link(8)))
        #expect(try Self.readSnapshot(store)?.get() == 1)
        cycle.next = nil
    }

    @Test func aStateNested5000LevelsThrowsSnapshotErrorInsteadOfOverflowingTheStack() throws {
        let store = Self.makeChainStore()
        let chain = Link.chain(5_000)
        store.dispatch(Action("set", payload: chain))
        #expect(Self.isNestingTooDeep(Self.readSnapshot(store), pathPrefix: "head.next"))
        store.dispatch(Action("set", payload: Link(1)))
        #expect(try Self.readSnapshot(store)?.get() == 1)
        Link.takeApart(chain)
    }

    @Test func aDeepButWritableStateRoundTripsUpToTheEncoderLimit() throws {
        let store = Self.makeChainStore()
        // The state object is one level, each link one more: 201 and 511 levels, the most
        // JSONEncoder writes.
        for length in [200, 510] {
            let chain = Link.chain(length)
            store.dispatch(Action("set", payload: chain))
            #expect(try Self.readSnapshot(store)?.get() == length)
            #expect(Self.onDispatchQueue { store.currentState().length } == length)
        }
        let tooLong = Link.chain(511)
        store.dispatch(Action("set", payload: tooLong))
        #expect(Self.isNestingTooDeep(Self.readSnapshot(store), pathPrefix: "head.next"))
        store.dispatch(Action("set", payload: Link(1)))
        #expect(try Self.readSnapshot(store)?.get() == 1)
    }

    @Test func currentStateOfACyclicStateReturnsTheInitialStateWhenNothingWasReadBefore() {
        let store = Self.makeChainStore()
        let cycle = Link(7)
        cycle.next = cycle
        store.dispatch(Action("set", payload: cycle))
        let state = Self.onDispatchQueue { store.currentState().head?.value }
        #expect(state == 0)
        cycle.next = nil
    }

    @Test func currentStateFallsBackToTheInitialStateWhenTheFirstReadCannotEncode() {
        let store = Store(
            reducers: [SnapshotTests.setInner], state: SnapshotTests.FragileState(),
            notificationCenter: StoreNotificationCenter())
        store.dispatch(Action("set", payload: 13))
        #expect(store.currentState().inner.value == 0)
        store.dispatch(Action("set", payload: 14))
        #expect(store.currentState().inner.value == 14)
    }

    /// A history keeps actions, not encoded states: a state that cannot be encoded is a step like
    /// any other, and moving away from it makes the store's snapshots work again.
    @Test func aHistoryRecordsAStateThatCannotBeEncodedAndUndoesIt() throws {
        let store = Self.makeChainStore()
        let history = store.recordHistory()
        let failures = Recorder<StoreNotification>()
        let token = store.observeFailures { failures.append($0) }
        store.dispatch(Action("set", payload: Link(1)))
        let cycle = Link(7)
        cycle.next = cycle
        store.dispatch(Action("set", payload: cycle))
        #expect(Self.onDispatchQueue { history.status.steps } == 3)
        history.undo()
        #expect(try Self.readSnapshot(store)?.get() == 1)
        #expect(failures.values.isEmpty, "recording encodes nothing, so nothing fails")
        withExtendedLifetime(token) {}
        cycle.next = nil
    }

    @Test func theDescriptionOfACyclicStatesErrorAbbreviatesItsPathWhichStaysWhole() {
        let store = Self.makeChainStore()
        let cycle = Link(7)
        cycle.next = cycle
        store.dispatch(Action("set", payload: cycle))
        guard case .failure(let error)? = Self.readSnapshot(store) else {
            Issue.record("a cyclic state must not snapshot")
            return
        }
        #expect(error.codingPath == "head" + String(repeating: ".next", count: 510))
        #expect(error.description.count < 300, "\(error.description.count) characters")
        #expect(
            error.description.hasPrefix(
                "Cannot encode ReduxSwiftTests.SnapshotNestingTests.ChainState at head.next.next.next.next "
                    + "… (501 more) … next.next.next.next.next: the state nests"))
        cycle.next = nil
    }

    @Test func aShortPathIsWrittenWhole() {
        let path = ["todos", "[3]", ".due"]
        #expect(SnapshotError.abbreviated(path) == "todos[3].due")
        let twelve = ["a"] + Array(repeating: ".b", count: 11)
        #expect(SnapshotError.abbreviated(twelve) == twelve.joined())
    }

    @Test func aStateChangeBetweenCyclicValuesThrowsSnapshotError() {
        let cycle = Link(1)
        cycle.next = cycle
        #expect(throws: SnapshotError.self) {
            _ = try StateChange.changes(from: Link(1), to: cycle)
        }
        cycle.next = nil
    }
}

/// The snapshot encoder writes what `JSONEncoder` writes, whatever order containers are used in.
@Suite(.offThePool) struct SnapshotEncoderTests {
    enum Shape: Codable, Equatable {
        case point
        case circle(radius: Double)
        case pair(Int, String)
    }

    struct Everything: Codable, Equatable {
        var integers: [Int] = [.min, -10, -1, 0, 9, 10, .max]
        var unsigned: UInt64 = .max
        var small: [Int8] = [-128, 127]
        var doubles: [Double] = [
            0.1, 1, -0.0, 1e300, .leastNonzeroMagnitude, 1e16, 0.000_1, .infinity, -.infinity,
        ]
        var floats: [Float] = [0.1, 1, 3.402_823_5e38, .infinity]
        var text = "quote \" backslash \\ slash / newline \n tab \t bell \u{7} é 😀"
        var flags = [true, false]
        var optional: Int? = nil
        var present: String? = "here"
        var date = Date(timeIntervalSinceReferenceDate: 123_456.789_012_345)
        var data = Data([0, 1, 2, 254, 255])
        var url = URL(string: "https://example.com/a b?q=1")!
        var decimal = Decimal(string: "12.345")!
        var byInt: [Int: String] = [1: "one", -2: "minus two"]
        var byString: [String: [Double?]] = ["a.b": [1.5, nil], "": []]
        var byUUID: [UUID: Int] = [
            UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)): 1,
            UUID(uuid: (16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)): 2,
        ]
        var set: Set<String> = ["x", "y", "z"]
        var shapes: [Shape] = [.point, .circle(radius: 2), .pair(1, "one")]
        var nested: [[[Int]]] = [[[1], []], []]
        var empty: [String: Int] = [:]
    }

    /// Encodes the nested value after its sibling, through containers kept from earlier.
    struct OutOfOrder: Codable, Equatable {
        var inner: Int
        var outer: [Int]

        enum CodingKeys: String, CodingKey { case inner, outer }

        init(inner: Int, outer: [Int]) {
            self.inner = inner
            self.outer = outer
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            inner = try container.nestedContainer(keyedBy: CodingKeys.self, forKey: .inner)
                .decode(Int.self, forKey: .inner)
            outer = try container.decode([Int].self, forKey: .outer)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var nested = container.nestedContainer(keyedBy: CodingKeys.self, forKey: .inner)
            try container.encode(outer, forKey: .outer)
            try nested.encode(inner, forKey: .inner)
        }
    }

    class Base: Codable {
        var base = 1
    }

    /// Encodes its superclass through `superEncoder()`, as subclasses do.
    final class Derived: Base {
        var own = 2

        enum CodingKeys: String, CodingKey { case own }

        override init() { super.init() }

        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            own = try container.decode(Int.self, forKey: .own)
            try super.init(from: container.superDecoder())
        }

        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(own, forKey: .own)
            try super.encode(to: container.superEncoder())
        }
    }

    /// The JSON of `value` with keys sorted, for comparing encoders that order members differently.
    static func canonical(_ data: Data) throws -> String {
        let object = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
        let sorted = try JSONSerialization.data(
            withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        return String(decoding: sorted, as: UTF8.self)
    }

    static func encodesLikeJSONEncoder<Value: Encodable>(_ value: Value) throws -> Bool {
        let ours = try SnapshotCoder.makeEncoder().encode(value)
        let theirs = try SnapshotCoder.makeJSONEncoder().encode(value)
        return try canonical(ours) == canonical(theirs)
    }

    @Test func writesTheSameJSONAsJSONEncoder() throws {
        #expect(try Self.encodesLikeJSONEncoder(Everything()))
        #expect(try Self.encodesLikeJSONEncoder("top level"))
        #expect(try Self.encodesLikeJSONEncoder(Double.nan))
        #expect(try Self.encodesLikeJSONEncoder([Int?.none]))
        let decoded = try SnapshotCoder.makeDecoder().decode(
            Everything.self, from: SnapshotCoder.makeEncoder().encode(Everything()))
        #expect(decoded == Everything())
        #expect(decoded.doubles[2].sign == .minus)
    }

    @Test func containersUsedOutOfOrderStillRoundTrip() throws {
        let value = OutOfOrder(inner: 1, outer: [2, 3])
        #expect(try Self.encodesLikeJSONEncoder(value))
        let data = try SnapshotCoder.makeEncoder().encode(value)
        #expect(try SnapshotCoder.makeDecoder().decode(OutOfOrder.self, from: data) == value)
    }

    @Test func superEncoderRoundTrips() throws {
        let data = try SnapshotCoder.makeEncoder().encode(Derived())
        #expect(try Self.canonical(data) == #"{"own":2,"super":{"base":1}}"#)
        let decoded = try SnapshotCoder.makeDecoder().decode(Derived.self, from: data)
        #expect(decoded.own == 2 && decoded.base == 1)
    }

    @Test func aValueThatEncodesNothingIsAnEmptyObject() throws {
        struct Nothing: Codable, Equatable {
            func encode(to encoder: any Encoder) throws {}
        }
        #expect(
            String(decoding: try SnapshotCoder.makeEncoder().encode([Nothing()]), as: UTF8.self) == "[{}]")
    }
}

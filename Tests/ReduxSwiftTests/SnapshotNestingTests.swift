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

    // MARK: Graphs whose encode(to:) recurses without a checked call

    struct NodeKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ stringValue: String) { self.stringValue = stringValue }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// A node of a graph, written as one of the kinds of `encode(to:)` apps write.
    ///
    /// `@unchecked Sendable`: the test links the nodes before it hands them over, and unlinks them
    /// only after the reads that encode them have returned.
    final class Node: Codable, @unchecked Sendable {
        enum Kind {
            /// Writes its child through its single-value container: a hand-off, which adds no level.
            case handOff
            /// Passes its own encoder on to its child's `encode(to:)`, as a type-erasing wrapper does:
            /// no level, and no call the checker sees until the child asks for a container.
            case passingOn
            /// Writes its value, then its child into a super encoder, as a subclass writes its
            /// superclass: a level per node, through calls the checker does not wrap.
            case superEncoder
            /// Writes its value under a key of its own, then its child's members into the same
            /// object through the same encoder: flattening, which adds no level.
            case flattening
        }

        let kind: Kind
        let value: Int
        var next: Node?

        init(_ kind: Kind, value: Int = 0) {
            self.kind = kind
            self.value = value
        }

        /// Only a state without a graph is read back.
        init(from decoder: any Decoder) throws {
            kind = .handOff
            value = try decoder.singleValueContainer().decode(Int.self)
        }

        func encode(to encoder: any Encoder) throws {
            switch kind {
            case .handOff:
                var container = encoder.singleValueContainer()
                if let next { try container.encode(next) } else { try container.encode(value) }
            case .passingOn:
                if let next {
                    try next.encode(to: encoder)
                } else {
                    var container = encoder.singleValueContainer()
                    try container.encode(value)
                }
            case .superEncoder:
                var container = encoder.container(keyedBy: NodeKey.self)
                try container.encode(value, forKey: NodeKey("value"))
                if let next { try next.encode(to: container.superEncoder()) }
            case .flattening:
                var container = encoder.container(keyedBy: NodeKey.self)
                try container.encode(value, forKey: NodeKey("k\(value)"))
                try next?.encode(to: encoder)
            }
        }

        /// Nodes of `kinds` linked in order, the last one back to the first.
        static func cycle(_ kinds: [Kind]) -> Node {
            let nodes = kinds.map { Node($0) }
            for (node, next) in zip(nodes, nodes.dropFirst() + [nodes[0]]) { node.next = next }
            return nodes[0]
        }

        /// `count` flattening nodes, valued 0 to `count - 1`: one object with a member each.
        static func flatteningChain(_ count: Int) -> Node {
            let head = Node(.flattening, value: 0)
            var tail = head
            for value in 1..<count {
                let node = Node(.flattening, value: value)
                tail.next = node
                tail = node
            }
            return head
        }

        /// Unlinks the nodes from this one on, cycle or chain, so that they are freed one at a
        /// time rather than in a recursion as deep as the graph.
        func unlink() {
            var node: Node? = self
            while let current = node {
                node = current.next
                current.next = nil
            }
        }
    }

    struct GraphState: StateProtocol {
        var root: Node?
    }

    static func makeGraphStore(holding root: Node) -> Store<GraphState> {
        let store = Store(
            reducers: [{ state, action in state.root = action.payload as? Node }], state: GraphState(),
            notificationCenter: StoreNotificationCenter())
        store.dispatch(Action("set", payload: root))
        return store
    }

    /// Runs `body` on a new thread with a `stackSize` stack and returns its result; `nil` if it did
    /// not finish in time.
    static func onThread<Value>(stackSize: Int, _ body: @escaping @Sendable () -> Value) -> Value? {
        let result = Recorder<Value>()
        let thread = Thread { result.append(body()) }
        thread.stackSize = stackSize
        thread.start()
        return result.wait(forCount: 1, timeout: 300) ? result.values.first : nil
    }

    /// A hand-off inside sixteen wrappers that pass their encoder on, in a cycle: a call the
    /// checker sees, and sixteen it does not, each time round.
    static let mixedCycle: [Node.Kind] = [.handOff] + Array(repeating: .passingOn, count: 16)

    /// What a Dispatch worker or a cooperative-pool thread has on Apple platforms.
    static let smallStack = 512 << 10

    /// The error `snapshot()` threw, or `nil` if it returned.
    static func snapshotError(_ store: Store<GraphState>) -> SnapshotError? {
        do throws(SnapshotError) {
            _ = try store.snapshot()
            return nil
        } catch {
            return error
        }
    }

    static func isNestingTooDeep(_ error: SnapshotError?, pathPrefix: String) -> Bool {
        guard let error, let reason = error.underlyingError as? SnapshotError.NestingTooDeep else {
            return false
        }
        return error.kind == .encodingFailed && error.codingPath.hasPrefix(pathPrefix)
            && error.codingPath == reason.codingPath
    }

    /// Each call the checker sees costs the stack far more than the counts it kept assumed (they
    /// let this cycle overflow the 64 MiB deep stack): the main thread's stack is what runs out
    /// first, then the deep stack's, where the cycle ends. (On Apple platforms the main actor runs
    /// on the main thread; under `swift test` on Linux, on the thread that drains the main queue.)
    @MainActor
    @Test func aCycleOfAHandOffAndWrappersThatPassTheirEncoderOnIsRefusedOnTheMainActor() {
        let cycle = Node.cycle(Self.mixedCycle)
        defer { cycle.unlink() }
        let store = Self.makeGraphStore(holding: cycle)
        #expect(Self.isNestingTooDeep(Self.snapshotError(store), pathPrefix: "root"))
        #expect(store.currentState().root == nil)
    }

    /// The 64 calls the checker allowed on the calling thread overflowed a 512 KiB stack.
    @Test func aCycleOfAHandOffAndWrappersThatPassTheirEncoderOnIsRefusedOnA512KiBThread() {
        let cycle = Node.cycle(Self.mixedCycle)
        defer { cycle.unlink() }
        let store = Self.makeGraphStore(holding: cycle)
        let error = Self.onThread(stackSize: Self.smallStack) { Self.snapshotError(store) }
        #expect(Self.isNestingTooDeep(error ?? nil, pathPrefix: "root"))
        #expect(Self.onThread(stackSize: Self.smallStack) { store.currentState().root == nil } == true)
    }

    /// A super encoder adds a level, but no call the checker wraps: a 512 KiB stack ran out long
    /// before the 511th level.
    @Test func aCycleThroughSuperEncodersIsRefusedOnA512KiBThread() {
        let cycle = Node.cycle([.superEncoder])
        defer { cycle.unlink() }
        let store = Self.makeGraphStore(holding: cycle)
        let error = Self.onThread(stackSize: Self.smallStack) { Self.snapshotError(store) }
        #expect(Self.isNestingTooDeep(error ?? nil, pathPrefix: "root.super.super.super"))
        #expect(error??.codingPath == "root" + String(repeating: ".super", count: 510))
    }

    /// Flattening adds no level, so only the stack limits a chain of it: one that fits on the deep
    /// stack is written as `JSONEncoder` writes it, however long.
    @Test(
        .disabled(
            if: ThreadStack.sanitizerLimit != .max,
            "the thread sanitizer limits an encoding to 8 MiB of stack, less than this chain takes"))
    func aFlatteningChainOf20000LinksIsWrittenAsJSONEncoderWritesIt() throws {
        let chain = Node.flatteningChain(20_000)
        defer { chain.unlink() }
        // `JSONEncoder` recurses once per link too: a 256 MiB stack holds it.
        let reference = try #require(
            Self.onThread(stackSize: 256 << 20) {
                Result { try SnapshotCoder.makeJSONEncoder().encode(chain) }
            })
        let ours = try #require(
            Self.onThread(stackSize: Self.smallStack) { Result { try SnapshotEncoder().encode(chain) } })
        let expected = try SnapshotEncoderTests.canonical(reference.get())
        #expect(try SnapshotEncoderTests.canonical(ours.get()) == expected)
        let members = try JSONSerialization.jsonObject(with: reference.get()) as? [String: Int]
        #expect(members?.count == 20_000 && members?["k19999"] == 19_999)
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

import Foundation
import ReduxSwift
import Testing

/// Rule 3: deep copies, each version encoded once, decoded on the reader's thread.
@Suite(.offThePool) struct SnapshotTests {
    final class Box: Codable, @unchecked Sendable {
        var value: Int
        init(_ value: Int) { self.value = value }
    }

    struct ObjectState: StateProtocol {
        var box = Box(1)
        var boxes: [Box] = [Box(2), Box(3)]
    }

    @Test func everyReadIsADeepCopySharingNoObject() {
        let store = Store<ObjectState>(
            reducers: [], state: ObjectState(), notificationCenter: StoreNotificationCenter())
        let first = store.currentState()
        let second = store.currentState()
        #expect(first.box !== second.box)
        #expect(first.boxes[0] !== second.boxes[0])
        first.box.value = 99
        first.boxes[1].value = 99
        #expect(second.box.value == 1)
        #expect(store.currentState().box.value == 1)
        #expect(store.currentState().boxes.map(\.value) == [2, 3])
    }

    /// Counts the encodes of the live state: the probe object is not encoded, so only the store's own
    /// copy of the state (which keeps the test's probe) reports to it.
    final class EncodeProbe: @unchecked Sendable {
        let encodes = Recorder<Int>()
    }

    struct ProbedState: StateProtocol {
        var value = 0
        var probe: EncodeProbe?

        enum CodingKeys: String, CodingKey { case value }

        init(probe: EncodeProbe) { self.probe = probe }

        init(from decoder: any Decoder) throws {
            value = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .value)
        }

        func encode(to encoder: any Encoder) throws {
            probe?.encodes.append(value)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(value, forKey: .value)
        }
    }

    static let setValue: Reducer<ProbedState> = { state, action in
        if let amount = action.payload as? Int { state.value = amount }
    }

    @Test func aVersionIsEncodedOnceHoweverManyReadersAsk() {
        let probe = EncodeProbe()
        let store = Store(
            reducers: [Self.setValue], state: ProbedState(probe: probe),
            notificationCenter: StoreNotificationCenter())
        #expect(probe.encodes.values == [0])  // the initial snapshot
        store.dispatch(Action("set", payload: 7))
        concurrently(100) { _ in #expect(store.currentState().value == 7) }
        #expect(probe.encodes.values == [0, 7])
        for _ in 0..<10 { #expect(store.currentState().value == 7) }
        #expect(probe.encodes.values == [0, 7])
    }

    @Test func noJSONWorkHappensWithoutReaders() {
        let probe = EncodeProbe()
        let store = Store(
            reducers: [Self.setValue], state: ProbedState(probe: probe),
            notificationCenter: StoreNotificationCenter())
        for value in 1...1000 { store.dispatch(Action("set", payload: value)) }
        #expect(store.currentState().value == 1000)
        #expect(probe.encodes.values == [0, 1000])
    }

    /// Records which thread decodes it, keyed by a tag so that parallel tests do not mix.
    struct ThreadTaggedState: StateProtocol {
        static let decodingThreads = Recorder<(tag: String, thread: ObjectIdentifier)>()
        var tag: String

        init(tag: String) { self.tag = tag }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            tag = try container.decode(String.self)
            Self.decodingThreads.append((tag, currentThreadID()))
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(tag)
        }
    }

    @Test func readersDecodeOnTheirOwnThreadsAtTheSameTime() {
        let tag = UUID().uuidString
        let store = Store<ThreadTaggedState>(
            reducers: [], state: ThreadTaggedState(tag: tag), notificationCenter: StoreNotificationCenter())
        let readers = Recorder<ObjectIdentifier>()
        onThreads(4) { _ in
            readers.append(currentThreadID())
            _ = store.currentState()
        }
        let decoders = Set(ThreadTaggedState.decodingThreads.values.filter { $0.tag == tag }.map(\.thread))
        #expect(decoders == Set(readers.values))
    }

    struct FloatState: StateProtocol {
        var values: [Double] = [.nan, .infinity, -.infinity, 0, -0.0, .greatestFiniteMagnitude, 0.1]
        var single: Float = .nan
        var date = Date(timeIntervalSinceReferenceDate: 123_456.789_012_345)
        var text = "NaN"
    }

    @Test func nonConformingFloatsAndDatesRoundTrip() throws {
        let store = Store<FloatState>(
            reducers: [], state: FloatState(), notificationCenter: StoreNotificationCenter())
        let state = try store.snapshot()
        #expect(state.values[0].isNaN)
        #expect(state.values[1] == .infinity)
        #expect(state.values[2] == -.infinity)
        #expect(state.values[4].sign == .minus)
        #expect(Array(state.values[5...]) == [.greatestFiniteMagnitude, 0.1])
        #expect(state.single.isNaN)
        #expect(state.date == FloatState().date)
        #expect(state.text == "NaN")
    }

    /// Encoding fails when `inner.value` is 13; decoding fails when it is 42.
    struct FragileState: StateProtocol, Equatable {
        struct Inner: Codable, Equatable {
            var value = 0

            enum CodingKeys: String, CodingKey { case value }

            init() {}

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                value = try container.decode(Int.self, forKey: .value)
                if value == 42 {
                    throw DecodingError.dataCorruptedError(
                        forKey: .value, in: container, debugDescription: "42 is not allowed")
                }
            }

            func encode(to encoder: any Encoder) throws {
                if value == 13 {
                    throw EncodingError.invalidValue(
                        value,
                        .init(
                            codingPath: encoder.codingPath + [CodingKeys.value],
                            debugDescription: "13 is unlucky"))
                }
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(value, forKey: .value)
            }
        }

        var inner = Inner()
    }

    static let setInner: Reducer<FragileState> = { state, action in
        if let value = action.payload as? Int { state.inner.value = value }
    }

    @Test func aStateThatCannotBeEncodedReportsTheTypeAndCodingPath() {
        let store = Store(
            reducers: [Self.setInner], state: FragileState(), notificationCenter: StoreNotificationCenter())
        store.dispatch(Action("set", payload: 13))
        #expect {
            _ = try store.snapshot()
        } throws: { error in
            guard let error = error as? SnapshotError else { return false }
            return error.kind == .encodingFailed && error.stateType.hasSuffix("FragileState")
                && error.codingPath == "inner.value" && error.description.contains("13 is unlucky")
        }
    }

    @Test func aStateThatCannotBeDecodedReportsTheTypeAndCodingPath() {
        let store = Store(
            reducers: [Self.setInner], state: FragileState(), notificationCenter: StoreNotificationCenter())
        store.dispatch(Action("set", payload: 42))
        #expect {
            _ = try store.snapshot()
        } throws: { error in
            guard let error = error as? SnapshotError else { return false }
            return error.kind == .decodingFailed && error.codingPath == "inner.value"
                && error.description.hasPrefix("Cannot decode")
        }
    }

    @Test func currentStateFallsBackToTheNewestStateThatRoundTripsAndLosesNothing() throws {
        let store = Store(
            reducers: [Self.setInner], state: FragileState(), notificationCenter: StoreNotificationCenter())
        store.dispatch(Action("set", payload: 12))
        #expect(store.currentState().inner.value == 12)
        store.dispatch(Action("set", payload: 13))
        #expect(store.currentState().inner.value == 12)
        store.dispatch(Action("set", payload: 42))
        #expect(store.currentState().inner.value == 12)
        store.dispatch(Action("set", payload: 14))
        #expect(try store.snapshot().inner.value == 14)
        #expect(store.currentState().inner.value == 14)
    }
}

import Foundation
import Testing

@testable import ReduxSwift

/// Where a store encodes a large state, and what it holds while it does: a reader that waits for a
/// large state encodes it on its own thread, where it decodes it too, and the encoding starts once
/// the previous rollback base is released.
@Suite(.offThePool) struct SnapshotMemoryTests {
    @Test func aReaderThatWaitsForALargeStateEncodesItOnItsOwnThread() {
        let release = Gate()
        let threads = Recorder<ObjectIdentifier>()
        let store = Store<ThreadRecordingState>(
            reducers: [
                { state, _ in
                    release.wait()
                    state.counter += 1
                }
            ],
            state: ThreadRecordingState(threads: threads), notificationCenter: StoreNotificationCenter())
        // Every snapshot of this store counts as large.
        store.kernel.setReaderEncodingThreshold(0)
        let reader = Recorder<ObjectIdentifier>()
        let read = Recorder<Int>()
        let finished = onNewThread {
            reader.append(ObjectIdentifier(Thread.current))
            store.dispatch(TestAction.increment)
            read.append(store.currentState().counter)
        }
        #expect(waitUntil { store.kernel.inspect(\.waitingReaderCount) == 1 })
        release.open()
        #expect(finished.wait())
        #expect(read.values == [1])
        // The initializer's encoding, then the one the read asked for.
        #expect(threads.count == 2)
        #expect(threads.values.last == reader.values.first, "the waiting reader encoded version 1")
        #expect(store.kernel.inspect(\.holder) == .nobody)
    }

    @Test func theEncodingOfANewVersionStartsAfterThePreviousRollbackBaseIsReleased() {
        let generations = LiveGenerations()
        let store = Store<GenerationState>(
            reducers: [
                { state, _ in
                    state.generation = Generation(
                        number: state.generation.number + 1, in: state.generation.registry)
                }
            ],
            state: GenerationState(generation: Generation(number: 1, in: generations)),
            notificationCenter: StoreNotificationCenter())
        store.dispatch(TestAction.increment)
        #expect(store.currentState().generation.number == 2)
        // What was alive while `encode(to:)` wrote generation 2: not generation 1, which only the
        // rollback base of the first action still held.
        #expect(generations.aliveWhileEncoding[2] == [2])
        store.dispatch(TestAction.increment)
        #expect(store.currentState().generation.number == 3)
        #expect(generations.aliveWhileEncoding[3] == [3])
    }
}

/// A state whose every encoding records the thread it ran on.
private struct ThreadRecordingState: StateProtocol {
    var counter = 0
    /// Where encodings are recorded; not part of the JSON (a decoded copy records nothing).
    let threads: Recorder<ObjectIdentifier>?

    init(threads: Recorder<ObjectIdentifier>) {
        self.threads = threads
    }

    private enum CodingKeys: String, CodingKey { case counter }

    init(from decoder: any Decoder) throws {
        counter = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .counter)
        threads = nil
    }

    func encode(to encoder: any Encoder) throws {
        threads?.append(ObjectIdentifier(Thread.current))
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(counter, forKey: .counter)
    }
}

/// The generations alive now, and those that were while each generation was encoded.
private final class LiveGenerations: @unchecked Sendable {
    // `@unchecked Sendable`: both properties are read and written only under `lock`.
    private let lock = NSLock()
    private var alive: [Int: Int] = [:]
    private var seen: [Int: Set<Int>] = [:]

    func born(_ number: Int) { lock.withLock { alive[number, default: 0] += 1 } }

    func died(_ number: Int) {
        lock.withLock {
            alive[number, default: 0] -= 1
            if alive[number] == 0 { alive[number] = nil }
        }
    }

    func encoding(_ number: Int) { lock.withLock { seen[number] = Set(alive.keys) } }

    var aliveWhileEncoding: [Int: Set<Int>] { lock.withLock { seen } }
}

/// An object of the state that counts itself alive while it exists.
private final class Generation: Sendable {
    let number: Int
    let registry: LiveGenerations

    init(number: Int, in registry: LiveGenerations) {
        self.number = number
        self.registry = registry
        registry.born(number)
    }

    deinit { registry.died(number) }
}

/// A state holding one generation; a decoded copy holds a generation of a registry of its own.
private struct GenerationState: StateProtocol {
    var generation: Generation

    init(generation: Generation) {
        self.generation = generation
    }

    private enum CodingKeys: String, CodingKey { case generation }

    init(from decoder: any Decoder) throws {
        let number = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .generation)
        generation = Generation(number: number, in: LiveGenerations())
    }

    func encode(to encoder: any Encoder) throws {
        generation.registry.encoding(generation.number)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(generation.number, forKey: .generation)
    }
}

import Foundation
import Testing

@testable import ReduxSwift

/// A reference the selected value holds: a class, so the value is not `Equatable`.
final class ReadingMarker: Sendable {}

/// A selected value that is not `Equatable`: an array and a class reference.
struct LogReading: Sendable {
    var log: [String]
    var marker: ReadingMarker
}

/// An action no reducer handles: it commits and changes nothing.
enum UnhandledAction: ActionProtocol {
    case ping
}

@Suite(.offThePool) struct OwnerBoundObservationTests {
    final class Owner: Sendable {
        let seen = Recorder<Int>()
        /// Opened when the owner is freed.
        let freed: Gate

        init(freed: Gate = Gate()) {
            self.freed = freed
        }

        deinit { freed.open() }
    }

    @Test func theOwnerIsPassedToTheBlockAndNotKeptAlive() {
        let store = makeStore()
        let freed = Gate()
        do {
            let owner = Owner(freed: freed)
            store.observe(\.counter, owner: owner) { owner, value in owner.seen.append(value) }
            store.dispatch(TestAction.increment)
            #expect(owner.seen.wait { $0.last == 1 })
        }
        // The delivery thread holds the owner until the block returns, which may be just after the
        // value is seen: wait for the owner to be freed, which a registration keeping it prevents.
        #expect(freed.wait(timeout: 10), "the registration does not retain its owner")
    }

    @Test func nothingIsDeliveredAfterTheOwnerIsFreedAndTheRegistrationGoes() {
        let store = makeStore()
        let delivered = Recorder<Int>()
        let stateReleased = Gate()
        let counterReleased = Gate()
        do {
            let owner = Owner()
            store.observe(witnessed(stateReleased) { $0 }, owner: owner) { _, state in
                delivered.append(state.counter)
            }
            store.observe(witnessed(counterReleased) { $0.counter }, owner: owner) { _, value in
                delivered.append(value)
            }
            #expect(delivered.values == [0, 0])
        }
        let (appends, token) = recordAppends(announcedBy: store)
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.append("after"))
        #expect(appends.wait(forCount: 1))
        #expect(delivered.values == [0, 0])
        // The first change after the owner is gone finds it gone, and the store lets go of both.
        #expect(stateReleased.wait(), "the observer of the state is removed")
        #expect(counterReleased.wait(), "the observer of the counter is removed")
        withExtendedLifetime(token) {}
    }

    @Test func anObserverWhoseValueNeverChangesIsRemovedAtTheFirstChangeAfterItsOwnerIsFreed() {
        let store = makeStore()
        let released = Gate()
        let seen = Recorder<Int>()
        do {
            let owner = Owner()
            store.observe(witnessed(released) { $0.todos.count }, owner: owner) { _, count in
                seen.append(count)
            }
            #expect(seen.values == [0])
        }
        // A change elsewhere: the selected count stays 0, so nothing is delivered that could find
        // the owner gone; the store finds it before selecting.
        store.dispatch(TestAction.increment)
        #expect(released.wait(), "the store let go of the observer although its value never changed")
        #expect(seen.values == [0])
    }

    @Test func aValueThatIsNotEquatableIsDeliveredAfterEveryCommittedActionAndNeverForAFailedOne() {
        let store = makeStore()
        let owner = Owner()
        let marker = ReadingMarker()
        let readings = Recorder<LogReading>()
        let select: @Sendable (TestState) -> LogReading = { LogReading(log: $0.log, marker: marker) }
        store.observe(select, owner: owner) { _, reading in readings.append(reading) }
        #expect(readings.values.map { $0.log } == [[]], "the first value, before observe returned")
        // Each action is announced before the next is dispatched, so each makes a pass of its own;
        // the values of a pass are delivered before its announcement.
        let steps: [(action: any ActionProtocol, log: [String]?)] = [
            (TestAction.append("a"), ["a"]),
            (TestAction.increment, ["a"]),  // changes the state, not the value
            (UnhandledAction.ping, ["a"]),  // changes nothing
            (TestAction.fail, nil),  // rolled back: no value
            (TestAction.append("b"), ["a", "b"]),
        ]
        var expected: [[String]] = [[]]
        for step in steps {
            dispatchAndAwaitAnnouncement(step.action, to: store)
            if let log = step.log { expected.append(log) }
            #expect(readings.values.map { $0.log } == expected, "after \(step.action)")
        }
        #expect(readings.values.allSatisfy { $0.marker === marker })
        withExtendedLifetime(owner) {}
    }

    @Test func anEquatableValueSkipsRepeats() {
        let store = makeStore()
        let owner = Owner()
        let logs = Recorder<[String]>()
        store.observe(\.log, owner: owner) { _, log in logs.append(log) }
        for action: any ActionProtocol in [TestAction.increment, UnhandledAction.ping, TestAction.fail] {
            dispatchAndAwaitAnnouncement(action, to: store)
        }
        #expect(logs.values == [[]], "actions that leave the value as it was deliver nothing")
        dispatchAndAwaitAnnouncement(TestAction.append("a"), to: store)
        dispatchAndAwaitAnnouncement(TestAction.increment, to: store)
        #expect(logs.values == [[], ["a"]])
        withExtendedLifetime(owner) {}
    }

    @Test func releasingTheTokenDoesNotStopAnOwnerBoundObserver() {
        let store = makeStore()
        let owner = Owner()
        do {
            let token = store.observe(\.counter, owner: owner) { owner, value in owner.seen.append(value) }
            #expect(owner.seen.values == [0])
            _ = token
        }
        store.dispatch(TestAction.increment)
        #expect(owner.seen.wait { $0.last == 1 }, "the released token left the observer in place")
        #expect(owner.seen.values == [0, 1])
    }

    @Test func cancellingTheTokenStopsAnOwnerBoundObserverEarly() {
        let store = makeStore()
        let owner = Owner()
        let released = Gate()
        let token = store.observe(witnessed(released) { $0.counter }, owner: owner) { owner, value in
            owner.seen.append(value)
        }
        #expect(owner.seen.values == [0])
        token.cancel()
        #expect(released.wait(timeout: 0), "cancelling removes the observer at once")
        let (appends, appendToken) = recordAppends(announcedBy: store)
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.append("after"))
        #expect(appends.wait(forCount: 1))
        #expect(owner.seen.values == [0], "no value after cancel")
        withExtendedLifetime(appendToken) {}
    }
}

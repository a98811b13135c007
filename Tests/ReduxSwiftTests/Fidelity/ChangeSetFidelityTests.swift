import Foundation
import Testing

@testable import ReduxSwift

/// Change sets report exactly the paths whose JSON differs: compared as bytes, enum payloads
/// included, unordered collections compared as unordered.
@Suite(.offThePool) struct ChangeSetFidelityTests {
    enum Player: Codable, Sendable, Equatable {
        case stopped
        case playing(Int)
    }

    struct Jukebox: StateProtocol, Equatable {
        var player = Player.stopped
        var title = "Cafe\u{301}"
        var _cache = 0
    }

    enum JukeboxAction: ActionProtocol {
        case play(Int)
        case title(String)
        case cache(Int)
    }

    static let jukeboxReducer: Reducer<Jukebox> = { state, action in
        switch action as? JukeboxAction {
        case .play(let track)?: state.player = .playing(track)
        case .title(let title)?: state.title = title
        case .cache(let value)?: state._cache = value
        case nil: break
        }
    }

    /// Observes `paths`, dispatches `actions` (each committed before the next), and returns what the
    /// block received once `done` holds for it.
    func delivered(
        at paths: [String], after actions: [JukeboxAction],
        until done: @escaping @Sendable ([[StateChange]]) -> Bool
    ) async -> [[StateChange]] {
        let store = Store<Jukebox>(
            reducers: [Self.jukeboxReducer], state: Jukebox(), notificationCenter: StoreNotificationCenter())
        let recorder = Recorder<[StateChange]>()
        let token = store.observeStateChanges(at: paths) { recorder.append($0) }
        for action in actions {
            store.dispatch(action)
            _ = store.currentState()
        }
        #expect(await recorder.waitOffThePool(until: done))
        withExtendedLifetime(token) {}
        return recorder.values
    }

    @Test func anEnumPayloadChangeIsReportedUnderTheWatchedPath() async {
        let expected = [
            StateChange(path: "player.playing._0", oldValue: .number("1"), newValue: .number("2"))
        ]
        let changes = await delivered(at: ["player"], after: [.play(1), .play(2)]) { $0.count >= 2 }
        #expect(changes.last == expected)
    }

    @Test func aStringWhoseBytesChangeIsReportedEvenWhenSwiftCallsItEqual() throws {
        #expect("Caf\u{E9}" == "Cafe\u{301}")
        let before = Jukebox(title: "Cafe\u{301}")
        let after = Jukebox(title: "Caf\u{E9}")
        let changes = try StateChange.changes(from: before, to: after)
        #expect(changes.map(\.path) == ["title"])
        #expect(JSONValue.string("Caf\u{E9}") != JSONValue.string("Cafe\u{301}"))
        #expect(Set([JSONValue.string("Caf\u{E9}"), .string("Cafe\u{301}")]).count == 2)
    }

    @Test func underscoredMembersAreLeftOutUnlessAWatchedPathNamesThem() async {
        // The title change comes after the cache change, so once it is delivered, so is anything
        // the cache change would have brought.
        let unnamed = await delivered(at: [], after: [.cache(1), .title("marker")]) { deliveries in
            deliveries.joined().contains { $0.path == "title" }
        }
        #expect(unnamed.joined().map(\.path) == ["title"])
        let named = await delivered(at: ["_cache"], after: [.cache(1)]) { $0.count >= 1 }
        #expect(named == [[StateChange(path: "_cache", oldValue: .number("0"), newValue: .number("1"))]])
    }

    @Test func enumPayloadMembersAreNotTakenForInternalOnes() {
        #expect(StateDiff.isUnderscoredMember("_cache"))
        #expect(StateDiff.isUnderscoredMember("_"))
        #expect(StateDiff.isUnderscoredMember("_1a"))
        #expect(!StateDiff.isUnderscoredMember("_0"))
        #expect(!StateDiff.isUnderscoredMember("_12"))
        #expect(!StateDiff.isUnderscoredMember("cache"))
    }
}

import Foundation
import Testing

@testable import ReduxSwift

/// Change sets report exactly the paths whose JSON differs: compared as bytes, enum payloads
/// included, unordered collections compared as unordered.
@Suite struct ChangeSetFidelityTests {
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

    /// Observes `paths`, dispatches `actions`, and returns what the block received by the time
    /// the last action's change set arrived.
    func delivered(at paths: [String], after actions: [JukeboxAction], expecting count: Int)
        -> [[StateChange]]
    {
        let store = Store<Jukebox>(
            reducers: [Self.jukeboxReducer], state: Jukebox(), notificationCenter: StoreNotificationCenter())
        let recorder = Recorder<[StateChange]>()
        let token = store.observeStateChanges(at: paths) { recorder.append($0) }
        for action in actions {
            store.dispatch(action)
            _ = store.currentState()
        }
        recorder.wait(forCount: count, timeout: count == 0 ? 0.5 : 20)
        withExtendedLifetime(token) {}
        return recorder.values
    }

    @Test func anEnumPayloadChangeIsReportedUnderTheWatchedPath() {
        let changes = delivered(at: ["player"], after: [.play(1), .play(2)], expecting: 2)
        #expect(
            changes.last == [
                StateChange(path: "player.playing._0", oldValue: .number("1"), newValue: .number("2"))
            ])
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

    @Test func underscoredMembersAreLeftOutUnlessAWatchedPathNamesThem() {
        let unnamed = delivered(at: [], after: [.cache(1)], expecting: 0)
        #expect(unnamed.isEmpty)
        let named = delivered(at: ["_cache"], after: [.cache(1)], expecting: 1)
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

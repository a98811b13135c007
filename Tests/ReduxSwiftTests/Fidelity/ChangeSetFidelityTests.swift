import Foundation
import Testing

@testable import ReduxSwift

/// `StateChange.changes` reports exactly the paths whose JSON differs: compared as bytes, enum payloads
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

    @Test func anEnumPayloadChangeIsReportedUnderItsMember() throws {
        let changes = try StateChange.changes(
            from: Jukebox(player: .playing(1)), to: Jukebox(player: .playing(2)))
        #expect(
            changes == [
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

    @Test func underscoredMembersAreLeftOutOnlyWhenAsked() throws {
        let before = Jukebox()
        let after = Jukebox(title: "marker", _cache: 1)
        let all = try StateChange.changes(from: before, to: after)
        #expect(all.map(\.path) == ["_cache", "title"], "the archive's loss check compares everything")
        let visible = try StateChange.changes(from: before, to: after, ignoringUnderscoredMembers: true)
        #expect(visible.map(\.path) == ["title"])
        #expect(
            all.first == StateChange(path: "_cache", oldValue: .number("0"), newValue: .number("1")))
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

import Foundation
import Testing

@testable import ReduxSwift

/// `loadFixture(at:)` fails on every value a load drops or changes, however small the change.
@Suite struct FixtureFidelityTests {
    struct Account: StateProtocol, Equatable {
        var balance: Decimal = 0
        var rate = 0.5
        var owners: [String: Int] = [:]
    }

    /// Writes `state` (the JSON of an `Account`) as a version-1 fixture and loads it.
    func loadFixture(_ state: String) throws(PersistenceError) -> Account {
        let directory = TemporaryDirectory()
        let fixture = directory.file("fixture.json")
        try? Data(#"{"schemaVersion":1,"state":\#(state)}"#.utf8).write(to: fixture)
        return try StateArchive<Account>(file: directory.file("live.json")).loadFixture(at: fixture)
    }

    @Test func aDecimalWithDigitsPastWhatADecimalHoldsFailsNamingIt() throws {
        let error = try #require(throws: PersistenceError.self) {
            try loadFixture(#"{"balance":1234567890123456789012345678901234567891,"rate":0.5,"owners":{}}"#)
        }
        #expect(error.description.contains("state.balance"))
    }

    @Test func theSameNumberWrittenAnotherWayLoads() throws {
        let account = try loadFixture(#"{"balance":1.50,"rate":5e-1,"owners":{"ann":1E0}}"#)
        #expect(account == Account(balance: 1.5, rate: 0.5, owners: ["ann": 1]))
    }

    @Test func twoNamesThatDifferOnlyInNormalizationAreAValueDropped() throws {
        // A precomposed and a decomposed "é": two members in JSON, one key of a Swift dictionary.
        let error = try #require(throws: PersistenceError.self) {
            try loadFixture(#"{"balance":1,"rate":0.5,"owners":{"\u00e9":1,"e\u0301":2}}"#)
        }
        #expect(error.description.contains("state.owners"))
        #expect(error.description.contains("2"))
    }

    @Test func dictionariesOfPairsInsideDictionariesOfPairsInAnyOrderLoad() throws {
        struct Groups: StateProtocol, Equatable { var groups: [UUID: [UUID: Int]] = [:] }
        // Keys that are neither strings nor integers are written as `[key, value, …]`, in the
        // order of a hash seeded anew in each process: a fixture holds another order than the
        // one the same values are written in again, at both levels.
        let ids = (0..<8).map { UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", $0))! }
        func inner(_ offset: Int) -> [UUID: Int] {
            Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($0.element, $0.offset + offset) })
        }
        let state = Groups(groups: [ids[0]: inner(0), ids[1]: inner(10), ids[2]: inner(20)])
        func pairs(_ entries: [(UUID, String)]) -> String {
            "[" + entries.map { #""\#($0.0.uuidString)",\#($0.1)"# }.joined(separator: ",") + "]"
        }
        func reversedJSON(_ dictionary: [UUID: Int]) -> String {
            pairs(
                dictionary.sorted { $0.key.uuidString > $1.key.uuidString }.map { ($0.key, String($0.value)) }
            )
        }
        let json = pairs(
            state.groups.sorted { $0.key.uuidString > $1.key.uuidString }.map {
                ($0.key, reversedJSON($0.value))
            })
        let directory = TemporaryDirectory()
        let fixture = directory.file("fixture.json")
        try Data(#"{"schemaVersion":1,"state":{"groups":\#(json)}}"#.utf8).write(to: fixture)
        #expect(try StateArchive<Groups>(file: directory.file("live.json")).loadFixture(at: fixture) == state)
    }
}

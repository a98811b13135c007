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
}

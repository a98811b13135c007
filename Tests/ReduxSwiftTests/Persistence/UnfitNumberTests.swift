import Foundation
import Testing

@testable import ReduxSwift

/// A number that does not fit its field is named, with its coding path, instead of being reported
/// as JSON that is not valid.
@Suite(.offThePool) struct UnfitNumberTests {
    let directory = TemporaryDirectory()

    struct Measured: StateProtocol, Equatable {
        var count = 0
        var small: UInt8 = 0
        var ratio: Float = 0
        var values: [Int] = []
    }

    func load(_ state: String) throws -> String {
        try Data(#"{"schemaVersion":1,"state":\#(state)}"#.utf8).write(to: directory.file("state.json"))
        let error = #expect(throws: PersistenceError.self) {
            try StateArchive<Measured>(file: directory.file("state.json")).load()
        }
        guard case .needsMigration(_, let detail, _) = error?.kind else {
            Issue.record("expected needsMigration, got \(String(describing: error))")
            return ""
        }
        return detail
    }

    @Test(
        arguments: [
            (#"{"count":1e400,"small":0,"ratio":0,"values":[]}"#, "state.count", "1e400", "beyond the range"),
            (#"{"count":1.5,"small":0,"ratio":0,"values":[]}"#, "state.count", "1.5", "a fraction"),
            (#"{"count":1,"small":300,"ratio":0,"values":[]}"#, "state.small", "300", "outside the range"),
            (#"{"count":1,"small":-1,"ratio":0,"values":[]}"#, "state.small", "-1", "outside the range"),
            (
                #"{"count":1,"small":1,"ratio":1e300,"values":[]}"#, "state.ratio", "1e300",
                "outside the range"
            ),
            (
                #"{"count":1,"small":1,"ratio":0,"values":[1,2,18446744073709551615]}"#, "state.values[2]",
                "18446744073709551615", "outside the range"
            ),
            (#"{"count":2.5,"small":1,"ratio":0,"values":[1e400]}"#, "state.count", "2.5", "a fraction"),
        ])
    func aNumberInTheFileThatDoesNotFitItsFieldIsNamedWithItsPath(
        _ state: String, _ path: String, _ number: String, _ reason: String
    ) throws {
        let detail = try load(state)
        #expect(
            detail.contains("at \(path): The number \(number) does not fit the type of this field"),
            "\(detail)")
        #expect(detail.contains(reason), "\(detail)")
        #expect(!detail.contains("not valid JSON"), "\(detail)")
    }

    /// A value a migration stores that does not fit the field it is decoded as.
    enum UnfitValue: CaseIterable, Sendable {
        case largestUInt64, float, largestUInt64InAnArray

        func store(in state: inout [String: Any]) {
            switch self {
            case .largestUInt64: state["count"] = UInt64.max
            case .float: state["count"] = Float(1.5)
            case .largestUInt64InAnArray: state["values"] = [1, UInt64.max] as [Any]
            }
        }

        /// Where the value is and how it is written.
        var pathAndNumber: (String, String) {
            switch self {
            case .largestUInt64: return ("state.count", "18446744073709551615")
            case .float: return ("state.count", "1.5")
            case .largestUInt64InAnArray: return ("state.values[1]", "18446744073709551615")
            }
        }
    }

    @Test(arguments: UnfitValue.allCases)
    func aNumberAMigrationStoresThatDoesNotFitItsFieldIsNamedWithItsPath(_ value: UnfitValue) throws {
        let (path, number) = value.pathAndNumber
        try Data(#"{"schemaVersion":1,"state":{"count":3}}"#.utf8).write(to: directory.file("state.json"))
        let archive = StateArchive<Measured>(
            file: directory.file("state.json"), schemaVersion: 2,
            migrations: [
                ArchiveMigration(from: 1) { state in
                    state = ["count": 1, "small": 0, "ratio": 0, "values": [Int]()]
                    value.store(in: &state)
                }
            ])
        let error = #expect(throws: PersistenceError.self) { try archive.load() }
        guard case .needsMigration(_, let detail, _) = error?.kind else {
            Issue.record("expected needsMigration, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("after migrating to version 2"), "\(detail)")
        #expect(detail.contains("at \(path): The number \(number) does not fit"), "\(detail)")
        #expect(!detail.contains("not valid JSON"), "\(detail)")
    }

    @Test func pastTheSearchBudgetTheErrorSaysANumberDoesNotFitWithoutNamingIt() throws {
        let data = Data(#"{"count":1,"small":0,"ratio":0,"values":[1000,2000,1.5,3000]}"#.utf8)
        let decode = { (data: Data) throws in _ = try JSONDecoder().decode(Measured.self, from: data) }
        let error = try #require(throws: DecodingError.self) { try decode(data) }
        let explained = UnfitNumber.explain(error, in: data, under: [], budget: data.count, decode: decode)
        guard case DecodingError.dataCorrupted(let context) = explained else {
            Issue.record("expected dataCorrupted, got \(explained)")
            return
        }
        #expect(context.codingPath.isEmpty)
        #expect(context.debugDescription.hasPrefix("A number does not fit the type of the field"))
        let searched = UnfitNumber.explain(error, in: data, under: [], budget: data.count * 2, decode: decode)
        guard case DecodingError.dataCorrupted(let found) = searched else {
            Issue.record("expected dataCorrupted, got \(searched)")
            return
        }
        #expect(found.codingPath.map(\.intValue) == [nil, 2])
        #expect(found.debugDescription.hasPrefix("The number 1.5 does not fit"))
    }

    @Test func aFailureThatNoNumberCausesIsLeftAsItIs() throws {
        struct Refusing: Decodable {
            init(from decoder: any Decoder) throws {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "Refused."))
            }
        }
        let data = Data(#"{"a":1.5,"b":[1e400]}"#.utf8)
        let decode = { (data: Data) throws in _ = try JSONDecoder().decode(Refusing.self, from: data) }
        let error = try #require(throws: DecodingError.self) { try decode(data) }
        let explained = UnfitNumber.explain(error, in: data, under: [], decode: decode)
        guard case DecodingError.dataCorrupted(let context) = explained else {
            Issue.record("expected dataCorrupted, got \(explained)")
            return
        }
        #expect(context.debugDescription == "Refused.")
    }
}

import Foundation
import Testing

@testable import ReduxSwift

/// What a migration reads from the archived state and what it may write back, on every platform.
@Suite(.offThePool) struct MigrationValueTests {
    let directory = TemporaryDirectory()
    let version1 = #"{"schemaVersion":1,"state":{"counter":41}}"#

    func write(_ text: String) throws {
        try Data(text.utf8).write(to: directory.file("state.json"))
    }

    func contents() throws -> Data {
        try Data(contentsOf: directory.file("state.json"))
    }

    // MARK: Values JSON cannot represent

    struct Point {
        var x = 1
    }

    /// A value a migration stores under `"extra"`, which on Apple platforms made `JSONSerialization`
    /// raise an exception (and a Foundation collection that contains itself overflowed the stack on
    /// Linux), and what the error must say about it.
    enum NonJSONValue: CaseIterable, Sendable {
        case date, dateInAnObject, structInAnArray, object, data, url, uuid, substring
        case notANumber, infinityInAnArray, negativeInfinityAsNSNumber, floatNaN, decimalNaN
        case integerKeys, booleanKeyInAnObject, nestedTooDeep
        case objectThatContainsItself, arrayThatContainsItself, foundationArraysNestedTooDeep

        var value: Any {
            switch self {
            case .date: return Date(timeIntervalSinceReferenceDate: 0)
            case .dateInAnObject: return ["meta": ["created": Date()] as [String: Any]] as [String: Any]
            case .structInAnArray: return ["a", Point()] as [Any]
            case .object: return NSObject()
            case .data: return Data([1, 2])
            case .url: return URL(string: "https://example.com/")!
            case .uuid: return UUID()
            case .substring: return "abc".dropFirst()
            case .notANumber: return Double.nan
            case .infinityInAnArray: return [1.0, Double.infinity]
            case .negativeInfinityAsNSNumber: return NSNumber(value: -Double.infinity)
            case .floatNaN: return Float.nan
            case .decimalNaN: return Decimal.nan
            case .integerKeys: return [1: "one"]
            case .booleanKeyInAnObject: return ["inner": [true: 1]] as [String: Any]
            case .nestedTooDeep:
                var value: Any = 1
                for _ in 0..<600 { value = [value] }
                return value
            case .objectThatContainsItself:
                let object = NSMutableDictionary()
                object["self"] = object
                return object
            case .arrayThatContainsItself:
                let array = NSMutableArray()
                array.add("a")
                array.add(array)
                return ["list": array] as [String: Any]
            case .foundationArraysNestedTooDeep:
                let outer = NSMutableArray()
                var array = outer
                for _ in 0..<600 {
                    let inner = NSMutableArray()
                    array.add(inner)
                    array = inner
                }
                return outer
            }
        }

        /// Where the offending value is.
        var path: String {
            switch self {
            case .dateInAnObject: return "state.extra.meta.created"
            case .structInAnArray, .infinityInAnArray: return "state.extra[1]"
            case .booleanKeyInAnObject: return "state.extra.inner"
            // `state` is one level and `extra` another, so the 511th array inside it is the 513th,
            // at a path of 513 components, abbreviated.
            case .nestedTooDeep, .foundationArraysNestedTooDeep:
                return "state.extra[0][0][0] … (503 more) … [0][0][0][0][0]"
            case .objectThatContainsItself: return "state.extra.self"
            case .arrayThatContainsItself: return "state.extra.list[1]"
            default: return "state.extra"
            }
        }

        /// What the error must say besides the path.
        var words: [String] {
            switch self {
            case .date, .dateInAnObject: return ["a Date", "timeIntervalSinceReferenceDate"]
            case .structInAnArray: return ["Point"]
            case .object: return ["NSObject"]
            case .data: return ["Data", "base64EncodedString()"]
            case .url: return ["a URL", "absoluteString"]
            case .uuid: return ["a UUID", "uuidString"]
            case .substring: return ["Substring"]
            case .notANumber, .floatNaN, .decimalNaN: return ["NaN", #""NaN""#]
            case .infinityInAnArray: return ["infinity", #""Infinity""#]
            case .negativeInfinityAsNSNumber: return ["-infinity", #""-Infinity""#]
            case .integerKeys: return ["the key 1", "a number", "strings"]
            case .booleanKeyInAnObject: return ["the key true", "a boolean", "strings"]
            case .nestedTooDeep, .foundationArraysNestedTooDeep: return ["deeper than 512"]
            case .objectThatContainsItself: return ["the object at state.extra that contains it", "itself"]
            case .arrayThatContainsItself:
                return ["the array at state.extra.list that contains it", "itself"]
            }
        }
    }

    @Test(arguments: NonJSONValue.allCases)
    func aMigrationThatStoresAValueJSONCannotHoldFailsWithItsPathAndKind(_ case: NonJSONValue) throws {
        try write(version1)
        let archive = StateArchive<TestState>(
            file: directory.file("state.json"), schemaVersion: 2,
            migrations: [ArchiveMigration(from: 1) { state in state["extra"] = `case`.value }])
        let error = #expect(throws: PersistenceError.self) { try archive.load() }
        guard case .migrationFailed(from: 1, let detail) = error?.kind else {
            Issue.record("expected migrationFailed, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("after migrating to version 2"), "\(detail)")
        #expect(detail.contains("at \(`case`.path),") || detail.contains("at \(`case`.path) "), "\(detail)")
        for word in `case`.words {
            #expect(detail.contains(word), "\(detail) should say \(word)")
        }
        for runtimeName in ["__", "_SwiftValue", "NSCF", "NSTagged"] {
            #expect(!detail.contains(runtimeName), "\(detail)")
        }
        #expect(try contents() == Data(version1.utf8), "the archive is kept as it was")
        try archive.save(TestState())
        #expect(try contents() == Data(version1.utf8), "a save goes beside it")
    }

    @Test func theValuesOfEveryJSONKindAreWrittenTheSameWayWhateverTheirSwiftType() throws {
        struct Converted: StateProtocol, Equatable {
            var int: Int
            var small: Int8
            var big: UInt64
            var double: Double
            var float: Float
            var cgFloat: Double
            var bool: Bool
            var decimal: Decimal
            var text: String
            var bridgedText: String
            var bridgedNumber: Double
            var null: Int?
            var optional: Int
            var list: [Int?]
            var table: [String: Double]
            var nested: [[String: Bool]]
        }
        try write(version1)
        let archive = StateArchive<Converted>(
            file: directory.file("state.json"), schemaVersion: 2,
            migrations: [
                ArchiveMigration(from: 1) { state in
                    state = [
                        "int": 7, "small": Int8(-3), "big": UInt64.max, "double": 0.25, "float": Float(1.5),
                        "cgFloat": CGFloat(1.25), "bool": true, "decimal": Decimal(string: "12.5")!,
                        "text": "text", "bridgedText": NSString(string: "bridged"),
                        "bridgedNumber": NSNumber(value: 2.5), "null": Int?.none as Any,
                        "optional": Int?.some(4) as Any, "list": [1, nil] as [Int?],
                        "table": ["a": 0.5] as [String: Double], "nested": [["x": true]],
                    ]
                }
            ])
        #expect(
            try archive.load()
                == Converted(
                    int: 7, small: -3, big: .max, double: 0.25, float: 1.5, cgFloat: 1.25, bool: true,
                    decimal: Decimal(string: "12.5")!, text: "text", bridgedText: "bridged",
                    bridgedNumber: 2.5, null: nil, optional: 4, list: [1, nil], table: ["a": 0.5],
                    nested: [["x": true]]))
    }

    // MARK: Reading numbers and booleans

    /// The casts `ArchiveMigration` documents, which `NSNumber` bridging makes behave the same on
    /// Apple platforms and Linux (SE-0170): a cast to an integer type or `Bool` succeeds when the
    /// number is exactly a value of it, and a cast to `Double` when no rounding is involved.
    @Test func numbersAndBooleansAreReadWithCastsToTheTypesTheOldVersionDeclared() throws {
        struct Priced: StateProtocol, Equatable {
            struct Settings: Codable, Equatable {
                var scale: Double
                var level: Int
                var dark: Bool
            }
            var count: Int
            var price: Double
            var total: Double
            var done: Bool
            var flags: [Bool]
            var settings: Settings
            var big: Int64
        }
        try write(
            #"{"schemaVersion":1,"state":{"count":3,"price":2,"ratio":0.5,"done":true,"one":1,"#
                + #""flags":[true,false],"settings":{"scale":1.5,"level":2,"dark":false},"#
                + #""big":9007199254740993}}"#)
        let runs = Recorder<Int>()
        let archive = StateArchive<Priced>(
            file: directory.file("state.json"), schemaVersion: 2,
            migrations: [
                ArchiveMigration(from: 1) { state in
                    runs.append(1)
                    let count = try #require(state["count"] as? Int)
                    let price = try #require(state["price"] as? Double, "a Double written as 2 reads as 2.0")
                    let done = try #require(state["done"] as? Bool)
                    let flags = try #require(state["flags"] as? [Bool])
                    var settings = try #require(state["settings"] as? [String: Any])
                    let scale = try #require(settings["scale"] as? Double)
                    #expect(settings["level"] as? Int == 2)
                    #expect(settings["dark"] as? Bool == false)

                    // A cast converts exactly or not at all; it does not tell the JSON kinds apart.
                    #expect(state["ratio"] as? Double == 0.5)
                    #expect(state["ratio"] as? Int == nil, "0.5 is not an Int")
                    #expect((state["ratio"] as? NSNumber)?.intValue == 0, "NSNumber converts with loss")
                    #expect(state["big"] as? Int64 == 9_007_199_254_740_993)
                    #expect((state["big"] as? NSNumber)?.int64Value == 9_007_199_254_740_993)
                    #expect(state["count"] as? UInt8 == 3)
                    #expect((state["settings"] as? [String: Any])?["level"] as? UInt == 2)
                    #expect(state["done"] as? Int == 1, "true reads as the Int 1")
                    #expect(state["one"] as? Bool == true, "1 reads as the Bool true")
                    #expect(state["count"] as? Bool == nil, "only 0 and 1 read as Bool")
                    #expect(state["count"] as? String == nil)

                    state["total"] = Double(count) * price
                    state["flags"] = flags.map { !$0 }
                    state["done"] = !done
                    settings["scale"] = scale * 2
                    state["settings"] = settings
                    state["ratio"] = nil
                    state["one"] = nil
                }
            ])
        #expect(
            try archive.load()
                == Priced(
                    count: 3, price: 2, total: 6, done: false, flags: [false, true],
                    settings: Priced.Settings(scale: 3, level: 2, dark: false), big: 9_007_199_254_740_993))
        #expect(runs.values == [1])
    }
}

import Foundation
import Testing

@testable import ReduxSwift

/// Loading, migrating and saving never change a value: what `JSONDecoder` decodes from an archive
/// is what a load decodes after a migration that changes nothing, and after a save that leaves out
/// underscored keys.
@Suite(.offThePool) struct ArchiveValueFidelityTests {
    /// A number written by a custom `Encodable` (through `Decimal`, so beyond `UInt64` too), and
    /// read back as every type `JSONDecoder` reads a number as.
    struct BigNumber: Codable, Equatable {
        var decimal: Decimal
        var double: Double?
        var int64: Int64?
        var uint64: UInt64?

        init(_ text: String) {
            decimal = Decimal(string: text)!
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            decimal = try container.decode(Decimal.self)
            double = try? container.decode(Double.self)
            int64 = try? container.decode(Int64.self)
            uint64 = try? container.decode(UInt64.self)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(decimal)
        }
    }

    struct Values: StateProtocol, Equatable {
        var decimals: [Decimal] = []
        var numbers: [BigNumber] = []
        var doubles: [Double] = []
        var floats: [Float] = []
        var strings: [String] = []
        var keyed: [String: String] = [:]
        /// Left out by `excludesUnderscoredKeys`.
        var _cache: [Decimal]?
    }

    /// Foundation's round trip of `value`: the reference every load must equal.
    static func foundationRoundTrip(_ value: Values) throws -> Values {
        try JSONDecoder().decode(Values.self, from: JSONEncoder().encode(value))
    }

    /// `value` saved by an archive of version 1, then loaded by one that has no migration to run,
    /// by one whose migration from version 1 changes nothing, and the same after a save that
    /// leaves out underscored keys (which then holds no `_cache`).
    static func loads(of value: Values) throws -> [(path: String, loaded: Values?)] {
        var results: [(String, Values?)] = []
        for excludes in [false, true] {
            let backend = MemoryBackend()
            try StateArchive<Values>(backend: backend, excludesUnderscoredKeys: excludes).save(value)
            let plain = try StateArchive<Values>(backend: backend).load()
            let migrated = try StateArchive<Values>(
                backend: backend, schemaVersion: 2, migrations: [ArchiveMigration(from: 1) { _ in }]
            ).load()
            let saved = excludes ? "a save without underscored keys" : "a save"
            results.append(("\(saved), then a load", plain))
            results.append(("\(saved), then a no-op migration", migrated))
        }
        return results
    }

    /// Compares every load of `value` with Foundation's round trip, recording each difference.
    static func expectFaithfulLoads(of value: Values, _ context: String) throws {
        let expected = try foundationRoundTrip(value)
        var withoutCache = expected
        withoutCache._cache = nil
        for (path, loaded) in try loads(of: value) {
            let reference = path.contains("without underscored") ? withoutCache : expected
            guard let loaded, loaded != reference else { continue }
            Issue.record("\(context): \(path) changed values: \(differences(loaded, reference))")
        }
    }

    /// The elements of the two values that differ, for a failure message.
    static func differences(_ loaded: Values, _ expected: Values) -> String {
        var lines: [String] = []
        func compare<Element: Equatable>(_ name: String, _ a: [Element], _ b: [Element]) {
            if a.count != b.count { lines.append("\(name): \(a.count) elements instead of \(b.count)") }
            for (index, (x, y)) in zip(a, b).enumerated() where x != y {
                lines.append("\(name)[\(index)]: \(x) instead of \(y)")
            }
        }
        compare("decimals", loaded.decimals, expected.decimals)
        compare("numbers", loaded.numbers.map { "\($0)" }, expected.numbers.map { "\($0)" })
        compare("doubles", loaded.doubles.map(\.bitPattern), expected.doubles.map(\.bitPattern))
        compare("floats", loaded.floats.map(\.bitPattern), expected.floats.map(\.bitPattern))
        compare(
            "strings", loaded.strings.map { Array($0.unicodeScalars) },
            expected.strings.map { Array($0.unicodeScalars) })
        if loaded.keyed != expected.keyed {
            lines.append("keyed: \(loaded.keyed) instead of \(expected.keyed)")
        }
        if loaded._cache != expected._cache {
            lines.append(
                "_cache: \(String(describing: loaded._cache)) instead of \(String(describing: expected._cache))"
            )
        }
        return lines.prefix(10).joined(separator: "; ")
    }

    // MARK: Examples

    @Test func aDecimalWithMoreDigitsThanADoubleHoldsKeepsThemThroughAMigrationAndAnUnderscoredSave() throws {
        let pi = Decimal(string: "3.14159265358979323846264338327950288")!
        let value = Values(
            decimals: [pi, Decimal(string: "-0.000000000000000000000000000000001")!],
            numbers: [BigNumber("18446744073709551616"), BigNumber("-9223372036854775809")],
            doubles: [-0.0], floats: [-0.0], strings: ["\u{FEFF}bom"], _cache: [pi])
        try Self.expectFaithfulLoads(of: value, "the example")
        let migrated = try Self.loads(of: value)[1].loaded
        #expect(migrated?.decimals.first == pi, "\(String(describing: migrated?.decimals))")
    }

    @Test func aMigrationReadsANumberADoubleCannotHoldAsAnExactDecimalOrAsADouble() throws {
        struct Priced: StateProtocol, Equatable {
            var price: Decimal
            var total: Decimal
            var ratio: Double
        }
        let backend = MemoryBackend(
            Data(
                #"{"schemaVersion":1,"state":{"price":3.14159265358979323846264338327950288,"ratio":0.1}}"#
                    .utf8))
        let archive = StateArchive<Priced>(
            backend: backend, schemaVersion: 2,
            migrations: [
                ArchiveMigration(from: 1) { state in
                    let price = try #require(state["price"] as? Decimal)
                    #expect(price == Decimal(string: "3.14159265358979323846264338327950288")!)
                    #expect(state["price"] as? Double == 3.141592653589793)
                    #expect(state["price"] as? Int == nil)
                    #expect(state["ratio"] as? Double == 0.1)
                    // The conversion ArchiveMigration documents for a number that is not an NSDecimalNumber.
                    let ratio = try #require(state["ratio"] as? Double)
                    #expect(Decimal(string: "\(ratio)") == Decimal(string: "0.1"))
                    state["total"] = price * 2
                }
            ])
        #expect(
            try archive.load()
                == Priced(
                    price: Decimal(string: "3.14159265358979323846264338327950288")!,
                    total: Decimal(string: "6.28318530717958647692528676655900576")!, ratio: 0.1))
    }

    // MARK: Every file JSONDecoder reads

    /// An archive of version 1 in a form `JSONDecoder` may or may not read.
    enum FileForm: String, CaseIterable, Sendable {
        case utf8ByteOrderMark, utf16LittleEndianWithMark, utf16BigEndianWithMark, utf16LittleEndian
        case utf16BigEndian, utf32BigEndianWithMark, utf32LittleEndianWithMark, utf32BigEndian
        case utf32LittleEndian, whitespaceEverywhere, trailingCommas, duplicateKeys, twoByteOrderMarks
        case invalidUTF16

        static let json =
            #"{"schemaVersion":1,"state":{"counter":-0,"log":["\ufeffa\"\u00e9","é",""],"todos":[]}}"#

        var data: Data {
            let text = Self.json
            switch self {
            case .utf8ByteOrderMark: return Data([0xEF, 0xBB, 0xBF] + text.utf8)
            case .utf16LittleEndianWithMark:
                return Data([0xFF, 0xFE]) + text.data(using: .utf16LittleEndian)!
            case .utf16BigEndianWithMark: return Data([0xFE, 0xFF]) + text.data(using: .utf16BigEndian)!
            case .utf16LittleEndian: return text.data(using: .utf16LittleEndian)!
            case .utf16BigEndian: return text.data(using: .utf16BigEndian)!
            case .utf32BigEndianWithMark:
                return Data([0, 0, 0xFE, 0xFF]) + text.data(using: .utf32BigEndian)!
            case .utf32LittleEndianWithMark:
                return Data([0xFF, 0xFE, 0, 0]) + text.data(using: .utf32LittleEndian)!
            case .utf32BigEndian: return text.data(using: .utf32BigEndian)!
            case .utf32LittleEndian: return text.data(using: .utf32LittleEndian)!
            case .whitespaceEverywhere:
                return Data(
                    " \r\n\t{ \"schemaVersion\" :\n1 , \"state\"\t:{\"counter\" : -0 ,\"log\": [ \"\\ufeffa\\\"\\u00e9\" , \"é\",\"\" ] , \"todos\":[\n]\n}\r\n}\t "
                        .utf8)
            case .trailingCommas:
                return Data(
                    #"{"schemaVersion":1,"state":{"counter":-0,"log":["a","é", ],"todos":[],},}"#.utf8)
            case .duplicateKeys:
                return Data(
                    #"{"schemaVersion":1,"state":{"counter":1,"log":["a"],"counter":2,"todos":[],"log":[]}}"#
                        .utf8)
            case .twoByteOrderMarks: return Data([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + text.utf8)
            case .invalidUTF16:
                return Data([0xFF, 0xFE]) + text.data(using: .utf16LittleEndian)! + Data([0x00, 0xD8])
            }
        }
    }

    @Test(arguments: FileForm.allCases)
    func aFileJSONDecoderReadsAlsoReadsWhenAMigrationRunsAndDecodesTheSame(_ form: FileForm) throws {
        let data = form.data
        let plain = Result { try StateArchive<TestState>(backend: MemoryBackend(data)).load() }
        let migrated = Result {
            try StateArchive<TestState>(
                backend: MemoryBackend(data), schemaVersion: 2,
                migrations: [ArchiveMigration(from: 1) { _ in }]
            ).load()
        }
        switch (plain, migrated) {
        case (.success(let expected), .success(let loaded)):
            #expect(loaded == expected)
            #expect(
                loaded?.log.map { Array($0.unicodeScalars) } == expected?.log.map { Array($0.unicodeScalars) }
            )
        case (.failure, .failure):
            break
        case (.success, .failure(let error)):
            Issue.record("JSONDecoder reads the \(form) file, but a migration refuses it: \(error)")
        case (.failure(let error), .success):
            Issue.record("JSONDecoder refuses the \(form) file (\(error)), but a migration reads it")
        }
    }

    @Test func aMigrationWritesADecimalExactly() throws {
        struct Priced: StateProtocol, Equatable {
            var price: Decimal
            var big: Decimal
        }
        let archive = StateArchive<Priced>(
            backend: MemoryBackend(Data(#"{"schemaVersion":1,"state":{}}"#.utf8)), schemaVersion: 2,
            migrations: [
                ArchiveMigration(from: 1) { state in
                    state["price"] = Decimal(string: "1234567890.123456789012345678901234567")!
                    state["big"] = [Decimal(string: "-98765432109876543210987654321")!][0]
                }
            ])
        #expect(
            try archive.load()
                == Priced(
                    price: Decimal(string: "1234567890.123456789012345678901234567")!,
                    big: Decimal(string: "-98765432109876543210987654321")!))
    }

    // MARK: Random values

    /// The seed of the random values (`REDUXSWIFT_SEED`, else random); a failure prints it.
    static let seed =
        ProcessInfo.processInfo.environment["REDUXSWIFT_SEED"].flatMap { UInt64($0) }
        ?? UInt64.random(in: 1...UInt64.max)

    static func randomDecimal(_ random: inout SeededGenerator) -> Decimal {
        let digits = Int.random(in: 1...38, using: &random)
        var text = Bool.random(using: &random) ? "-" : ""
        text += String(Int.random(in: 1...9, using: &random))
        for _ in 1..<digits { text += String(Int.random(in: 0...9, using: &random)) }
        text += "e\(Int.random(in: -60...40, using: &random))"
        return Decimal(string: text)!
    }

    static func randomBigNumber(_ random: inout SeededGenerator) -> BigNumber {
        let limits: [Decimal] = [
            Decimal(Int64.max), Decimal(Int64.min), Decimal(UInt64.max), Decimal(string: "1e30")!,
            Decimal(string: "-1e37")!, Decimal(Int(1) << 53),
        ]
        var value = limits.randomElement(using: &random)!
        value += Decimal(Int.random(in: -3...3, using: &random))
        return BigNumber("\(value)")
    }

    static func randomString(_ random: inout SeededGenerator) -> String {
        let pool: [Unicode.Scalar] = [
            "\u{FEFF}", "\"", "\\", "/", "\u{0}", "\u{8}", "\u{C}", "\n", "\r", "\t", "\u{1F}", "\u{7F}",
            "a", "Z", " ", "e", "\u{301}", "é", "\u{2028}", "\u{2029}", "\u{FFFF}", "\u{FFFD}", "😀",
            "\u{10FFFF}", "中", "_",
        ]
        let count = Int.random(in: 0...8, using: &random)
        var scalars = String.UnicodeScalarView()
        for _ in 0..<count { scalars.append(pool.randomElement(using: &random)!) }
        return String(scalars)
    }

    static func randomValues(_ random: inout SeededGenerator) -> Values {
        var value = Values()
        value.decimals = (0..<20).map { _ in randomDecimal(&random) }
        value.numbers = (0..<4).map { _ in randomBigNumber(&random) }
        value.doubles =
            [-0.0]
            + (0..<4).map { _ in
                var double: Double
                repeat {
                    double = Double(bitPattern: random.next())
                } while !double.isFinite
                return double
            }
        value.floats = [-0.0, Float(bitPattern: UInt32(truncatingIfNeeded: random.next()) & 0x7F7F_FFFF)]
        value.strings = (0..<4).map { _ in randomString(&random) }
        for _ in 0..<2 { value.keyed["k" + randomString(&random)] = randomString(&random) }
        value._cache = [randomDecimal(&random)]
        return value
    }

    @Test func randomDecimalsBigIntegersNegativeZerosAndStringsComeBackAsFoundationRoundTripsThem() {
        var random = SeededGenerator(seed: Self.seed)
        // 40 values of 20 decimals each: 800 decimals.
        for index in 0..<40 {
            let value = Self.randomValues(&random)
            let context = "seed \(Self.seed) (replay with REDUXSWIFT_SEED=\(Self.seed)), value \(index)"
            do {
                try Self.expectFaithfulLoads(of: value, context)
            } catch {
                Issue.record("\(context): \(error)")
            }
        }
    }

    /// `data` with a few bytes inserted, removed or replaced, from those that change how JSON reads.
    static func mutated(_ data: Data, _ random: inout SeededGenerator) -> Data {
        let pool =
            Array(" \t\n\r\u{0C},:[]{}\"\\/-+.0159eEtrufalsn_u".utf8) + [
                0x00, 0xC3, 0xA9, 0xEF, 0xBB, 0xBF, 0xFF,
            ]
        var bytes = [UInt8](data)
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let position = Int.random(in: 0...bytes.count, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: bytes.insert(pool.randomElement(using: &random)!, at: position)
            case 1 where position < bytes.count: bytes.remove(at: position)
            default:
                if position < bytes.count { bytes[position] = pool.randomElement(using: &random)! }
            }
        }
        return Data(bytes)
    }

    @Test func anArchiveChangedAtRandomLoadsThroughAMigrationExactlyWhenJSONDecoderLoadsIt() {
        var random = SeededGenerator(seed: Self.seed)
        let original = Data(
            #"{"schemaVersion":1,"state":{"counter":12,"log":["a\u00e9\n","","x"],"todos":[]}}"#.utf8)
        var loaded = 0
        for index in 0..<3000 {
            let data = Self.mutated(original, &random)
            let plain = Result { try StateArchive<TestState>(backend: MemoryBackend(data)).load() }
            // Only archives of version 1 run the migration.
            guard case .success(let expected?) = plain else { continue }
            loaded += 1
            let migrated = Result {
                try StateArchive<TestState>(
                    backend: MemoryBackend(data), schemaVersion: 2,
                    migrations: [ArchiveMigration(from: 1) { _ in }]
                ).load()
            }
            let text = String(decoding: data, as: UTF8.self).debugDescription
            switch migrated {
            case .success(let state):
                if state != expected {
                    Issue.record(
                        "seed \(Self.seed), mutation \(index), \(text): \(String(describing: state)) instead of \(expected)"
                    )
                }
            case .failure(let error):
                Issue.record(
                    "seed \(Self.seed), mutation \(index): JSONDecoder reads \(text) but a migration refuses it: \(error)"
                )
            }
        }
        #expect(loaded > 0)
    }
}

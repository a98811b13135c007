import Foundation
import Testing

@testable import ReduxSwift

/// A load that fills or migrates writes the defaults into the archive's JSON and lets `JSONDecoder`
/// decode it: it must load what the filling decoder loads, and fail where it fails.
@Suite(.serialized, .offThePool) struct FillingByPatchingDifferentialTests {
    let directory = TemporaryDirectory()

    /// Members the types do not know, now and then, beside the ones taken out: an old name the
    /// filling decoder may take for a rename, which the load must then leave to it.
    static let unknownMembers = ["legacy", "color", "sku", "wrap"]

    @Test func aLoadThatWritesDefaultsInLoadsWhatTheFillingDecoderLoads() throws {
        let url = directory.file("Shop.json")
        let archive = StateArchive<Defaulted.Shop>(file: url)
        for seed in DifferentialSeeds.all {
            var dropping = Dropping(Draw(DifferentialSeeds.generator(seed: seed, test: "patching-filling")))
            var report = DifferentialReport(test: "patching-filling", seed: seed)
            let cases = 300
            for index in 0..<cases {
                let full = dropping.shop()
                dropping.removed = []
                _ = dropping.dropping(full)
                var json = try JSONValue(parsing: try ReferenceCoders.encoder().encode(full))
                for path in dropping.removed { json = json.removing(path[...]) }
                if dropping.draw.chance(0.3) {
                    // An unknown member in an object that may lack one of the same type.
                    let member = dropping.draw.pick(Self.unknownMembers)
                    let value: JSONValue = dropping.draw.chance(0.5) ? .string("old") : .number("7")
                    json = json.adding(member, value, inObjectAt: dropping.draw.pick(Self.places(in: full)))
                }
                let stateJSON = json.data
                try Data(#"{"schemaVersion":1,"state":\#(json.description)}"#.utf8).write(to: url)
                // As the archive reads floats it does not say it writes as strings: as none, then
                // as the strings of variant 0.
                let filling = Result {
                    do {
                        return try DefaultFilling.decode(
                            Defaulted.Shop.self, from: stateJSON,
                            like: SnapshotCoder.makeDecoder(floatStrings: nil))
                    } catch {
                        return try DefaultFilling.decode(
                            Defaulted.Shop.self, from: stateJSON, like: SnapshotCoder.makeDecoder())
                    }
                }
                switch (filling, Result { try archive.load() }) {
                case (.success(let expected), .success(let loaded)):
                    if loaded != expected {
                        report.fail(
                            "the load decodes what the filling decoder decodes", case: index,
                            "\(json.description): loaded \(String(describing: loaded)), filling \(expected)")
                    }
                case (.failure, .failure):
                    break
                case (.success, .failure(let error)):
                    report.fail("the load succeeds where the filling decoder does", case: index, "\(error)")
                case (.failure(let error), .success):
                    report.fail(
                        "the load fails where the filling decoder does", case: index,
                        "\(json.description): \(error)")
                }
            }
            report.flush(cases: cases)
        }
    }

    /// The member migrations change the JSON as read; a closure migration changes Foundation
    /// objects. Both must give the same state, whatever the values.
    @Test func aMemberMigrationLoadsWhatTheSameClosureMigrationLoads() throws {
        let url = directory.file("Migrated.json")
        for seed in DifferentialSeeds.all {
            var draw = Draw(DifferentialSeeds.generator(seed: seed, test: "patching-migrations"))
            var report = DifferentialReport(test: "patching-migrations", seed: seed)
            let cases = 200
            for index in 0..<cases {
                var dropping = Dropping(draw)
                let shop = dropping.shop()
                draw = dropping.draw
                let extra = Self.sendableValue(&draw)
                var json = try JSONValue(parsing: try ReferenceCoders.encoder().encode(shop))
                // Version 1 called `currency` `money`, held a member version 2 removed, and lacked
                // `extra`, which version 2 reads.
                if case .object(var members) = json {
                    members["money"] = members.removeValue(forKey: "currency")
                    members["removed"] = .number("1")
                    json = .object(members)
                }
                try Data(#"{"schemaVersion":1,"state":\#(json.description)}"#.utf8).write(to: url)
                let members = [
                    ArchiveMigration(from: 1, renaming: "money", to: "currency"),
                    ArchiveMigration(from: 1, removing: "removed"),
                    ArchiveMigration(from: 1, adding: "extra", value: extra.value),
                    ArchiveMigration(from: 1, adding: "lines", json: "[]"),
                ]
                let closure = ArchiveMigration(from: 1) { state in
                    state["currency"] = state.removeValue(forKey: "money")
                    state["removed"] = nil
                    if state["extra"] == nil { state["extra"] = extra.value }
                    if state["lines"] == nil { state["lines"] = [Any]() }
                }
                let byMembers = Result {
                    try StateArchive<ExtraShop>(file: url, schemaVersion: 2, migrations: members).load()
                }
                try Data(#"{"schemaVersion":1,"state":\#(json.description)}"#.utf8).write(to: url)
                let byClosure = Result {
                    try StateArchive<ExtraShop>(file: url, schemaVersion: 2, migrations: [closure]).load()
                }
                switch (byMembers, byClosure) {
                case (.success(let got), .success(let expected)):
                    if got != expected {
                        report.fail(
                            "member migrations load what the closure loads", case: index,
                            "extra \(extra.value): members \(String(describing: got)), closure \(String(describing: expected))"
                        )
                    }
                case (.failure, .failure):
                    break
                case (.success, .failure(let error)):
                    report.fail("the closure loads where member migrations do", case: index, "\(error)")
                case (.failure(let error), .success):
                    report.fail("member migrations load where the closure does", case: index, "\(error)")
                }
            }
            report.flush(cases: cases)
        }
    }

    /// Version 2 of ``Defaulted/Shop``, with a member of any JSON value.
    struct ExtraShop: StateProtocol, Equatable {
        var lines: [Defaulted.Line] = []
        var saved: [String: Defaulted.Line] = [:]
        var byNumber: [Int: Defaulted.Gift] = [:]
        var nested: [[Defaulted.Line]] = []
        var gift = Defaulted.Gift()
        var currency = "EUR"
        var coupon: String?
        var extra: AnyJSON = .null
    }

    /// Any JSON value, read as `JSONDecoder` reads it.
    enum AnyJSON: Codable, Equatable {
        case null
        case bool(Bool)
        case int(Int)
        case double(Double)
        case string(String)
        case array([AnyJSON])
        case object([String: AnyJSON])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Int.self) {
                self = .int(value)
            } else if let value = try? container.decode(Double.self) {
                self = .double(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else if let value = try? container.decode([AnyJSON].self) {
                self = .array(value)
            } else {
                self = .object(try container.decode([String: AnyJSON].self))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let value): try container.encode(value)
            case .int(let value): try container.encode(value)
            case .double(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            case .array(let value): try container.encode(value)
            case .object(let value): try container.encode(value)
            }
        }
    }

    /// A value an app may add with `ArchiveMigration(from:adding:value:in:)`, sendable for the
    /// migration's closure.
    struct SendableValue: Sendable {
        let value: any Sendable
    }

    static func sendableValue(_ draw: inout Draw, depth: Int = 0) -> SendableValue {
        let kinds = depth < 2 ? 10 : 7
        switch draw.int(0...(kinds - 1)) {
        case 0: return SendableValue(value: draw.anyInt())
        case 1:
            let value = draw.double()
            return SendableValue(value: value.isFinite ? value : 0.5)
        case 2: return SendableValue(value: draw.chance(0.5))
        case 3: return SendableValue(value: draw.text())
        case 4: return SendableValue(value: draw.decimal())
        case 5: return SendableValue(value: NSNull())
        case 6: return SendableValue(value: Float(draw.int(-100...100)) / 8)
        case 7:
            let elements: [any Sendable] = (0..<draw.int(0...3)).map { _ in
                sendableValue(&draw, depth: depth + 1).value
            }
            return SendableValue(value: elements)
        case 8:
            var object: [String: any Sendable] = [:]
            for _ in 0..<draw.int(0...3) {
                object[draw.name()] = sendableValue(&draw, depth: depth + 1).value
            }
            return SendableValue(value: object)
        default:
            return SendableValue(value: [draw.int(0...9), draw.int(0...9)])
        }
    }

    /// The JSON paths of objects in `shop`'s encoding: where an unknown member may be added.
    static func places(in shop: Defaulted.Shop) -> [[String]] {
        var places: [[String]] = [[], ["gift"], ["gift", "ribbon"]]
        for index in shop.lines.indices {
            places += [["lines", "\(index)"], ["lines", "\(index)", "gift"]]
        }
        for key in shop.saved.keys { places.append(["saved", key]) }
        return places
    }
}

extension JSONValue {
    /// This value with `member` holding `value` in the object at `path`, where there is one.
    func adding(_ member: String, _ value: JSONValue, inObjectAt path: [String]) -> JSONValue {
        switch self {
        case .object(var members):
            guard let first = path.first else {
                members[member] = value
                return .object(members)
            }
            guard let child = members[first] else { return self }
            members[first] = child.adding(member, value, inObjectAt: Array(path.dropFirst()))
            return .object(members)
        case .array(var elements):
            guard let first = path.first, let index = Int(first), elements.indices.contains(index) else {
                return self
            }
            elements[index] = elements[index].adding(member, value, inObjectAt: Array(path.dropFirst()))
            return .array(elements)
        default:
            return self
        }
    }
}

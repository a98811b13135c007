import Foundation
import Testing

@testable import ReduxSwift

// Types that gain members between versions, in every position: the state, a nested struct, an
// array element, an array of arrays, a dictionary value with `String` and with `Int` keys.
enum Defaulted {
    struct Ribbon: Codable, Equatable, ArchiveDefaults {
        var color = "red"
        var width = 2.5
    }

    struct Gift: Codable, Equatable, ArchiveDefaults {
        var wrap = true
        var note = "for you"
        var ribbon = Ribbon(color: "gold", width: 1)
        var tags: Set<String> = ["new", "gift"]
    }

    struct Line: Codable, Equatable {
        var sku: String
        var quantity: Int
        var price = Decimal(string: "9.99")!
        var gift = Gift()
        var seen = Date(timeIntervalSinceReferenceDate: 12.5)
        var coupon: String? = "WELCOME"
    }

    struct Shop: StateProtocol, Equatable, ArchiveDefaults {
        var lines: [Line] = []
        var saved: [String: Line] = [:]
        var byNumber: [Int: Gift] = [:]
        var nested: [[Line]] = []
        var gift = Gift()
        var currency = "EUR"
        var coupon: String? = "SPRING"
    }
}

extension Defaulted.Line: ArchiveDefaults {
    init() { self.init(sku: "", quantity: 0) }
}

/// Draws values of the `Defaulted` types, then takes members out of them as an archive of an
/// earlier version lacks them: each removed member is reset to its default in the expected value
/// (or to `nil`, for an optional), and recorded by its JSON path to remove it from the JSON.
struct Dropping {
    var draw: Draw
    var removed: [[String]] = []

    init(_ draw: Draw) { self.draw = draw }

    // MARK: Drawing whole values

    mutating func ribbon() -> Defaulted.Ribbon {
        // Not NaN, which is not equal to itself.
        let width = draw.double()
        return Defaulted.Ribbon(color: draw.text(), width: width.isNaN ? -0.0 : width)
    }

    mutating func gift() -> Defaulted.Gift {
        Defaulted.Gift(
            wrap: draw.chance(0.5), note: draw.text(), ribbon: ribbon(),
            tags: Set((0..<draw.int(0...3)).map { _ in draw.name() }))
    }

    mutating func line() -> Defaulted.Line {
        Defaulted.Line(
            sku: draw.text(), quantity: draw.anyInt(), price: draw.decimal(), gift: gift(), seen: draw.date(),
            coupon: draw.chance(0.5) ? draw.text() : nil)
    }

    mutating func shop() -> Defaulted.Shop {
        var shop = Defaulted.Shop()
        shop.lines = (0..<draw.int(0...4)).map { _ in line() }
        for _ in 0..<draw.int(0...3) { shop.saved[draw.name()] = line() }
        for _ in 0..<draw.int(0...2) { shop.byNumber[draw.int(-5...5)] = gift() }
        shop.nested = (0..<draw.int(0...2)).map { _ in (0..<draw.int(0...2)).map { _ in line() } }
        shop.gift = gift()
        shop.currency = draw.text()
        shop.coupon = draw.chance(0.5) ? draw.text() : nil
        return shop
    }

    // MARK: Removing members

    private mutating func drops(_ path: [String], _ member: String) -> Bool {
        guard draw.chance(0.2) else { return false }
        removed.append(path + [member])
        return true
    }

    mutating func dropping(_ ribbon: Defaulted.Ribbon, at path: [String]) -> Defaulted.Ribbon {
        var ribbon = ribbon
        let defaults = Defaulted.Ribbon()
        if drops(path, "color") { ribbon.color = defaults.color }
        if drops(path, "width") { ribbon.width = defaults.width }
        return ribbon
    }

    mutating func dropping(_ gift: Defaulted.Gift, at path: [String]) -> Defaulted.Gift {
        var gift = gift
        let defaults = Defaulted.Gift()
        if drops(path, "wrap") { gift.wrap = defaults.wrap }
        if drops(path, "note") { gift.note = defaults.note }
        if drops(path, "tags") { gift.tags = defaults.tags }
        gift.ribbon = drops(path, "ribbon") ? defaults.ribbon : dropping(gift.ribbon, at: path + ["ribbon"])
        return gift
    }

    mutating func dropping(_ line: Defaulted.Line, at path: [String]) -> Defaulted.Line {
        var line = line
        let defaults = Defaulted.Line()
        if drops(path, "price") { line.price = defaults.price }
        if drops(path, "seen") { line.seen = defaults.seen }
        if drops(path, "coupon") { line.coupon = nil }
        line.gift = drops(path, "gift") ? defaults.gift : dropping(line.gift, at: path + ["gift"])
        return line
    }

    mutating func dropping(_ shop: Defaulted.Shop) -> Defaulted.Shop {
        var shop = shop
        let defaults = Defaulted.Shop()
        shop.lines =
            drops([], "lines")
            ? defaults.lines
            : shop.lines.enumerated().map { index, line in
                dropping(line, at: ["lines", String(index)])
            }
        if drops([], "saved") {
            shop.saved = defaults.saved
        } else {
            for key in shop.saved.keys.sorted() {
                shop.saved[key] = dropping(shop.saved[key]!, at: ["saved", key])
            }
        }
        if drops([], "byNumber") {
            shop.byNumber = defaults.byNumber
        } else {
            for key in shop.byNumber.keys.sorted() {
                shop.byNumber[key] = dropping(shop.byNumber[key]!, at: ["byNumber", String(key)])
            }
        }
        shop.nested =
            drops([], "nested")
            ? defaults.nested
            : shop.nested.enumerated().map { outer, lines in
                lines.enumerated().map { index, line in
                    dropping(line, at: ["nested", String(outer), String(index)])
                }
            }
        shop.gift = drops([], "gift") ? defaults.gift : dropping(shop.gift, at: ["gift"])
        if drops([], "currency") { shop.currency = defaults.currency }
        if drops([], "coupon") { shop.coupon = nil }
        return shop
    }
}

extension JSONValue {
    /// This value without the member at `path`, where there is one.
    func removing(_ path: ArraySlice<String>) -> JSONValue {
        guard let first = path.first else { return self }
        switch self {
        case .object(var members):
            guard let child = members[first] else { return self }
            members[first] = path.count == 1 ? nil : child.removing(path.dropFirst())
            return .object(members)
        case .array(var elements):
            guard let index = Int(first), elements.indices.contains(index), path.count > 1 else {
                return self
            }
            elements[index] = elements[index].removing(path.dropFirst())
            return .array(elements)
        default:
            return self
        }
    }
}

/// A load that fills missing members decodes exactly what `JSONDecoder` decodes wherever nothing
/// is missing, and the declared default wherever something is.
@Suite(.serialized, .offThePool) struct DefaultFillingDifferentialTests {
    let directory = TemporaryDirectory()

    @Test func withNothingMissingTheFillingDecoderDecodesWhatJSONDecoderDecodes() {
        compareWithJSONDecoder(mode: .filling, test: "filling-equal")
    }

    /// The decode of a launch that needs neither filling nor migrations, which looks at a sample
    /// of the objects for a rename to an optional.
    @Test func theCheckingDecodeOfAPlainLaunchDecodesWhatJSONDecoderDecodes() {
        compareWithJSONDecoder(mode: .checking, test: "checking-equal")
    }

    func compareWithJSONDecoder(mode: DefaultFilling.Mode, test: String) {
        for seed in DifferentialSeeds.all {
            var random = Draw(DifferentialSeeds.generator(seed: seed, test: test))
            var report = DifferentialReport(test: test, seed: seed)
            let cases = 400
            for index in 0..<cases {
                let value = random.piece()
                guard let data = try? ReferenceCoders.encoder().encode(Holder(value: value)) else { continue }
                let foundation = Result {
                    try ReferenceCoders.decoder().decode(Holder<Piece>.self, from: data)
                }
                let filled = Result {
                    try DefaultFilling.decode(
                        Holder<Piece>.self, from: data, like: ReferenceCoders.decoder(), mode: mode)
                }
                switch (foundation, filled) {
                case (.success(let expected), .success(let got)):
                    if got != expected {
                        report.fail(
                            "the filling decoder decodes what JSONDecoder decodes", case: index,
                            "filling \(got), JSONDecoder \(expected)")
                    }
                case (.failure, .failure):
                    break
                case (.success, .failure(let error)):
                    report.fail(
                        "the filling decoder succeeds where JSONDecoder does", case: index, "\(error)")
                case (.failure(let error), .success):
                    report.fail("the filling decoder fails where JSONDecoder does", case: index, "\(error)")
                }
            }
            report.flush(cases: cases)
        }
    }

    @Test func membersMissingAnywhereLoadAsTheirDeclaredDefaults() throws {
        let url = directory.file("Shop.json")
        let archive = StateArchive<Defaulted.Shop>(file: url)
        for seed in DifferentialSeeds.all {
            var dropping = Dropping(Draw(DifferentialSeeds.generator(seed: seed, test: "filling-defaults")))
            var report = DifferentialReport(test: "filling-defaults", seed: seed)
            let cases = 300
            for index in 0..<cases {
                let full = dropping.shop()
                dropping.removed = []
                let expected = dropping.dropping(full)
                let encoded = try ReferenceCoders.encoder().encode(full)
                var json = try JSONValue(parsing: encoded)
                for path in dropping.removed { json = json.removing(path[...]) }
                try Data(#"{"schemaVersion":1,"state":\#(json.description)}"#.utf8).write(to: url)
                do {
                    let loaded = try archive.load()
                    if loaded != expected {
                        report.fail(
                            "each missing member holds its declared default", case: index,
                            "removed \(dropping.removed), loaded \(String(describing: loaded)), expected \(expected)"
                        )
                    }
                } catch {
                    report.fail("an archive lacking members with defaults loads", case: index, "\(error)")
                }
            }
            report.flush(cases: cases)
        }
    }
}

import Foundation

/// Random values of the fixture types, drawn from a seeded generator.
struct Draw {
    var rng: SeededGenerator

    init(_ rng: SeededGenerator) { self.rng = rng }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &rng) < probability
    }
    mutating func pick<Element>(_ elements: [Element]) -> Element { elements.randomElement(using: &rng)! }
    mutating func bits() -> UInt64 { rng.next() }

    /// Small and large integers, and the edges.
    mutating func anyInt() -> Int {
        switch int(0...5) {
        case 0: return pick([0, 1, -1, .max, .min])
        case 1: return Int(truncatingIfNeeded: bits())
        default: return int(-1_000...1_000)
        }
    }

    static let specialTexts = [
        "", "plain", "quote \" backslash \\ slash /", "line\nfeed\ttab\r\u{8}\u{C}",
        "control \u{0}\u{1}\u{1F}", "\u{FEFF}bom", "caf\u{E9}", "cafe\u{301}", "👩‍👩‍👧 emoji 🇫🇷",
        "line\u{2028}separator\u{2029}", "NaN", "Infinity", "-Infinity", "\u{10FFFF}", "日本語",
    ]

    mutating func text() -> String {
        if chance(0.5) { return pick(Self.specialTexts) }
        let alphabet = Array("abcXYZ09 .\\\"é\u{301}\u{FEFF}😀\n")
        return String((0..<int(0...12)).map { _ in pick(alphabet) })
    }

    /// A name for keys and labels: ASCII, sometimes with a `.` or a `\`, which paths escape.
    mutating func name() -> String {
        pick(["a", "b", "c", "key", "x.y", "back\\slash", "1.5", "dup", "z", "long_name", "0", "-3"])
    }

    mutating func double() -> Double {
        switch int(0...7) {
        case 0: return pick([.nan, .infinity, -.infinity, -0.0, 0.0])
        case 1: return pick([.greatestFiniteMagnitude, .leastNonzeroMagnitude, .ulpOfOne, 0.1, 1e300])
        case 2: return Double(bitPattern: bits())
        case 3: return Double(int(-1_000...1_000))
        default: return Double.random(in: -1e6...1e6, using: &rng)
        }
    }

    mutating func float() -> Float {
        switch int(0...3) {
        case 0: return pick([.nan, .infinity, -.infinity, -0.0])
        case 1: return Float(bitPattern: UInt32(truncatingIfNeeded: bits()))
        default: return Float.random(in: -1e3...1e3, using: &rng)
        }
    }

    /// Up to 38 significant digits, with an exponent.
    mutating func decimal() -> Decimal {
        let digits = int(1...38)
        var text = chance(0.3) ? "-" : ""
        text += String(int(1...9))
        for _ in 1..<digits { text += String(int(0...9)) }
        let exponent = int(-40...20)
        return Decimal(string: text + "e" + String(exponent)) ?? Decimal(int(-9...9))
    }

    mutating func uuid() -> UUID {
        let high = bits()
        let low = bits()
        return withUnsafeBytes(of: (high, low)) { bytes in
            UUID(uuid: bytes.load(as: uuid_t.self))
        }
    }

    mutating func date() -> Date {
        switch int(0...3) {
        case 0: return Date(timeIntervalSinceReferenceDate: 0)
        case 1: return Date(timeIntervalSinceReferenceDate: Double(int(-1_000_000_000...1_000_000_000)))
        default: return Date(timeIntervalSinceReferenceDate: Double.random(in: -1e10...1e10, using: &rng))
        }
    }

    mutating func data() -> Data {
        Data((0..<int(0...24)).map { _ in UInt8(truncatingIfNeeded: bits()) })
    }

    mutating func url() -> URL {
        let candidates = [
            "https://example.com/", "https://example.com/a/b?c=d&e=%20f#frag", "file:///tmp/some%20file.txt",
            "mailto:someone@example.com", "https://user:pw@host:8080/p;q?r", "urn:isbn:0451450523",
            "https://example.com/caf%C3%A9", "relative/path",
        ]
        if chance(0.2) {
            return URL(
                string: pick(["a/b", "../c", "?q=1"]), relativeTo: URL(string: "https://base.example/x/"))!
        }
        return URL(string: pick(candidates))!
    }

    mutating func scalars() -> Scalars {
        Scalars(
            decimal: decimal(), date: date(), data: data(), url: url(), uuid: uuid(), double: double(),
            float: float(), doubles: (0..<int(0...4)).map { _ in double() }, text: text(),
            texts: (0..<int(0...3)).map { _ in text() }, int64: Int64(truncatingIfNeeded: bits()),
            uint64: bits(), int8: Int8(truncatingIfNeeded: bits()), flag: chance(0.5),
            missing: chance(0.5) ? nil : anyInt())
    }

    mutating func premiumAccount() -> PremiumAccount {
        PremiumAccount(id: anyInt(), premiumID: anyInt(), name: text(), level: int(0...9))
    }

    mutating func vehicle() -> Vehicle {
        chance(0.5) ? Vehicle(wheels: int(0...18)) : car()
    }

    mutating func car() -> Car {
        Car(
            wheels: int(0...18), fuel: pick(Fuel.allCases), vin: uuid(),
            plates: (0..<int(0...3)).map { _ in chance(0.5) ? nil : text() })
    }

    mutating func truck() -> Truck {
        Truck(
            wheels: int(0...18), load: chance(0.3) ? nil : pick(Fuel.allCases),
            axles: (0..<int(0...3)).map { _ in uuid() }, trailer: chance(0.5) ? nil : vehicle())
    }

    mutating func settings() -> Settings {
        Settings(volume: int(1...11), theme: text(), muted: chance(0.5))
    }

    mutating func route() -> Route {
        Route(
            name: text(),
            stops: (0..<int(0...3)).map { _ in
                Route.Stop(latitude: double(), longitude: double(), label: chance(0.5) ? nil : text())
            },
            counts: Dictionary((0..<int(0...3)).map { _ in (name(), anyInt()) }, uniquingKeysWith: { $1 }))
    }

    mutating func price() -> Price {
        Price(cents: Cents(anyInt()))
    }

    mutating func player() -> Player {
        switch int(0...3) {
        case 0: return .idle
        case 1: return .playing(int(0...3))
        case 2: return .paused(at: int(0...100), reason: text())
        default: return .buffering(int(0...100), chance(0.5) ? nil : text())
        }
    }

    mutating func catalog() -> Catalog {
        func entries<Key: Hashable, Value>(_ count: Int, _ make: () -> (Key, Value)) -> [Key: Value] {
            Dictionary((0..<count).map { _ in make() }, uniquingKeysWith: { $1 })
        }
        return Catalog(
            byName: entries(int(0...3)) { (name(), anyInt()) },
            byNumber: entries(int(0...3)) { (int(-5...5), text()) },
            byRegion: entries(int(0...4)) { (pick(Region.allCases), int(0...9)) },
            bySKU: entries(int(0...3)) { (SKU(code: name()), int(0...9)) },
            byUUID: entries(int(0...3)) { (uuid(), name()) },
            tags: Set((0..<int(0...5)).map { _ in name() }),
            numbers: Set((0..<int(0...6)).map { _ in int(-20...20) }))
    }

    mutating func piece(depth: Int = 0) -> Piece {
        let nested = depth < 3 ? 3 : 0
        switch int(0...(9 + nested)) {
        case 0: return .account(premiumAccount())
        case 1: return .car(car())
        case 2: return .truck(truck())
        case 3: return .settings(settings())
        case 4: return .route(route())
        case 5: return .price(price())
        case 6: return .scalars(scalars())
        case 7: return .player(player())
        case 8: return .priority(pick(Priority.allCases))
        case 9: return .catalog(catalog())
        case 10: return .list((0..<int(0...3)).map { _ in piece(depth: depth + 1) })
        case 11:
            return .map(
                Dictionary(
                    (0..<int(0...3)).map { _ in (name(), piece(depth: depth + 1)) }, uniquingKeysWith: { $1 })
            )
        default: return .optional(chance(0.3) ? nil : piece(depth: depth + 1))
        }
    }

    mutating func shapes() -> Shapes {
        Shapes(
            player: player(), settings: settings(), catalog: catalog(),
            accounts: (0..<int(0...2)).map { _ in premiumAccount() },
            cars: (0..<int(0...2)).map { _ in car() },
            route: chance(0.3) ? nil : route(),
            prices: Dictionary((0..<int(0...3)).map { _ in (name(), price()) }, uniquingKeysWith: { $1 }),
            scalars: scalars(), pieces: (0..<int(0...2)).map { _ in piece(depth: 1) })
    }

    // MARK: Changes

    /// A value like `shapes`, changed in a few places, or not at all; sets and dictionaries are
    /// rebuilt in other storage (another insertion order, another capacity) even when equal.
    mutating func changed(_ shapes: Shapes) -> Shapes {
        var new = shapes
        new.catalog = restored(new.catalog)
        for _ in 0..<int(0...3) {
            switch int(0...9) {
            case 0: new.player = player()
            case 1:
                if case .playing(let track) = new.player { new.player = .playing(track + 1) }
            case 2: new.settings.volume = int(1...11)
            case 3: new.catalog = catalog()
            case 4:
                new.catalog.tags.insert(name())
                new.catalog = restored(new.catalog)
            case 5: new.scalars = scalars()
            case 6:
                if new.scalars.text == "caf\u{E9}" {
                    new.scalars.text = "cafe\u{301}"
                } else {
                    new.scalars.text = "caf\u{E9}"
                }
            case 7: new.route = chance(0.5) ? nil : route()
            case 8: new.pieces = (0..<int(0...2)).map { _ in piece(depth: 1) }
            default: new.scalars.decimal = decimal()
            }
        }
        return new
    }

    /// The same catalog, its sets and dictionaries rebuilt in another order and capacity.
    mutating func restored(_ catalog: Catalog) -> Catalog {
        func rebuilt<Element: Hashable>(_ set: Set<Element>) -> Set<Element> {
            var copy = Set<Element>(minimumCapacity: int(0...64))
            for element in set.shuffled(using: &rng) { copy.insert(element) }
            return copy
        }
        func rebuilt<Key: Hashable, Value>(_ dictionary: [Key: Value]) -> [Key: Value] {
            var copy = [Key: Value](minimumCapacity: int(0...64))
            for (key, value) in dictionary.shuffled(using: &rng) { copy[key] = value }
            return copy
        }
        return Catalog(
            byName: rebuilt(catalog.byName), byNumber: rebuilt(catalog.byNumber),
            byRegion: rebuilt(catalog.byRegion), bySKU: rebuilt(catalog.bySKU),
            byUUID: rebuilt(catalog.byUUID), tags: rebuilt(catalog.tags), numbers: rebuilt(catalog.numbers))
    }
}

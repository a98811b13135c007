import Foundation

// The shapes apps write, as fixed types whose values the generators draw at random.

// MARK: Class hierarchies

/// A base class whose subclass writes a key of the same name after `super.encode(to:)`.
class Account: Codable, Equatable, CustomStringConvertible, @unchecked Sendable {
    // `@unchecked Sendable`: values are built by a test and not changed after they are dispatched.
    var id: Int
    var name: String

    init(id: Int, name: String) {
        self.id = id
        self.name = name
    }

    enum CodingKeys: String, CodingKey {
        case id
        case name
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
    }

    static func == (lhs: Account, rhs: Account) -> Bool {
        lhs.isEqual(to: rhs)
    }

    func isEqual(to other: Account) -> Bool {
        type(of: self) == type(of: other) && id == other.id && sameText(name, other.name)
    }

    var description: String { "Account(id: \(id), name: \(name))" }
}

/// Calls `super.encode(to: encoder)`, then writes `id` again: Foundation keeps the last value.
final class PremiumAccount: Account, @unchecked Sendable {
    var premiumID: Int
    var level: Int

    init(id: Int, premiumID: Int, name: String, level: Int) {
        self.premiumID = premiumID
        self.level = level
        super.init(id: id, name: name)
    }

    enum PremiumKeys: String, CodingKey {
        case id
        case level
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: PremiumKeys.self)
        premiumID = try container.decode(Int.self, forKey: .id)
        level = try container.decode(Int.self, forKey: .level)
        try super.init(from: decoder)
    }

    override func encode(to encoder: any Encoder) throws {
        try super.encode(to: encoder)
        var container = encoder.container(keyedBy: PremiumKeys.self)
        try container.encode(premiumID, forKey: .id)
        try container.encode(level, forKey: .level)
    }

    override func isEqual(to other: Account) -> Bool {
        guard let other = other as? PremiumAccount else { return false }
        return super.isEqual(to: other) && premiumID == other.premiumID && level == other.level
    }

    override var description: String {
        "PremiumAccount(id: \(id), premiumID: \(premiumID), name: \(name), level: \(level))"
    }
}

enum Fuel: String, Codable, CaseIterable {
    case petrol
    case diesel
    case electric
}

/// A base class whose subclasses encode it through `superEncoder()` or `superEncoder(forKey:)`.
class Vehicle: Codable, Equatable, CustomStringConvertible, @unchecked Sendable {
    // `@unchecked Sendable`: values are built by a test and not changed after they are dispatched.
    var wheels: Int

    init(wheels: Int) { self.wheels = wheels }

    enum CodingKeys: String, CodingKey { case wheels }

    required init(from decoder: any Decoder) throws {
        wheels = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .wheels)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(wheels, forKey: .wheels)
    }

    static func == (lhs: Vehicle, rhs: Vehicle) -> Bool {
        lhs.isEqual(to: rhs)
    }

    func isEqual(to other: Vehicle) -> Bool {
        type(of: self) == type(of: other) && wheels == other.wheels
    }

    var description: String { "Vehicle(wheels: \(wheels))" }
}

/// `superEncoder()`, then values written through single-value containers: a `String`-backed enum,
/// a `UUID`, optionals inside an array.
final class Car: Vehicle, @unchecked Sendable {
    var fuel: Fuel
    var vin: UUID
    var plates: [String?]

    init(wheels: Int, fuel: Fuel, vin: UUID, plates: [String?]) {
        self.fuel = fuel
        self.vin = vin
        self.plates = plates
        super.init(wheels: wheels)
    }

    enum CarKeys: String, CodingKey {
        case fuel
        case vin
        case plates
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CarKeys.self)
        fuel = try container.decode(Fuel.self, forKey: .fuel)
        vin = try container.decode(UUID.self, forKey: .vin)
        plates = try container.decode([String?].self, forKey: .plates)
        try super.init(from: container.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CarKeys.self)
        try super.encode(to: container.superEncoder())
        try container.encode(fuel, forKey: .fuel)
        try container.encode(vin, forKey: .vin)
        try container.encode(plates, forKey: .plates)
    }

    override func isEqual(to other: Vehicle) -> Bool {
        guard let other = other as? Car else { return false }
        return super.isEqual(to: other) && fuel == other.fuel && vin == other.vin && plates == other.plates
    }

    override var description: String {
        "Car(wheels: \(wheels), fuel: \(fuel), vin: \(vin), plates: \(plates))"
    }
}

/// `superEncoder(forKey:)` into a named key, and `superEncoder()` of an unkeyed container.
final class Truck: Vehicle, @unchecked Sendable {
    var load: Fuel?
    var axles: [UUID]
    var trailer: Vehicle?

    init(wheels: Int, load: Fuel?, axles: [UUID], trailer: Vehicle?) {
        self.load = load
        self.axles = axles
        self.trailer = trailer
        super.init(wheels: wheels)
    }

    enum TruckKeys: String, CodingKey {
        case base
        case load
        case axles
        case trailer
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TruckKeys.self)
        load = try container.decodeIfPresent(Fuel.self, forKey: .load)
        var axles = try container.nestedUnkeyedContainer(forKey: .axles)
        let trailerDecoder = try axles.superDecoder()
        trailer = try Vehicle?(from: trailerDecoder)
        var decoded: [UUID] = []
        while !axles.isAtEnd { decoded.append(try axles.decode(UUID.self)) }
        self.axles = decoded
        try super.init(from: container.superDecoder(forKey: .base))
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TruckKeys.self)
        try super.encode(to: container.superEncoder(forKey: .base))
        try container.encode(load, forKey: .load)
        var axles = container.nestedUnkeyedContainer(forKey: .axles)
        try trailer.encode(to: axles.superEncoder())
        for axle in self.axles { try axles.encode(axle) }
    }

    override func isEqual(to other: Vehicle) -> Bool {
        guard let other = other as? Truck else { return false }
        return super.isEqual(to: other) && load == other.load && axles == other.axles
            && trailer == other.trailer
    }

    override var description: String {
        "Truck(wheels: \(wheels), load: \(String(describing: load)), axles: \(axles), "
            + "trailer: \(String(describing: trailer)))"
    }
}

// MARK: Keys written twice, nested containers, single-value wrappers

/// Writes a default for each key, then the real value: Foundation keeps the real one.
struct Settings: Codable, Equatable {
    var volume: Int
    var theme: String
    var muted: Bool

    enum CodingKeys: String, CodingKey {
        case volume
        case theme
        case muted
    }

    init(volume: Int, theme: String, muted: Bool) {
        self.volume = volume
        self.theme = theme
        self.muted = muted
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        volume = try container.decode(Int.self, forKey: .volume)
        theme = try container.decode(String.self, forKey: .theme)
        muted = try container.decode(Bool.self, forKey: .muted)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(0, forKey: .volume)
        try container.encode("default", forKey: .theme)
        try container.encodeNil(forKey: .muted)
        try container.encode(volume, forKey: .volume)
        try container.encode(theme, forKey: .theme)
        try container.encode(muted, forKey: .muted)
    }
}

/// A custom `encode(to:)` and `init(from:)` with nested keyed and unkeyed containers.
struct Route: Codable, Equatable {
    struct Stop: Equatable {
        var latitude: Double
        var longitude: Double
        var label: String?
    }

    var name: String
    var stops: [Stop]
    var counts: [String: Int]

    enum CodingKeys: String, CodingKey {
        case info
        case counts
    }

    enum InfoKeys: String, CodingKey {
        case name
        case stops
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(name: String, stops: [Stop], counts: [String: Int]) {
        self.name = name
        self.stops = stops
        self.counts = counts
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let info = try container.nestedContainer(keyedBy: InfoKeys.self, forKey: .info)
        name = try info.decode(String.self, forKey: .name)
        var list = try info.nestedUnkeyedContainer(forKey: .stops)
        var stops: [Stop] = []
        while !list.isAtEnd {
            var stop = try list.nestedUnkeyedContainer()
            let latitude = try stop.decode(Double.self)
            let longitude = try stop.decode(Double.self)
            let label = stop.isAtEnd ? nil : try stop.decode(String.self)
            stops.append(Stop(latitude: latitude, longitude: longitude, label: label))
        }
        self.stops = stops
        let counts = try container.nestedContainer(keyedBy: AnyKey.self, forKey: .counts)
        var decoded: [String: Int] = [:]
        for key in counts.allKeys { decoded[key.stringValue] = try counts.decode(Int.self, forKey: key) }
        self.counts = decoded
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var info = container.nestedContainer(keyedBy: InfoKeys.self, forKey: .info)
        try info.encode(name, forKey: .name)
        var list = info.nestedUnkeyedContainer(forKey: .stops)
        for stop in stops {
            var pair = list.nestedUnkeyedContainer()
            try pair.encode(stop.latitude)
            try pair.encode(stop.longitude)
            if let label = stop.label { try pair.encode(label) }
        }
        var counts = container.nestedContainer(keyedBy: AnyKey.self, forKey: .counts)
        for (key, value) in self.counts { try counts.encode(value, forKey: AnyKey(stringValue: key)) }
    }

    static func == (lhs: Route, rhs: Route) -> Bool {
        sameText(lhs.name, rhs.name) && lhs.counts == rhs.counts && lhs.stops.count == rhs.stops.count
            && zip(lhs.stops, rhs.stops).allSatisfy { left, right in
                sameFloat(left.latitude, right.latitude) && sameFloat(left.longitude, right.longitude)
                    && left.label == right.label
            }
    }
}

/// A value written through a single-value container.
struct Cents: Codable, Equatable {
    var value: Int

    init(_ value: Int) { self.value = value }

    init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(Int.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// A struct wrapping a struct wrapping an `Int`, each through a single-value container.
struct Price: Codable, Equatable {
    var cents: Cents

    init(from decoder: any Decoder) throws {
        cents = try decoder.singleValueContainer().decode(Cents.self)
    }

    init(cents: Cents) { self.cents = cents }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(cents)
    }
}

/// Any value, written through one more single-value container.
struct Wrapper<Inner: Codable & Equatable>: Codable, Equatable {
    var inner: Inner

    init(_ inner: Inner) { self.inner = inner }

    init(from decoder: any Decoder) throws {
        inner = try decoder.singleValueContainer().decode(Inner.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(inner)
    }
}

/// One level of a list, one JSON array deep: `[wrappers, next]`, where `next` goes through 1 to 3
/// single-value wrappers, which add no JSON level.
struct WrappedLevel: Codable, Equatable {
    var wrappers: Int
    var next: [WrappedLevel]  // empty or one element, so that the type need not be indirect

    /// A list `levels` deep whose levels use the given numbers of wrappers, in turn.
    static func list(levels: Int, wrappers: (Int) -> Int) -> WrappedLevel {
        var level = WrappedLevel(wrappers: wrappers(levels - 1), next: [])
        for index in stride(from: levels - 2, through: 0, by: -1) {
            level = WrappedLevel(wrappers: wrappers(index), next: [level])
        }
        return level
    }

    var depth: Int {
        var count = 1
        var level = self
        while let next = level.next.first {
            count += 1
            level = next
        }
        return count
    }

    init(wrappers: Int, next: [WrappedLevel]) {
        self.wrappers = wrappers
        self.next = next
    }

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        wrappers = try container.decode(Int.self)
        if container.isAtEnd {
            next = []
            return
        }
        switch wrappers {
        case 1: next = [try container.decode(Wrapper<WrappedLevel>.self).inner]
        case 2: next = [try container.decode(Wrapper<Wrapper<WrappedLevel>>.self).inner.inner]
        default: next = [try container.decode(Wrapper<Wrapper<Wrapper<WrappedLevel>>>.self).inner.inner.inner]
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(wrappers)
        guard let next = next.first else { return }
        switch wrappers {
        case 1: try container.encode(Wrapper(next))
        case 2: try container.encode(Wrapper(Wrapper(next)))
        default: try container.encode(Wrapper(Wrapper(Wrapper(next))))
        }
    }
}

// MARK: Scalars

/// Foundation's scalar types, floats with their special values, and strings that need care.
struct Scalars: Codable, Equatable {
    var decimal: Decimal
    var date: Date
    var data: Data
    var url: URL
    var uuid: UUID
    var double: Double
    var float: Float
    var doubles: [Double]
    var text: String
    var texts: [String]
    var int64: Int64
    var uint64: UInt64
    var int8: Int8
    var flag: Bool
    var missing: Int?

    static func == (lhs: Scalars, rhs: Scalars) -> Bool {
        lhs.decimal == rhs.decimal && lhs.date == rhs.date && lhs.data == rhs.data && lhs.url == rhs.url
            && lhs.uuid == rhs.uuid && sameFloat(lhs.double, rhs.double) && sameFloat(lhs.float, rhs.float)
            && sameFloats(lhs.doubles, rhs.doubles) && sameText(lhs.text, rhs.text)
            && lhs.texts.count == rhs.texts.count && zip(lhs.texts, rhs.texts).allSatisfy(sameText)
            && lhs.int64 == rhs.int64 && lhs.uint64 == rhs.uint64 && lhs.int8 == rhs.int8
            && lhs.flag == rhs.flag && lhs.missing == rhs.missing
    }
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
struct BigIntegers: Codable, Equatable {
    var signed: Int128
    var unsigned: UInt128
    var list: [Int128]
}

// MARK: Enums and dictionaries

/// Synthesized `Codable`: `_0` for unlabeled payloads, the labels otherwise.
enum Player: Codable, Equatable {
    case idle
    case playing(Int)
    case paused(at: Int, reason: String)
    case buffering(Int, String?)
}

enum Priority: Int, Codable, CaseIterable {
    case low = 1
    case normal = 5
    case high = 9
}

/// A `String`-backed enum that is not `CodingKeyRepresentable`: as a dictionary key, `JSONEncoder`
/// writes an array of keys and values.
enum Region: String, Codable, Hashable, CaseIterable {
    case north
    case south
    case east
    case west
}

/// A key type that is `CodingKeyRepresentable`: as a dictionary key, `JSONEncoder` writes an object
/// (where the protocol exists; before, an array of keys and values, as for `Region`).
struct SKU: Hashable, Codable {
    var code: String

    init(code: String) { self.code = code }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

@available(macOS 12.3, iOS 15.4, tvOS 15.4, watchOS 8.5, *)
extension SKU: CodingKeyRepresentable {
    var codingKey: any CodingKey { Key(stringValue: code) }

    init?<T: CodingKey>(codingKey: T) {
        code = codingKey.stringValue
    }
}

/// Dictionaries of every key kind, and sets.
struct Catalog: Codable, Equatable {
    var byName: [String: Int]
    var byNumber: [Int: String]
    var byRegion: [Region: Int]
    var bySKU: [SKU: Int]
    var byUUID: [UUID: String]
    var tags: Set<String>
    var numbers: Set<Int>
}

/// A composition of every shape above, nested at random.
enum Piece: Codable, Equatable {
    case account(PremiumAccount)
    case car(Car)
    case truck(Truck)
    case settings(Settings)
    case route(Route)
    case price(Price)
    case scalars(Scalars)
    case player(Player)
    case priority(Priority)
    case catalog(Catalog)
    case list([Piece])
    case map([String: Piece])
    indirect case optional(Piece?)
}

/// A state of every shape, for change sets: the members the paths name are fixed.
struct Shapes: Codable, Equatable {
    var player: Player
    var settings: Settings
    var catalog: Catalog
    var accounts: [PremiumAccount]
    var cars: [Car]
    var route: Route?
    var prices: [String: Price]
    var scalars: Scalars
    var pieces: [Piece]
}

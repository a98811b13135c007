import Foundation
import Testing

@testable import ReduxSwift

/// `ArchiveDefaults` fills what an older archive lacks, and nothing that belongs to another type.
@Suite(.offThePool) struct ArchiveDefaultsShapeTests {
    struct Circle: Codable, Equatable, ArchiveDefaults {
        var radius = 1.0
    }

    struct Square: Codable, Equatable {
        var name: String
    }

    /// Decodes a circle if it can, else a square: the polymorphic `try?` apps write.
    enum Shape: Codable, Equatable {
        case circle(Circle)
        case square(Square)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let circle = try? container.decode(Circle.self) {
                self = .circle(circle)
            } else {
                self = .square(try container.decode(Square.self))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .circle(let circle): try container.encode(circle)
            case .square(let square): try container.encode(square)
            }
        }
    }

    struct Drawing: StateProtocol, Equatable, ArchiveDefaults {
        var shapes: [Shape] = []
        var title = "untitled"
    }

    @Test func aValueOfAnotherTypeIsNotReplacedByDefaultsWhenAnOlderArchiveIsFilled() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("drawing.json")
        // Version 1 had no title: the load fills it, and must not fill the square into a circle.
        try Data(#"{"schemaVersion":1,"state":{"shapes":[{"name":"a"},{"radius":3}]}}"#.utf8).write(to: url)
        let loaded = try StateArchive<Drawing>(file: url).load()
        #expect(loaded == Drawing(shapes: [.square(Square(name: "a")), .circle(Circle(radius: 3))]))
    }

    struct Disc: Codable, Equatable, ArchiveDefaults {
        var id = 0
        var radius = 1.0
        var color = "red"  // added in version 2
    }

    struct Box: Codable, Equatable {
        var id: Int
        var corners: [Double]
    }

    /// Decodes a disc if it can, else a box; both have an `id`.
    enum Figure: Codable, Equatable {
        case disc(Disc)
        case box(Box)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let disc = try? container.decode(Disc.self) {
                self = .disc(disc)
            } else {
                self = .box(try container.decode(Box.self))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .disc(let disc): try container.encode(disc)
            case .box(let box): try container.encode(box)
            }
        }
    }

    struct Sketch: StateProtocol, Equatable {
        var figures: [Figure] = []
    }

    @Test func aValueOfAnotherTypeThatSharesAMemberIsNotFilledWithWhatTheOtherElementsHold() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("sketch.json")
        // The box shares `id` with the discs, but lacks `radius`, which the discs hold: it is no
        // older disc. Every disc lacks `color`, added since: they are filled.
        try Data(
            #"{"schemaVersion":1,"state":{"figures":[{"id":1,"radius":3},{"id":2,"corners":[0,0,2,2]}]}}"#
                .utf8
        ).write(to: url)
        let loaded = try StateArchive<Sketch>(file: url).load()
        #expect(
            loaded
                == Sketch(figures: [
                    .disc(Disc(id: 1, radius: 3, color: "red")), .box(Box(id: 2, corners: [0, 0, 2, 2])),
                ]))
        // What was written back reads the same, and the box did not gain the discs' new member.
        let written = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let figures = try #require((written["state"] as? [String: Any])?["figures"] as? [[String: Any]])
        #expect(figures.map { $0["color"] as? String } == ["red", nil])
        #expect(try StateArchive<Sketch>(file: url).load() == loaded)
    }

    /// Decodes a disc when the object has a radius, else a box.
    enum Part: Codable, Equatable {
        case disc(Disc)
        case box(Box)

        private enum Keys: String, CodingKey { case radius }

        init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer()
            if try decoder.container(keyedBy: Keys.self).contains(.radius) {
                self = .disc(try value.decode(Disc.self))
            } else {
                self = .box(try value.decode(Box.self))
            }
        }

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .disc(let disc): try disc.encode(to: encoder)
            case .box(let box): try box.encode(to: encoder)
            }
        }
    }

    struct Assembly: StateProtocol, Equatable {
        var parts: [Part] = []
    }

    @Test func aValueOfAnotherTypeBesideFilledObjectsGainsNoMemberInTheArchiveWrittenBack() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("assembly.json")
        try Data(
            #"{"schemaVersion":1,"state":{"parts":[{"id":1,"radius":3},{"id":2,"corners":[0,0,2,2]}]}}"#.utf8
        ).write(to: url)
        let loaded = try StateArchive<Assembly>(file: url).load()
        #expect(
            loaded
                == Assembly(parts: [
                    .disc(Disc(id: 1, radius: 3, color: "red")), .box(Box(id: 2, corners: [0, 0, 2, 2])),
                ]))
        // The box did not gain the discs' new member: a later version that gives boxes a `color`
        // would read it as theirs.
        let written = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let parts = try #require((written["state"] as? [String: Any])?["parts"] as? [[String: Any]])
        #expect(parts.map { $0["color"] as? String } == ["red", nil])
        #expect(try StateArchive<Assembly>(file: url).load() == loaded)
    }

    @Test func anEmptyObjectOfAnOlderVersionIsStillFilled() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("drawing.json")
        try Data(#"{"schemaVersion":1,"state":{"shapes":[{}]}}"#.utf8).write(to: url)
        #expect(try StateArchive<Drawing>(file: url).load() == Drawing(shapes: [.circle(Circle())]))
    }

    struct Border: Codable, Equatable, ArchiveDefaults {
        var width = 1
        var color = "black"  // added in version 2
    }

    /// Reads its border through a super decoder, as hand-written `init(from:)`s sometimes do: the
    /// decoder is never told the border's type, so the load cannot know its defaults.
    struct Frame: StateProtocol, Equatable {
        var border = Border()

        enum CodingKeys: String, CodingKey {
            case border
        }

        init() {}

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            border = try Border(from: container.superDecoder(forKey: .border))
        }
    }

    @Test func aDefaultsTypeReadThroughASuperDecoderIsRefusedWithTheMigrationThatFillsIt() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("frame.json")
        try Data(#"{"schemaVersion":1,"state":{"border":{"width":3}}}"#.utf8).write(to: url)
        let error = try #require(throws: PersistenceError.self) { try StateArchive<Frame>(file: url).load() }
        guard case .needsMigration(let path, _, let migration) = error.kind else {
            Issue.record("expected needsMigration, got \(error)")
            return
        }
        #expect(path == "state.border.color")
        #expect(migration.contains(#"adding: "color""#))
        // The file is kept as it was.
        #expect(
            try Data(contentsOf: url) == Data(#"{"schemaVersion":1,"state":{"border":{"width":3}}}"#.utf8))
    }
}

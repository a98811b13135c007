import Foundation
import Testing

@testable import ReduxSwift

/// A `Double` that is NaN or infinite is written as a string; an app's own string that reads the
/// same stays a string, in copies, archives and action logs.
@Suite(.offThePool) struct FloatStringTests {
    /// The free-form value apps write, which tries a `Double` before a `String`.
    enum Value: Codable, Equatable {
        case number(Double)
        case text(String)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else {
                self = .text(try container.decode(String.self))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .number(let number): try container.encode(number)
            case .text(let text): try container.encode(text)
            }
        }

        /// Equal as the values they hold, NaN included.
        static func == (lhs: Value, rhs: Value) -> Bool {
            switch (lhs, rhs) {
            case (.number(let a), .number(let b)): return a == b || (a.isNaN && b.isNaN)
            case (.text(let a), .text(let b)): return a == b
            default: return false
            }
        }
    }

    struct Notes: StateProtocol, Equatable {
        var values: [Value] = []
        var ratio = 1.0
    }

    static let texts: [Value] = [.text("NaN"), .text("Infinity"), .text("-Infinity"), .number(2)]

    static func store(_ state: Notes) -> Store<Notes> {
        Store(reducers: [], state: state, notificationCenter: StoreNotificationCenter())
    }

    @Test func stringsThatReadAsFloatsStayStringsInCopies() throws {
        let plain = Notes(values: Self.texts)
        #expect(try Self.store(plain).snapshot() == plain)
        // With floats written as strings in the same state, the strings still come back.
        let mixed = Notes(values: Self.texts + [.number(.nan), .number(-.infinity)], ratio: .infinity)
        #expect(try Self.store(mixed).snapshot() == mixed)
        #expect(try Self.store(Notes(values: [.number(.nan)], ratio: .nan)).snapshot().ratio.isNaN)
    }

    @Test func stringsThatReadAsFloatsStayStringsInArchives() throws {
        let directory = TemporaryDirectory()
        for (index, state) in [
            Notes(values: Self.texts), Notes(values: Self.texts + [.number(.nan)], ratio: -.infinity),
        ].enumerated() {
            let url = directory.file("notes-\(index).json")
            try StateArchive<Notes>(file: url).save(state)
            #expect(try StateArchive<Notes>(file: url).load() == state)
        }
    }

    @Test func anArchiveThatWritesItsFloatsWithOtherStringsPassesItsOwnFixtureCheck() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("notes.json")
        let state = Notes(values: Self.texts + [.number(.nan)], ratio: .infinity)
        try StateArchive<Notes>(file: url).save(state)
        #expect(String(decoding: try Data(contentsOf: url), as: UTF8.self).contains("NaN#1"))
        #expect(try StateArchive<Notes>(file: directory.file("other.json")).loadFixture(at: url) == state)
    }

    /// A state written as an array, which a migration could not take: it loads as the current
    /// version, whatever strings its floats are written with.
    struct Column: StateProtocol, Equatable {
        var values: [Value] = []

        init(_ values: [Value]) {
            self.values = values
        }

        init(from decoder: any Decoder) throws {
            values = try decoder.singleValueContainer().decode([Value].self)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(values)
        }
    }

    @Test func anArchiveThatWritesItsFloatsWithOtherStringsLoadsAsTheCurrentVersion() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("column.json")
        let state = Column([.number(.nan), .text("NaN")])
        try StateArchive<Column>(file: url).save(state)
        #expect(try StateArchive<Column>(file: url).load() == state)
    }

    @Test func anArchiveOfAnEarlierVersionWithFloatsAsStringsStillLoads() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("notes.json")
        // Written before archives said how they write floats.
        try Data(#"{"schemaVersion":1,"state":{"values":[1],"ratio":"NaN"}}"#.utf8).write(to: url)
        let loaded = try #require(try StateArchive<Notes>(file: url).load())
        #expect(loaded.ratio.isNaN)
        #expect(loaded.values == [.number(1)])
    }

    struct Jot: ActionProtocol, Codable {
        var value: Value
    }

    @Test func stringsThatReadAsFloatsStayStringsInActionLogs() throws {
        let log = ActionLog()
        log.register(Jot.self, name: "Jot")
        let seen = Recorder<Value>()
        let reducer: Reducer<Notes> = { state, action in
            if let jot = action as? Jot {
                state.values.append(jot.value)
                seen.append(jot.value)
            }
        }
        let store = Store(reducers: [reducer], state: Notes(), notificationCenter: StoreNotificationCenter())
        let recording = log.record(store)
        let jots = (Self.texts + [.number(.nan)]).map(Jot.init)
        for jot in jots { store.dispatch(jot) }
        _ = store.currentState()
        let lines = recording.stop()
        let fresh = Store(reducers: [reducer], state: Notes(), notificationCenter: StoreNotificationCenter())
        #expect(try log.replay(lines, into: fresh) == jots.count)
        #expect(fresh.currentState().values == jots.map(\.value))
    }

    struct Measure: ActionProtocol, Codable {
        var reading: Double
    }

    @Test func aLogLineOfAnEarlierVersionWithAFloatAsAStringStillReplays() throws {
        let log = ActionLog()
        log.register(Measure.self, name: "Measure")
        let reducer: Reducer<Notes> = { state, action in
            if let measure = action as? Measure { state.ratio = measure.reading }
        }
        let store = Store(reducers: [reducer], state: Notes(), notificationCenter: StoreNotificationCenter())
        // Written before lines said how they write floats.
        let old = Data(
            #"{"action":{"reading":"-Infinity"},"time":"2026-11-22T10:00:00.000Z","type":"Measure"}"#.utf8)
        #expect(try log.replay(old, into: store) == 1)
        #expect(store.currentState().ratio == -.infinity)
    }
}

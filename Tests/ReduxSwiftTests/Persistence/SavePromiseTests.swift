import Foundation
import Testing

@testable import ReduxSwift

/// An expense tracker's state: the shape the save promise is checked against.
struct Ledger: StateProtocol, Equatable {
    struct Expense: Codable, Equatable {
        var title: String
        var amount: Decimal
    }

    var expenses: [Expense] = []
    var receipts: [Data] = []
}

/// Actions of the ledger.
enum LedgerAction: ActionProtocol {
    case add(String, Decimal)
    case split(index: Int, between: Decimal)
    case attach(Data)
    case correct(index: Int, amount: Decimal)

    static let reducer: Reducer<Ledger> = { state, action in
        switch action as? LedgerAction {
        case .add(let title, let amount)?: state.expenses.append(Ledger.Expense(title: title, amount: amount))
        case .split(let index, let people)?: state.expenses[index].amount /= people
        case .attach(let data)?: state.receipts.append(data)
        case .correct(let index, let amount)?: state.expenses[index].amount = amount
        case nil: break
        }
    }
}

/// What a save writes, the next launch loads: a save checks first what a load checks.
@Suite(.offThePool) struct SavePromiseTests {
    static func makeStore(_ state: Ledger = Ledger()) -> Store<Ledger> {
        Store(reducers: [LedgerAction.reducer], state: state, notificationCenter: StoreNotificationCenter())
    }

    static let nanLedger = Ledger(expenses: [
        .init(title: "rent", amount: 900), .init(title: "dinner", amount: Decimal(1) / Decimal(0)),
    ])

    @Test func aDecimalNaNFailsTheSnapshotNamingItsPath() throws {
        #expect((Decimal(1) / Decimal(0)).isNaN)
        let store = Self.makeStore()
        store.dispatch(LedgerAction.add("rent", 900))
        #expect(store.currentState().expenses.count == 1)
        store.dispatch(LedgerAction.add("dinner", 60))
        store.dispatch(LedgerAction.split(index: 1, between: 0))
        let error = try #require(throws: SnapshotError.self) { try store.snapshot() }
        #expect(error.kind == .encodingFailed)
        #expect(error.codingPath == "expenses[1].amount")
        #expect(error.description.contains("Decimal NaN"))
        // Readers keep the newest state that round-trips.
        #expect(store.currentState().expenses.count == 1)
    }

    @Test func aStateThatCannotRoundTripIsAnnouncedOnceToFailureObservers() async throws {
        let store = Self.makeStore()
        let failures = Recorder<String>()
        let token = store.observeFailures { notification in
            #expect(notification.failedAction == nil)
            failures.append((notification.error as? SnapshotError)?.codingPath ?? "not a SnapshotError")
        }
        defer { token.cancel() }
        store.dispatch(LedgerAction.add("dinner", 60))
        store.dispatch(LedgerAction.split(index: 0, between: 0))
        for _ in 0..<3 { _ = store.currentState() }
        #expect(failures.wait(forCount: 1, timeout: 60))
        // Later versions that fail too, however the drains group them, are the same stretch;
        // repeated reads are not announced either.
        store.dispatch(LedgerAction.add("lunch", 10))
        for _ in 0..<3 { _ = try? store.snapshot() }
        store.dispatch(LedgerAction.add("tea", 3))
        _ = store.currentState()
        try await store.waitUntilIdle(timeout: 60)
        #expect(failures.values == ["expenses[0].amount"])
        // Once a version round-trips, the next that fails is announced again.
        store.dispatch(LedgerAction.correct(index: 0, amount: 60))
        #expect(store.currentState().expenses.count == 3)
        store.dispatch(LedgerAction.split(index: 1, between: 0))
        _ = store.currentState()
        #expect(failures.wait(forCount: 2, timeout: 60))
        try await store.waitUntilIdle(timeout: 60)
        #expect(failures.values == ["expenses[0].amount", "expenses[1].amount"])
    }

    /// Splits its shares by writing them as fractions, which its `init(from:)` reads as whole
    /// numbers: a state whose JSON does not decode again because of one number.
    struct Shares: StateProtocol, Equatable {
        var owners = ["ann": 2, "bob": 3]

        enum CodingKeys: String, CodingKey {
            case owners
        }

        init() {}

        init(from decoder: any Decoder) throws {
            owners = try decoder.container(keyedBy: CodingKeys.self).decode(
                [String: Int].self, forKey: .owners)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(owners.mapValues { $0 == 3 ? 1.5 : Double($0) }, forKey: .owners)
        }
    }

    @Test func aNumberTheStateCannotReadBackIsNamedWithItsPathByTheStoreAndBySave() throws {
        let store = Store<Shares>(
            reducers: [], state: Shares(), notificationCenter: StoreNotificationCenter())
        let error = try #require(throws: SnapshotError.self) { try store.snapshot() }
        #expect(error.kind == .decodingFailed)
        #expect(error.codingPath == "owners.bob")
        #expect(error.description.contains("The number 1.5 does not fit"))

        let directory = TemporaryDirectory()
        let url = directory.file("shares.json")
        let saveError = try #require(throws: PersistenceError.self) {
            try StateArchive<Shares>(file: url).save(Shares())
        }
        #expect(saveError.description.contains("owners.bob"))
        #expect(saveError.description.contains("The number 1.5 does not fit"))
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func aDecimalNaNIsRefusedBySaveAndTheArchiveKeepsTheLastSave() throws {
        let directory = TemporaryDirectory()
        let archive = StateArchive<Ledger>(file: directory.file("ledger.json"))
        let saved = Ledger(expenses: [.init(title: "rent", amount: 900)])
        try archive.save(saved)
        let error = try #require(throws: PersistenceError.self) { try archive.save(Self.nanLedger) }
        #expect(error.stage == .save)
        #expect(error.description.contains("expenses[1].amount"))
        #expect(error.description.contains("Decimal NaN"))
        #expect(try archive.load() == saved)
    }

    @Test func aStateLargerThanTheArchiveReadsIsRefusedBeforeWriting() throws {
        let directory = TemporaryDirectory()
        let archive = StateArchive<Ledger>(file: directory.file("ledger.json"), sizeLimit: 4_096)
        let saved = Ledger(receipts: [Data(count: 1_000)])
        try archive.save(saved)
        let error = try #require(throws: PersistenceError.self) {
            try archive.save(Ledger(receipts: [Data(count: 1_000), Data(count: 3_000)]))
        }
        #expect(error.stage == .save)
        guard case .tooLarge(let bytes, let limit) = error.kind else {
            Issue.record("expected tooLarge, got \(error)")
            return
        }
        #expect(bytes > 4_096 && limit == 4_096)
        #expect(try archive.load() == saved)
    }

    @Test func aStateSavedAtTheLargestSizeTheArchiveReadsLoadsAgain() throws {
        let directory = TemporaryDirectory()
        let file = directory.file("ledger.json")
        let state = Ledger(receipts: [Data(count: 2_000)])
        try StateArchive<Ledger>(file: file).save(state)
        let size = try Data(contentsOf: file).count
        #expect(try StateArchive<Ledger>(file: file, sizeLimit: size).load() == state)
        let tight = StateArchive<Ledger>(file: file, sizeLimit: size - 1)
        #expect(throws: PersistenceError.self) { try tight.save(state) }
    }

    @Test func aStateAtTheNestingLimitSavesAndLoadsAndOneLevelMoreIsRefusedNamingThePath() throws {
        // 511 levels, the most JSONEncoder writes: the archive's envelope makes 512, which a load reads.
        let deepest = Nest(depth: JSONNesting.limit)
        let store = Store(reducers: [], state: deepest, notificationCenter: StoreNotificationCenter())
        #expect(try store.snapshot() == deepest)
        let directory = TemporaryDirectory()
        let archive = StateArchive<Nest>(file: directory.file("nest.json"))
        try archive.save(deepest)
        #expect(try archive.load() == deepest)
        #expect(try StateArchive<Nest>(file: directory.file("nest.json")).load() == deepest)
        // One level more is refused by the snapshot and by a save, naming the path.
        let tooDeep = Nest(depth: JSONNesting.limit + 1)
        let error = try #require(throws: PersistenceError.self) { try archive.save(tooDeep) }
        #expect(error.stage == .save)
        #expect(error.description.contains("511"))
        #expect(error.description.contains("inner.inner.inner"))
        #expect(try archive.load() == deepest)
        let snapshotError = try #require(throws: SnapshotError.self) {
            try Store(reducers: [], state: tooDeep, notificationCenter: StoreNotificationCenter()).snapshot()
        }
        let nesting = try #require(snapshotError.underlyingError as? SnapshotError.NestingTooDeep)
        #expect(
            nesting.codingPath == Array(repeating: "inner", count: JSONNesting.limit).joined(separator: "."))
    }

    @Test func aPersistenceServiceRefusesAStateThatDoesNotRoundTripAndKeepsTheLastSave() throws {
        let backend = MemoryBackend()
        let archive = StateArchive<Ledger>(backend: backend)
        let store = Self.makeStore()
        let errors = Recorder<PersistenceError>()
        let service = PersistenceService(store: store, archive: archive, onError: { errors.append($0) })
        store.dispatch(LedgerAction.add("rent", 900))
        try service.flush()
        let saved = try #require(backend.data)
        store.dispatch(LedgerAction.split(index: 0, between: 0))
        #expect(throws: PersistenceError.self) { try service.flush() }
        #expect(backend.data == saved)
        #expect(try archive.load() == Ledger(expenses: [.init(title: "rent", amount: 900)]))
        withExtendedLifetime(service) {}
    }

    /// A count that, once broken, writes a fraction its `init(from:)` cannot read as an `Int`: a
    /// version that encodes but does not decode.
    struct Tally: StateProtocol, Equatable {
        var count = 0
        var isBroken = false

        enum CodingKeys: String, CodingKey {
            case count, isBroken
        }

        init() {}

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            count = try container.decode(Int.self, forKey: .count)
            isBroken = try container.decode(Bool.self, forKey: .isBroken)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(isBroken ? 0.5 : Double(count), forKey: .count)
            try container.encode(isBroken, forKey: .isBroken)
        }

        static let reducer: Reducer<Tally> = { state, action in
            switch action as? TestAction {
            case .increment?: state.count += 1
            case .fail?: state.isBroken = true
            default: break
            }
        }
    }

    @Test func aVersionASaveCheckedIsWhatReadersGetWhenALaterOneDoesNotDecode() throws {
        let backend = MemoryBackend()
        let store = Store(
            reducers: [Tally.reducer], state: Tally(), notificationCenter: StoreNotificationCenter())
        let service = PersistenceService(
            store: store, archive: StateArchive<Tally>(backend: backend), onError: { _ in })
        store.dispatch(TestAction.increment)
        // No reader decoded this version; the save did.
        try service.flush()
        store.dispatch(TestAction.fail)
        var saved = Tally()
        saved.count = 1
        #expect(store.currentState() == saved)
        withExtendedLifetime(service) {}
    }
}

/// A state nested `depth` levels of objects deep: `{"inner":{"inner":{}}}` is 3.
struct Nest: StateProtocol, Equatable {
    /// A nest written through a single-value container, which adds no level.
    final class Box: Codable, Equatable {
        let nest: Nest
        init(_ nest: Nest) { self.nest = nest }
        init(from decoder: any Decoder) throws { nest = try decoder.singleValueContainer().decode(Nest.self) }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(nest)
        }

        static func == (lhs: Box, rhs: Box) -> Bool { lhs.nest == rhs.nest }
    }

    var inner: Box?

    init(depth: Int) {
        inner = depth > 1 ? Box(Nest(depth: depth - 1)) : nil
    }
}

import Foundation
import Testing

@testable import ReduxSwift

@Suite(.offThePool) struct UserDefaultsArchiveTests {
    let suiteName = "ReduxSwiftTests-\(UUID().uuidString)"

    func withDefaults(_ body: (UserDefaults) throws -> Void) throws {
        let defaults = try #require(UserDefaults(suiteName: suiteName))
        defer { defaults.removePersistentDomain(forName: suiteName) }
        try body(defaults)
    }

    #if !canImport(Darwin)
    /// Where swift-corelibs-foundation keeps a suite: `<suite>.plist` in `$XDG_CONFIG_HOME`, or in
    /// `~/.config` when that is not an absolute path. (Apple platforms keep it in
    /// `~/Library/Preferences`, written by `cfprefsd` when it sees fit, so only the domain is
    /// checked there.)
    var suiteFile: URL {
        let environment = ProcessInfo.processInfo.environment
        let base =
            environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") && $0.count > 1 ? $0 : nil }
            ?? ((environment["HOME"] ?? "") + "/.config")
        return URL(fileURLWithPath: base, isDirectory: true).appendingPathComponent("\(suiteName).plist")
    }
    #endif

    @Test func theSuiteIsRemovedAfterEachTest() throws {
        try withDefaults { defaults in
            let backend = UserDefaultsArchiveBackend(name: "TestState", namespace: "app", defaults: defaults)
            try StateArchive<TestState>(backend: backend).save(TestState(counter: 1))
            #expect(UserDefaults.standard.persistentDomain(forName: suiteName)?.isEmpty == false)
            #if !canImport(Darwin)
            #expect(
                FileManager.default.fileExists(atPath: suiteFile.path), "the suite's file is where we look")
            #endif
        }
        #expect(UserDefaults.standard.persistentDomain(forName: suiteName)?.isEmpty ?? true)
        #if !canImport(Darwin)
        #expect(!FileManager.default.fileExists(atPath: suiteFile.path))
        #endif
    }

    @Test func aStateSavedIsTheStateLoaded() throws {
        try withDefaults { defaults in
            let backend = UserDefaultsArchiveBackend(
                name: "TestState", namespace: "com.example", defaults: defaults)
            let archive = StateArchive<TestState>(backend: backend)
            #expect(try archive.load() == nil)
            try archive.save(TestState(counter: 3, log: ["x"]))
            #expect(try archive.load() == TestState(counter: 3, log: ["x"]))
        }
    }

    @Test func theKeyIsNamespaced() throws {
        try withDefaults { defaults in
            let backend = UserDefaultsArchiveBackend(
                name: "TestState", namespace: "com.example", defaults: defaults)
            #expect(backend.key == "com.example.TestState")
            try StateArchive<TestState>(backend: backend).save(TestState(counter: 1))
            #expect(defaults.data(forKey: "com.example.TestState") != nil)
            #expect(defaults.object(forKey: "TestState") == nil)
        }
    }

    @Test func aNamespaceMayHoldDotsAndMayBeEmpty() {
        let defaults = UserDefaults.standard
        #expect(UserDefaultsArchiveBackend(name: "c", namespace: "a.b", defaults: defaults).key == "a.b.c")
        #expect(UserDefaultsArchiveBackend(name: "c", namespace: "", defaults: defaults).key == "c")
    }

    /// A name with a dot could make the key of another pair: `"b.c"` in `"a"` is `"c"` in `"a.b"`.
    @Test func aNameThatIsEmptyOrHoldsADotIsAProgrammerError() async {
        await #expect(processExitsWith: .failure) { _ = UserDefaultsArchiveBackend(name: "", namespace: "a") }
        await #expect(processExitsWith: .failure) {
            _ = UserDefaultsArchiveBackend(name: "b.c", namespace: "a")
        }
        await #expect(processExitsWith: .failure) {
            _ = UserDefaultsArchiveBackend(name: "a.b", namespace: "")
        }
    }

    @Test func aValueThatIsNotDataIsRefusedAndKept() throws {
        try withDefaults { defaults in
            defaults.set("surprise", forKey: "app.TestState")
            let archive = StateArchive<TestState>(
                backend: UserDefaultsArchiveBackend(name: "TestState", namespace: "app", defaults: defaults))
            let error = #expect(throws: PersistenceError.self) { try archive.load() }
            guard case .wrongShape = error?.kind else {
                Issue.record("expected wrongShape, got \(String(describing: error))")
                return
            }
            #expect(error?.location == #"UserDefaults key "app.TestState""#)
            try archive.save(TestState(counter: 1))
            #expect(defaults.string(forKey: "app.TestState") == "surprise")
            #expect(defaults.data(forKey: "app.TestState.unmerged") != nil, "the save went beside it")
        }
    }

    /// A value of every property-list kind but data, and how the error names it.
    enum NotData: CaseIterable, Sendable {
        case string, integer, double, boolean, array, dictionary, date

        var value: Any {
            switch self {
            case .string: return "surprise"
            case .integer: return 42
            case .double: return 0.5
            case .boolean: return true
            case .array: return [1, 2]
            case .dictionary: return ["key": 1]
            case .date: return Date()
            }
        }

        var kind: String {
            switch self {
            case .string: return "a string"
            case .integer, .double: return "a number"
            case .boolean: return "a boolean"
            case .array: return "an array"
            case .dictionary: return "a dictionary"
            case .date: return "a date"
            }
        }
    }

    @Test(arguments: NotData.allCases)
    func aValueThatIsNotDataIsNamedByItsKindNotItsClass(_ notData: NotData) throws {
        try withDefaults { defaults in
            defaults.set(notData.value, forKey: "app.TestState")
            let archive = StateArchive<TestState>(
                backend: UserDefaultsArchiveBackend(name: "TestState", namespace: "app", defaults: defaults))
            let error = #expect(throws: PersistenceError.self) { try archive.load() }
            guard case .wrongShape(let detail) = error?.kind else {
                Issue.record("expected wrongShape, got \(String(describing: error))")
                return
            }
            #expect(detail == "the value is \(notData.kind), not data")
        }
    }

    @Test func corruptDataIsSetAsideUnderANewKeyOnRestore() throws {
        try withDefaults { defaults in
            defaults.set(Data("{ broken".utf8), forKey: "app.TestState")
            let archive = StateArchive<TestState>(
                backend: UserDefaultsArchiveBackend(name: "TestState", namespace: "app", defaults: defaults))
            let kept = Recorder<String?>()
            #expect(
                archive.restore(default: TestState(counter: 2)) { kept.append($1) } == TestState(counter: 2))
            let keys = defaults.dictionaryRepresentation().keys.filter {
                $0.hasPrefix("app.TestState.corrupt-")
            }
            #expect(keys.count == 1)
            let key = try #require(keys.first)
            #expect(defaults.data(forKey: key) == Data("{ broken".utf8))
            #expect(kept.values == [#"UserDefaults key "\#(key)""#])
            #expect(defaults.object(forKey: "app.TestState") == nil)
        }
    }
}

/// A `UserDefaults` archive stays within the platform's limit for the defaults database.
@Suite(.offThePool) struct UserDefaultsSizeLimitTests {
    let defaults = UserDefaults(suiteName: "UserDefaultsSizeLimitTests.\(UUID().uuidString)")!

    @Test func aSavePastTheLimitIsRefusedWithNothingWritten() throws {
        let backend = UserDefaultsArchiveBackend(
            name: "S", namespace: "t", defaults: defaults, sizeLimit: 100)
        try backend.write(Data(repeating: 1, count: 60))
        let error = #expect(throws: PersistenceError.self) {
            try backend.write(Data(repeating: 2, count: 101))
        }
        #expect(error?.kind == .tooLarge(bytes: 101, limit: 100))
        #expect(error?.stage == .save)
        #expect(defaults.data(forKey: "t.S") == Data(repeating: 1, count: 60))
    }

    @Test func settingAsideMovesTheValueAndItsCopyCountsTowardTheLimit() throws {
        let backend = UserDefaultsArchiveBackend(
            name: "S", namespace: "t", defaults: defaults, sizeLimit: 100)
        try backend.write(Data(repeating: 1, count: 60))
        let keptAt = try #require(try backend.setAside(suffix: ".corrupt-20261126T000000Z"))
        #expect(keptAt.contains("t.S.corrupt-20261126T000000Z"))
        #expect(defaults.data(forKey: "t.S") == nil)
        // The copy and the archive together may not pass the limit.
        let error = #expect(throws: PersistenceError.self) {
            try backend.write(Data(repeating: 2, count: 50))
        }
        #expect(error?.kind == .tooLarge(bytes: 110, limit: 100))
        #expect(defaults.data(forKey: "t.S") == nil)
        try backend.write(Data(repeating: 2, count: 40))
        #expect(defaults.data(forKey: "t.S")?.count == 40)
    }

    @Test func copiesSetAsideWithAnySuffixAndOfAnyKindCountButOtherArchivesDoNot() throws {
        let backend = UserDefaultsArchiveBackend(
            name: "S", namespace: "t", defaults: defaults, sizeLimit: 100)
        // Another archive whose key starts with this one's is not a copy of it.
        defaults.set(Data(repeating: 9, count: 90), forKey: "t.S.other")
        try backend.write(Data(repeating: 1, count: 40))
        _ = try backend.setAside(suffix: ".backup")
        defaults.set(String(repeating: "x", count: 40), forKey: "t.S")
        _ = try backend.setAside(suffix: "-old")
        let error = #expect(throws: PersistenceError.self) {
            try backend.write(Data(repeating: 2, count: 21))
        }
        #expect(error?.kind == .tooLarge(bytes: 101, limit: 100))
        // A copy the app removes no longer counts.
        defaults.removeObject(forKey: "t.S.backup")
        try backend.write(Data(repeating: 2, count: 60))
    }

    /// A save through a ``StateArchive`` that would pass the limit is refused before anything is
    /// written: the platform would drop it, or stop the app, instead.
    @Test func aStateTooLargeForTheLimitIsRefusedAndThePreviousStateStillLoads() throws {
        let archive = StateArchive<TestState>(
            backend: UserDefaultsArchiveBackend(
                name: "S", namespace: "t", defaults: defaults, sizeLimit: 1024))
        try archive.save(TestState(counter: 1))
        let saved = try #require(defaults.data(forKey: "t.S"))
        let large = TestState(
            counter: 2, log: Array(repeating: String(repeating: "x", count: 100), count: 20))
        let error = #expect(throws: PersistenceError.self) { try archive.save(large) }
        guard case .tooLarge(let bytes, let limit) = error?.kind else {
            Issue.record("expected tooLarge, got \(String(describing: error))")
            return
        }
        #expect(bytes > 2000)
        #expect(limit == 1024)
        #expect(error?.stage == .save)
        #expect(defaults.data(forKey: "t.S") == saved)
        #expect(try archive.load() == TestState(counter: 1))
    }

    /// What each platform's `UserDefaults` holds: tvOS warns at 512 KiB and stops the app at 1 MB,
    /// watchOS 26 stops it above 1 MiB, and the other Apple platforms drop 4 MiB or more.
    @Test func eachPlatformsDefaultLimitLeavesRoomBelowWhatItsDefaultsHold() {
        let expected: [Platform: Int?] = [
            .tvOS: 512 * 1024, .watchOS: 512 * 1024,
            .iOS: 3 * 1024 * 1024, .macCatalyst: 3 * 1024 * 1024, .macOS: 3 * 1024 * 1024,
            .visionOS: 3 * 1024 * 1024,
            .other: nil,
        ]
        let hardLimit: [Platform: Int] = [
            .tvOS: 1_000_000, .watchOS: 1024 * 1024,
            .iOS: 4 * 1024 * 1024, .macCatalyst: 4 * 1024 * 1024, .macOS: 4 * 1024 * 1024,
            .visionOS: 4 * 1024 * 1024,
        ]
        #expect(Set(expected.keys) == Set(Platform.allCases))
        for platform in Platform.allCases {
            let limit = UserDefaultsArchiveBackend.defaultSizeLimit(for: platform)
            #expect(limit == expected[platform] ?? nil, "\(platform)")
            if let hard = hardLimit[platform] {
                #expect((limit ?? .max) < hard, "\(platform)")
            }
        }
    }

    @Test func theDefaultLimitIsThisPlatformsFigure() {
        let limit = UserDefaultsArchiveBackend.defaultSizeLimit(for: .current)
        #expect(UserDefaultsArchiveBackend.platformSizeLimit == limit)
        #expect(UserDefaultsArchiveBackend(name: "S", namespace: "t", defaults: defaults).sizeLimit == limit)
        #if os(Linux)
        #expect(Platform.current == .other)
        #expect(limit == nil)
        #endif
    }
}

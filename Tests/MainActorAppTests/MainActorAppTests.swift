import Foundation
import ReduxSwift
import ReduxSwiftTesting
import Testing

// These suites and tests are main-actor-isolated by default, like an app's. A test never blocks
// the main actor while a delivery it waits for needs it: main-queue observers are waited for with
// `eventually`, which awaits between checks.

/// Waits until `condition` holds, for at most `timeout` seconds, checking it after each turn of
/// the main queue: awaiting between checks lets the main-queue deliveries being waited for run.
///
/// - Returns: Whether the condition held.
func eventually(timeout: TimeInterval = 20, _ condition: () -> Bool) async -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while !condition() {
        guard Date() < deadline else { return false }
        await Task.yield()
    }
    return true
}

@Suite struct ReadmeExampleTests {
    @Test func theReadmesFirstExampleIsTheCodeThisTargetCompiles() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let compiled = try String(
            contentsOf: root.appendingPathComponent("Tests/MainActorAppTests/ReadmeExample.swift"),
            encoding: .utf8)
        let start = try #require(readme.range(of: "```swift\nimport ReduxSwift\n"))
        let end = try #require(readme.range(of: "\n```", range: start.upperBound..<readme.endIndex))
        let example = readme[start.upperBound..<end.lowerBound]
        // Its two closing statements are top-level code, which only a `main.swift` may hold; they
        // run in the next test.
        let closing = try #require(example.range(of: "\nAppStore.shared.dispatch("))
        let declarations = "import ReduxSwift\n" + example[..<closing.lowerBound]
        #expect(
            compiled.contains(declarations), "ReadmeExample.swift differs from the README's first example")
    }

    @Test func aFeaturesReducersJoinTheAppsStoreAtItsMember() {
        let store = TestStore(reducers: TodoReducers.reducers(at: \.todos), state: ShellState())
        store.send(TodoAction.add("Milk")) { $0.todos.titles = ["Milk"] }
        store.send(TodoAction.clear) { $0.todos.titles = [] }
    }

    @Test func theReadmesClosingStatementsRunAsWritten() {
        let service = CounterService()
        service.start()
        AppStore.shared.dispatch(CounterAction.increment)  // returns at once, from any thread
        print(AppStore.shared.currentState().counter)  // 1: reads see every earlier dispatch
        #expect(AppStore.shared.currentState().counter == 1)
    }
}

@Suite struct MainActorObserverTests {
    @Test func aViewModelRendersAndKeepsTheSelectedValueOnTheMainActor() async {
        let store = makeAppStore()
        let model = CounterViewModel(store: store)
        model.start()
        store.dispatch(CounterAction.add(3))
        #expect(await eventually { model.count == 3 && model.text == "3" })
        store.dispatch(Action("counter.reset"))
        #expect(await eventually { model.count == 0 && model.text == "0" })
        model.stop()
    }

    @Test func aSelectorsFirstValueArrivesOnTheMainActorAfterObserveReturns() async {
        let store = makeAppStore()
        store.dispatch(CounterAction.add(7))
        let model = CounterViewModel(store: store)
        model.start()
        #expect(model.count == 0, "the first value is delivered on the main queue, after start()")
        #expect(await eventually { model.count == 7 })
        model.stop()
    }

    @Test func failuresReachTheViewModelOnTheMainActor() async {
        let store = makeAppStore()
        let model = CounterViewModel(store: store)
        model.start()
        store.dispatch(CounterAction.add(-1))
        #expect(await eventually { model.failures.count == 1 })
        #expect(model.failures.first?.contains("NegativeAmount") == true)
        #expect(store.currentState().counter == 0)
        model.stop()
    }

    @Test func ownerBoundModelsFollowTheStoreAndAreNotKeptAlive() async {
        let store = makeAppStore()
        var model: BadgeModel? = BadgeModel(store: store)
        weak var freed: BadgeModel?
        freed = model
        store.dispatch(CounterAction.add(2))
        #expect(await eventually { model?.count == 2 && (model?.changes ?? 0) >= 1 })
        model = nil
        #expect(freed == nil, "the store does not keep an owner alive")
        store.dispatch(CounterAction.increment)
        #expect(store.currentState().counter == 3)
    }

    @Test func aSelectorWithItsOwnTestForUnchangedHearsOnlyChanges() async {
        let store = makeAppStore()
        let model = ParityModel()
        model.start(observing: store)
        #expect(await eventually { model.parities == ["even"] })
        store.dispatch(CounterAction.add(2))
        store.dispatch(CounterAction.increment)
        #expect(await eventually { model.parities.last == "odd" })
        #expect(model.parities == ["even", "odd"])
    }

    @Test func aServiceHearsEveryActionThroughTheNotificationCenter() async {
        let store = makeAppStore()
        let service = ChangeLogService()
        service.start(observing: store)
        store.dispatch(CounterAction.increment)
        store.dispatch(Action("counter.reset"))
        store.dispatch(CounterAction.add(2))
        #expect(await eventually { service.entries.count == 3 })
        #expect(service.entries == ["CounterAction.increment", "counter.reset", "CounterAction.add"])
        service.stop()
    }

    @Test func valuesArriveInAMainActorModelLoop() async {
        let store = makeAppStore()
        let model = CounterStreamModel()
        model.start(observing: store)
        store.dispatch(CounterAction.increment)
        #expect(await eventually { model.counts.last == 1 })
        store.dispatch(CounterAction.add(2))
        #expect(await eventually { model.counts.last == 3 })
        #expect(model.counts == model.counts.sorted(), "values never go back")
        #expect(Set(model.counts).count == model.counts.count, "no value repeats")
        model.stop()
    }

    @Test func anotherQueueStillTakesAPlainSendableBlock() async {
        let store = makeAppStore()
        let log = BackgroundCounterLog()
        log.start(observing: store)
        store.dispatch(CounterAction.add(4))
        #expect(await eventually { log.seen.all.last == 4 })
    }

    @Test func wholeStatesArriveInAMainActorLoop() async {
        let store = makeAppStore()
        var seen: [Int] = []
        for await state in store.values(of: { $0 }) {
            seen.append(state.counter)
            if state.counter == 0 {
                store.dispatch(CounterAction.add(2))
            } else {
                break
            }
        }
        #expect(seen == [0, 2])
    }

    #if canImport(Observation)
    @Test func observedValuesFollowTheStore() async {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
        let store = makeAppStore()
        store.dispatch(CounterAction.add(1))
        let counter = ObservedValue(store) { $0.counter }
        let isEven = ObservedValue(store) { $0.counter.isMultiple(of: 2) }
        #expect(counter.value == 1, "the first value reflects the actions dispatched before")
        #expect(!isEven.value)
        store.dispatch(CounterAction.add(5))
        #expect(await eventually { counter.value == 6 && isEven.value })
    }
    #endif
}

@Suite struct MainActorPersistenceTests {
    @Test func aStateSavedByTheServiceIsRestoredByTheNextLaunch() throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("MainActorAppTests-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("AppState.json")

        let firstLaunch = PersistedAppStore(archive: StateArchive(file: url))
        let persistence = PersistenceService(store: firstLaunch, archive: StateArchive(file: url))
        firstLaunch.dispatch(CounterAction.add(5))
        try persistence.flush()
        try persistence.stop()

        let secondLaunch = PersistedAppStore(archive: StateArchive(file: url))
        #expect(secondLaunch.currentState().counter == 5)
    }
}

@Suite struct MainActorAppUpdateTests {
    @Test func anArchiveOfTheEarlierVersionLoadsWithTheDefaultsOfTheAddedProperties() throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("MainActorAppTests-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("Shop.json")
        try Data(
            #"{"schemaVersion":1,"state":{"preferences":{"fontSize":18},"lines":[{"sku":"A","quantity":2}]}}"#
                .utf8
        ).write(to: url)

        let archive = StateArchive<ShopState>(file: directory.appendingPathComponent("Live.json"))
        let state = try archive.loadFixture(at: url)
        #expect(state.preferences == Preferences(fontSize: 18, theme: "light"))
        #expect(state.lines == [CartLine(sku: "A", quantity: 2, giftWrap: false)])
    }
}

// Every `TestStore` API, called as the README shows, from main-actor tests with no annotation.
@Suite struct MainActorTestStoreTests {
    @Test func aTestStoreChecksEachChangeOfAFeature() {
        let store = TestStore(reducers: TodoReducers.reducers, state: TodoListState())
        store.send(TodoAction.add("Milk")) { $0.titles = ["Milk"] }
        store.send(TodoAction.add("Eggs")) { $0.titles.append("Eggs") }
        store.send(TodoAction.clear) { $0.titles = [] }
        store.finish()
    }

    @Test func anAsyncActionsResultIsReceived() async {
        let store = TestStore(
            reducers: TitlesReducers.reducers, state: TodoListState(),
            middleware: [.asyncActions(dependencies: TitlesAPI.fake)])
        store.timeout = 60
        store.send(TodoAction.add("Milk")) { $0.titles = ["Milk"] }
        let load = loadTitles()
        store.send(load)
        await store.receive(TitlesAction.loaded(["Bread"])) { $0.titles = ["Bread"] }
        await load.finished()
        store.finish()
    }

    @Test func aReceivedActionIsMatchedByAPredicate() async {
        let store = TestStore(
            reducers: TitlesReducers.reducers, state: TodoListState(),
            middleware: [.asyncActions(dependencies: TitlesAPI.fake)])
        store.send(loadTitles())
        await store.receive(
            "the loaded titles", where: { $0 is TitlesAction }, assert: { $0.titles = ["Bread"] })
        store.finish()
    }

    @Test func withExhaustivityOffOnlyTheDescribedChangeIsChecked() async {
        let store = TestStore(
            reducers: TitlesReducers.reducers, state: TodoListState(),
            middleware: [.asyncActions(dependencies: TitlesAPI.fake)], exhaustivity: .off)
        store.send(TodoAction.add("Milk"))
        store.send(loadTitles())
        await store.receive(TitlesAction.loaded(["Bread"]), timeout: 60) { $0.titles = ["Bread"] }
        store.exhaustivity = .on
        store.skipReceivedActions()
        store.finish()
    }

    @Test func anActionThatMustFailIsSentExpectingFailure() {
        let store = TestStore(reducers: TitlesReducers.reducers, state: TodoListState())
        let error = store.sendExpectingFailure(TitlesAction.reject)
        #expect(error is NegativeAmount)
        #expect(store.state == TodoListState())
        #expect(store.store.currentState() == TodoListState())
    }
}

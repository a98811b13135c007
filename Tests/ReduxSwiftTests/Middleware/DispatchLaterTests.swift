import Foundation
import Testing

@testable import ReduxSwift

/// The edits of a text that an undo middleware records: `set` is an edit it can undo, `restore`
/// puts back what an undo takes back (and is not recorded itself), `undo` takes back the newest.
enum TextEdit: ActionProtocol, Equatable {
    case set(String)
    case restore(String)
    case undo
}

/// A text, and how many undos were reduced, for a test to wait on.
struct EditedText: StateProtocol, Equatable {
    var text = "original"
    var restores = 0
}

let editedTextReducer: Reducer<EditedText> = { state, action in
    switch action as? TextEdit {
    case .set(let text)?: state.text = text
    case .restore(let text)?:
        state.text = text
        state.restores += 1
    case .undo?, nil: break
    }
}

/// The blocks an undo middleware keeps, newest last.
final class UndoBlocks: @unchecked Sendable {
    // `@unchecked Sendable`: `blocks` is only touched while `lock` is held.
    private let lock = NSLock()
    private var blocks: [@Sendable () -> Void] = []

    func push(_ block: @escaping @Sendable () -> Void) {
        lock.withLock { blocks.append(block) }
    }

    func pop() -> (@Sendable () -> Void)? {
        lock.withLock { blocks.popLast() }
    }

    var count: Int { lock.withLock { blocks.count } }
}

/// ReSwift-Todo's undo middleware: on an edit it reads the value the edit replaces and keeps a
/// block that dispatches the inverse edit through the kept dispatch function; on `.undo` it calls
/// the newest block instead of passing the action on.
func undoMiddleware(keeping blocks: UndoBlocks) -> Middleware<EditedText> {
    Middleware("undo") { action, context in
        switch action as? TextEdit {
        case .set?:
            let replaced = context.currentState().text
            let dispatch = context.dispatchLater()
            blocks.push { dispatch(TextEdit.restore(replaced)) }
            context.next(action)
        case .undo?:
            blocks.pop()?()
        default:
            context.next(action)
        }
    }
}

/// A store that opens a gate when it is freed.
final class FreedStore: Store<TestState>, @unchecked Sendable {
    // `@unchecked Sendable`: adds only an immutable `Sendable` property to `Store`.
    let freed: Gate

    init(freed: Gate, middleware: [Middleware<TestState>]) {
        self.freed = freed
        super.init(
            reducers: [testReducer], state: TestState(), middleware: middleware,
            notificationCenter: StoreNotificationCenter())
    }

    deinit { freed.open() }
}

/// A middleware that records the entry of every `TestAction.append` it sees, and what else it
/// sees by identifier, then passes it on.
func entryRecordingMiddleware(_ name: String, into seen: Recorder<String>) -> Middleware<TestState> {
    Middleware(name) { action, context in
        if case .append(let entry)? = action as? TestAction {
            seen.append("\(name):\(entry)")
        } else {
            seen.append("\(name):\(action.identifier)")
        }
        context.next(action)
    }
}

/// A middleware that keeps the dispatch function it is given for `.append("keep")`.
func keepingMiddleware(
    into kept: LockedBox<(@Sendable (any ActionProtocol) -> Void)?>
) -> Middleware<TestState> {
    Middleware("keep") { action, context in
        if case .append("keep")? = action as? TestAction { kept.value = context.dispatchLater() }
        context.next(action)
    }
}

@Suite(.offThePool) struct DispatchLaterTests {
    @Test func anUndoRightAfterAnEditAlwaysRestoresTheOriginal() {
        let blocks = UndoBlocks()
        let store = Store(
            reducers: [editedTextReducer], state: EditedText(), middleware: [undoMiddleware(keeping: blocks)],
            notificationCenter: StoreNotificationCenter())
        let restores = Recorder<Int>()
        let token = store.observe(\.restores) { restores.append($0) }
        for round in 1...1_000 {
            // Cmd-Z right after an edit: both queued from this thread before either is reduced.
            store.dispatch(TextEdit.set("edit \(round)"))
            store.dispatch(TextEdit.undo)
            guard restores.wait(timeout: 10, until: { $0.last == round }) else {
                Issue.record("round \(round): the undo was not reduced")
                break
            }
            let state = store.currentState()
            guard state.text == "original" else {
                Issue.record("round \(round): the text is \(state.text)")
                break
            }
        }
        #expect(blocks.count == 0)
        withExtendedLifetime(token) {}
    }

    @Test func editsAndUndosQueuedTogetherRestoreTheOriginalEveryTime() throws {
        let blocks = UndoBlocks()
        let store = Store(
            reducers: [editedTextReducer], state: EditedText(), middleware: [undoMiddleware(keeping: blocks)],
            notificationCenter: StoreNotificationCenter())
        for round in 1...300 {
            // Queued before any is reduced: each undo's restore is dispatched while the edits after
            // it wait, and must land before the next edit records what it replaces.
            let lock = store.lock()
            store.dispatch(TextEdit.set("a \(round)"))
            store.dispatch(TextEdit.undo)
            store.dispatch(TextEdit.set("b \(round)"))
            store.dispatch(TextEdit.undo)
            store.dispatch(TextEdit.set("c \(round)"))
            store.dispatch(TextEdit.set("d \(round)"))
            store.dispatch(TextEdit.undo)
            store.dispatch(TextEdit.undo)
            try lock.release()
            let text = store.currentState().text
            guard text == "original", blocks.count == 0 else {
                Issue.record("round \(round): the text is \(text), \(blocks.count) undo blocks are left")
                return
            }
        }
    }

    @Test func theKeptFunctionCalledFromAnotherThreadGoesThroughTheWholeChainInQueueOrder() throws {
        let (store, seen, dispatch) = try storeWithAKeptDispatch()
        #expect(store.currentState().log == ["keep"])
        // The middleware returned long ago; "a" and "b" are queued behind a lock when the function
        // is called, on another thread.
        let lock = store.lock()
        store.dispatch(TestAction.append("a"))
        store.dispatch(TestAction.append("b"))
        onThreads(1) { _ in dispatch(TestAction.append("kept")) }
        store.dispatch(TestAction.append("c"))
        try lock.release()
        #expect(store.currentState().log == ["keep", "a", "b", "kept", "c"])
        #expect(seen.values == ["first:keep", "first:a", "first:b", "first:kept", "first:c"])
    }

    @Test func aBatchThroughTheKeptFunctionIsOneUnitAsThroughTheStore() throws {
        let (store, seen, dispatch) = try storeWithAKeptDispatch()
        let announced = Recorder<[String]>()
        let token = store.observeChanges { note in announced.append(note.actions.map(\.identifier)) }
        onThreads(1) { _ in
            dispatch(ActionBatch([TestAction.append("lost"), TestAction.fail]))
            dispatch(ActionBatch([TestAction.increment, TestAction.append("x")]))
        }
        #expect(store.currentState() == TestState(counter: 1, log: ["keep", "x"]))
        #expect(seen.values == ["first:keep", "first:ActionBatch", "first:ActionBatch"])
        #expect(announced.wait(forCount: 1))
        #expect(announced.values == [["ActionBatch"]])
        withExtendedLifetime(token) {}
    }

    /// A store whose first middleware records what it sees and whose second kept its dispatch
    /// function while handling `.append("keep")`, already reduced and announced, so that an
    /// observer registered next hears only what comes after; with what was seen, and the function.
    private func storeWithAKeptDispatch() throws -> (
        Store<TestState>, Recorder<String>, @Sendable (any ActionProtocol) -> Void
    ) {
        let seen = Recorder<String>()
        let kept = LockedBox<(@Sendable (any ActionProtocol) -> Void)?>(nil)
        let store = Store(
            reducers: [testReducer], state: TestState(),
            middleware: [entryRecordingMiddleware("first", into: seen), keepingMiddleware(into: kept)],
            notificationCenter: StoreNotificationCenter())
        let announced = Gate()
        let barrier = store.observeChanges { _ in announced.open() }
        store.dispatch(TestAction.append("keep"))
        // A post reaches the observers registered when it is made, and no others.
        try #require(announced.wait(), "the store did not announce its setup")
        barrier.cancel()
        let dispatch = try #require(kept.value, "the middleware kept no function")
        return (store, seen, dispatch)
    }

    @Test func theKeptFunctionCalledFromAReducerIsHandledRightAfterTheActionCommits() {
        let kept = LockedBox<(@Sendable (any ActionProtocol) -> Void)?>(nil)
        let store = Store(
            reducers: [
                testReducer,
                { _, action in
                    guard case .append(let entry)? = action as? TestAction, entry.hasPrefix("echo") else {
                        return
                    }
                    kept.value?(TestAction.append("from \(entry)"))
                },
            ], state: TestState(), middleware: [keepingMiddleware(into: kept)],
            notificationCenter: StoreNotificationCenter())
        store.dispatch(TestAction.append("keep"))
        _ = store.currentState()
        let lock = store.lock()
        store.dispatch(TestAction.append("echo 1"))
        store.dispatch(TestAction.append("after"))
        store.dispatch(batch: [TestAction.append("echo 2"), TestAction.fail])
        try? lock.release()
        let settled = Recorder<Int>()
        let token = store.observeChanges { _ in settled.append(0) }
        #expect(settled.wait { _ in store.currentState().log.count == 4 })
        #expect(store.currentState().log == ["keep", "echo 1", "from echo 1", "after"])
        withExtendedLifetime(token) {}
    }

    @Test func theKeptFunctionDoesNotKeepTheStoreAliveAndDoesNothingOnceItIsGone() {
        let freed = Gate()
        let kept = LockedBox<(@Sendable (any ActionProtocol) -> Void)?>(nil)
        let reduced = Recorder<String>()
        do {
            let store = FreedStore(freed: freed, middleware: [keepingMiddleware(into: kept)])
            store.register([{ _, action in reduced.append(action.identifier) }])
            store.dispatch(TestAction.append("keep"))
            #expect(store.currentState().log == ["keep"])
        }
        #expect(freed.wait(), "the kept function kept the store alive")
        guard let dispatch = kept.value else {
            Issue.record("the middleware kept no function")
            return
        }
        onThreads(4) { _ in
            for _ in 0..<100 { dispatch(TestAction.increment) }
        }
        dispatch(TestAction.increment)
        #expect(reduced.values == ["TestAction.append"])
    }
}

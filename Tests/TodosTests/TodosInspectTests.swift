import Foundation
import Testing

@Suite struct TodosInspectTests {
    @Test func inspectWritesThePageOfEveryLaunchsActionsWithTitlesAsText() async throws {
        let todos = TodosProcess()
        _ = await todos.run(["add", "Buy milk"])
        _ = await todos.run(["add", "<img src=x onerror=alert(1)>"])
        _ = await todos.run(["toggle", "1"])
        let refused = await todos.run(["toggle", "9"])
        #expect(refused.status == 1)
        #expect(
            refused.errorLines == ["todos: no todo has ID 9"], "the store's refusal is not reported twice")
        let page = todos.dataDirectory.appendingPathComponent("page.html")
        let outcome = await todos.run(["inspect", page.path])
        #expect(outcome.status == 0)
        #expect(outcome.outputLines == ["wrote \(page.path): 4 recorded actions; open it in a browser"])
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.contains(#"\u003cimg src=x onerror=alert(1)\u003e"#))
        #expect(!html.contains("<img"))
        #expect(html.contains(#""id":"TodoAction.toggle""#))
    }

    @Test func aRefusedActionIsRecordedAsFailedWithItsErrorAndLoggedBeforeTheError() async throws {
        let todos = TodosProcess()
        _ = await todos.run(["add", "Buy milk"])
        let outcome = await todos.run(["--verbose", "remove", "7"], shell: #"exec "$@" 2>&1"#)
        #expect(outcome.status == 1)
        #expect(
            outcome.outputLines == [
                "todos: rejected TodoAction.remove: no todo has ID 7", "todos: no todo has ID 7",
            ])
        let lines = try String(
            contentsOf: todos.dataDirectory.appendingPathComponent("actions.jsonl"), encoding: .utf8
        ).split(separator: "\n")
        try #require(lines.count == 2)
        let failed = try #require(
            JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        #expect(failed["failed"] as? Bool == true)
        #expect(failed["error"] as? String == "no todo has ID 7")
        #expect(failed["type"] as? String == "TodoAction")
        #expect(await todos.run(["list"]).outputLines == ["1 [ ] Buy milk"])
    }

    @Test func aRecordingPastItsSizeLimitStartsAnewFromTheNextLaunchsState() async throws {
        let todos = TodosProcess()
        _ = await todos.run(["add", "Buy milk"])
        let lines = todos.dataDirectory.appendingPathComponent("actions.jsonl")
        // A recording past 1 MiB, as thousands of launches leave it.
        let line = try String(contentsOf: lines, encoding: .utf8)
        try String(repeating: line, count: (1 << 20) / line.utf8.count + 1).write(
            to: lines, atomically: true, encoding: .utf8)
        _ = await todos.run(["add", "Call Ada"])
        let kept = try String(contentsOf: lines, encoding: .utf8)
        #expect(kept.split(separator: "\n").count == 1, "only this launch's action")
        let page = todos.dataDirectory.appendingPathComponent("page.html")
        let outcome = await todos.run(["inspect", page.path])
        #expect(outcome.outputLines == ["wrote \(page.path): 1 recorded action; open it in a browser"])
    }

    @Test func aDamagedStartStateIsReportedAndTheNextChangeStartsTheRecordingAnew() async throws {
        let todos = TodosProcess()
        _ = await todos.run(["add", "Buy milk"])
        let start = todos.dataDirectory.appendingPathComponent("actions-start.json")
        try Data("garbage".utf8).write(to: start)
        let refused = await todos.run(["inspect"])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("does not read"), "\(refused.errors)")
        #expect(refused.errors.contains("starts it anew"), "\(refused.errors)")
        _ = await todos.run(["add", "Call Ada"])
        let page = todos.dataDirectory.appendingPathComponent("page.html")
        let outcome = await todos.run(["inspect", page.path])
        #expect(outcome.outputLines == ["wrote \(page.path): 1 recorded action; open it in a browser"])
    }

    @Test func inspectBeforeAnyChangeSaysThereIsNothingToInspect() async {
        let todos = TodosProcess()
        let outcome = await todos.run(["inspect"])
        #expect(outcome.status == 1)
        #expect(outcome.errors.contains("no recording to inspect"))
    }
}

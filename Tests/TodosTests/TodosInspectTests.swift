import Foundation
import Testing

@Suite struct TodosInspectTests {
    @Test func inspectWritesThePageOfEveryLaunchsActionsWithTitlesAsText() async throws {
        let todos = TodosProcess()
        _ = await todos.run(["add", "Buy milk"])
        _ = await todos.run(["add", "<img src=x onerror=alert(1)>"])
        _ = await todos.run(["toggle", "1"])
        _ = await todos.run(["toggle", "9"])  // refused: not recorded
        let page = todos.dataDirectory.appendingPathComponent("page.html")
        let outcome = await todos.run(["inspect", page.path])
        #expect(outcome.status == 0)
        #expect(outcome.outputLines == ["wrote \(page.path): 3 recorded actions; open it in a browser"])
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.contains(#"\u003cimg src=x onerror=alert(1)\u003e"#))
        #expect(!html.contains("<img"))
        #expect(html.contains(#""id":"TodoAction.toggle""#))
    }

    @Test func inspectBeforeAnyChangeSaysThereIsNothingToInspect() async {
        let todos = TodosProcess()
        let outcome = await todos.run(["inspect"])
        #expect(outcome.status == 1)
        #expect(outcome.errors.contains("no recording to inspect"))
    }
}

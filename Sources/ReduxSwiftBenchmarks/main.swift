import Foundation

/// Prints a line at once, also when the output goes to a file or a CI log (where `print` buffers).
func say(_ line: String = "") {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let usage = """
    Usage: swift run -c release ReduxSwiftBenchmarks [--quick] [--filter NAME] [--json PATH]

      --quick        smaller workloads: the whole run takes well under a minute
      --filter NAME  run only scenarios whose number or name contains NAME
      --json PATH    also write the results as a JSON array to PATH
    """

var quick = false
var filter: String?
var jsonPath: String?
var child: (name: String, count: Int)?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--quick": quick = true
    case "--filter": filter = arguments.next()
    case "--json": jsonPath = arguments.next()
    // Internal: runs one measurement alone, for a scenario that bounds this process's peak memory.
    case "--child": child = (arguments.next() ?? "", arguments.next().flatMap { Int($0) } ?? 0)
    case "--help", "-h":
        say(usage)
        exit(0)
    default:
        FileHandle.standardError.write(Data("unknown argument \(argument)\n\(usage)\n".utf8))
        exit(2)
    }
}

if let child { runChild(child.name, count: child.count) }

let scenarios: [Scenario] = [
    throughputScenario(number: "1", observers: 1),
    throughputScenario(number: "2", observers: 100),
    togglesScenario,
    burstScenario,
    readScenarios,
    concurrentReadersScenario,
    fanOutScenario,
    churnScenario,
    threadsScenario,
    memoryScenario,
    selectorScenario,
    middlewareScenario,
    historyScenario,
    tightLoopScenario,
    burstThenIdleScenario,
    identifierScenario,
    unchangedStateScenario,
    appUpdateScenario,
    updateLaunchesScenario,
    payForWhatYouReadScenario,
    restoreMemoryScenario,
    dispatchCostScenario,
    inspectorScenario,
]

let workload = Workload(quick: quick)
var results: [Result] = []
var failures: [String] = []
#if DEBUG
say("warning: a debug build; run with `-c release` for figures worth reading")
#endif
say("ReduxSwift benchmarks\(quick ? " (quick)" : ""): median of \(workload.repetitions) runs after a warm-up")
if quick {
    say("The workloads are smaller than the targets were set for, so ✘ on timing is expected here;")
    say("the run fails only when a scenario crashes or reports a wrong result.")
}
say()
for scenario in scenarios {
    if let filter, !scenario.title.localizedCaseInsensitiveContains(filter) { continue }
    do {
        let started = now()
        let produced = try scenario.run(workload)
        results += produced
        for result in produced { say(Table.row(result)) }
        say("   (\(String(format: "%.1f", Double(now() - started) / 1e9)) s)")
    } catch {
        failures.append("\(scenario.title): \(error)")
        say("✘ \(scenario.title): \(error)")
    }
}

say("\n" + Table.render(results))

if let jsonPath {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    do {
        try encoder.encode(results).write(to: URL(fileURLWithPath: jsonPath))
    } catch {
        failures.append("writing \(jsonPath): \(error)")
    }
}

let missed = results.filter { !$0.meets }.count
say("\(results.count - missed) of \(results.count) figures meet their targets.")
if !failures.isEmpty {
    say("\(failures.count) scenario(s) failed:\n" + failures.joined(separator: "\n"))
    exit(1)
}

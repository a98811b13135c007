// Kills a saving process at random moments and checks that its archive always loads.
//
//     swift run -c release ReduxSwiftCrashTest [--kills N] [--beside]
//
// The driver starts this same executable with `--child FILE`. The child restores its state from
// FILE, then dispatches and saves in a loop, printing `attempt N` before it dispatches the N-th
// change and `durable N` when a flush that covers it has returned; a `PersistenceService` with
// millisecond delays saves in the background as well. The driver kills the child with SIGKILL
// after a random delay, then loads FILE itself: it must load, and hold exactly the state of some
// N between the last `durable` and the last `attempt`. The next child starts from that file.
//
// SIGKILL ends the process, not the machine: data the kernel has accepted survives it. What this
// proves is that no moment of a save leaves a torn, partial or unloadable file.
//
// With `--beside`, FILE holds an archive of a newer schema version, which the child cannot read:
// it restores with `restore(default:onProblem:)`, so its saves go beside FILE, to FILE.unmerged,
// and the next child continues from there. The driver checks that FILE never changes and that
// FILE.unmerged always loads, as above.

import Foundation
import ReduxSwift

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A state whose every field follows from `counter`, so any torn or mixed write shows.
struct CrashState: StateProtocol, Equatable {
    var counter: Int
    var items: [String]

    init(counter: Int) {
        self.counter = counter
        items = (0..<2_000).map { "item \(counter)-\($0)" }
    }
}

struct Step: ActionProtocol {}

let step: Reducer<CrashState> = { state, _ in state = CrashState(counter: state.counter + 1) }

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ReduxSwiftCrashTest: \(message)\n".utf8))
    exit(1)
}

// MARK: Child

func runChild(file: URL, beside: Bool) -> Never {
    let archive = StateArchive<CrashState>(file: file)
    let restored: CrashState
    if beside {
        restored = archive.restore(default: CrashState(counter: 0)) { problem in
            guard case .unreadable(_, _?, _) = problem else { fail("child cannot save beside: \(problem)") }
        }
    } else {
        do {
            restored = try archive.load() ?? CrashState(counter: 0)
        } catch {
            fail("child cannot load: \(error)")
        }
    }
    guard restored == CrashState(counter: restored.counter) else {
        fail("child loaded an inconsistent state")
    }
    let store = Store(reducers: [step], state: restored)
    let service = PersistenceService(
        store: store, archive: archive, policy: SavePolicy(idleDelay: 0.001, maximumDelay: 0.003))
    say("ready \(restored.counter)")
    var counter = restored.counter
    while true {
        counter += 1
        say("attempt \(counter)")
        store.dispatch(Step())
        if counter % 3 == 0 {
            do {
                try service.flush()
            } catch {
                fail("child cannot save: \(error)")
            }
            say("durable \(counter)")
        }
    }
}

// MARK: Driver

struct Figures {
    var kills = 0
    var loads = 0
    var failures = 0
    var killsDuringAWrite = 0
    var durableReports = 0
    var highestCounter = 0
}

/// Reads a child's standard output line by line.
final class LineReader {
    private let handle: FileHandle
    private var buffer = Data()
    private(set) var lines: [String] = []

    init(_ handle: FileHandle) {
        self.handle = handle
    }

    /// Reads until a line starting with `prefix` arrives; `nil` at the end of the output.
    func read(until prefix: String) -> String? {
        while true {
            if let line = lines.last(where: { $0.hasPrefix(prefix) }) { return line }
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            append(chunk)
        }
    }

    func readToEnd() {
        append(handle.readDataToEndOfFile())
    }

    private func append(_ chunk: Data) {
        buffer.append(chunk)
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
            buffer.removeSubrange(buffer.startIndex...newline)
        }
    }

    /// The largest N of the lines `<word> N`.
    func last(_ word: String) -> Int? {
        lines.compactMap { line -> Int? in
            guard line.hasPrefix(word + " ") else { return nil }
            return Int(line.dropFirst(word.count + 1))
        }.max()
    }
}

/// An archive of a schema version no child reads.
let newerArchive = Data(#"{"schemaVersion":99,"state":{}}"#.utf8)

func runDriver(kills: Int, beside: Bool) {
    let directory = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        .appendingPathComponent("ReduxSwiftCrashTest-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("state.json")
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
    var figures = Figures()
    var expectedStart = 0
    let started = Date()
    // Where the children's saves go.
    var saved = file
    if beside {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try newerArchive.write(to: file)
        } catch {
            fail("cannot write the newer archive: \(error)")
        }
        saved = URL(fileURLWithPath: file.path + ".unmerged")
    }

    for round in 1...kills {
        let child = Process()
        child.executableURL = executable
        child.arguments = ["--child", file.path] + (beside ? ["--beside"] : [])
        let output = Pipe()
        child.standardOutput = output
        do {
            try child.run()
        } catch {
            fail("cannot start \(executable.path): \(error)")
        }
        let reader = LineReader(output.fileHandleForReading)
        guard let ready = reader.read(until: "ready "), let loaded = Int(ready.dropFirst("ready ".count))
        else {
            child.waitUntilExitThenFail(round)
        }
        if loaded != expectedStart {
            figures.failures += 1
            say("round \(round): the child restored \(loaded), the driver last loaded \(expectedStart)")
        }

        // Let it run for a random time, at least until its first attempt, then kill it.
        _ = reader.read(until: "attempt ")
        usleep(UInt32.random(in: 0...25_000))
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        reader.readToEnd()
        guard child.terminationReason == .uncaughtSignal, child.terminationStatus == SIGKILL else {
            fail("round \(round): the child ended on its own with status \(child.terminationStatus)")
        }
        figures.kills += 1

        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        if names.contains(where: { $0.hasSuffix(".tmp") }) { figures.killsDuringAWrite += 1 }

        let durable = reader.last("durable") ?? loaded
        let attempted = reader.last("attempt") ?? loaded
        if reader.last("durable") != nil { figures.durableReports += 1 }
        if beside, (try? Data(contentsOf: file)) != newerArchive {
            figures.failures += 1
            say("round \(round): the archive the child cannot read was changed")
            break
        }
        do {
            guard let state = try StateArchive<CrashState>(file: saved).load() else {
                if durable > 0 { throw CocoaError(.fileNoSuchFile) }
                expectedStart = 0
                figures.loads += 1
                continue
            }
            figures.loads += 1
            if state != CrashState(counter: state.counter) {
                figures.failures += 1
                say("round \(round): the file holds an inconsistent state at counter \(state.counter)")
            } else if state.counter < durable || state.counter > attempted {
                figures.failures += 1
                say(
                    "round \(round): the file holds \(state.counter), outside durable \(durable)…attempted \(attempted)"
                )
            }
            expectedStart = state.counter
            figures.highestCounter = max(figures.highestCounter, state.counter)
        } catch {
            figures.failures += 1
            say("round \(round): the file does not load: \(error)")
            break  // The next child could not start from it either.
        }
    }

    let seconds = Date().timeIntervalSince(started)
    say(
        "kills \(figures.kills), loads \(figures.loads), failures \(figures.failures); "
            + "killed mid-write \(figures.killsDuringAWrite), rounds with a durable save \(figures.durableReports), "
            + "final counter \(figures.highestCounter), \(String(format: "%.1f", seconds)) s")
    exit(figures.failures == 0 && figures.loads == kills ? 0 : 1)
}

extension Process {
    func waitUntilExitThenFail(_ round: Int) -> Never {
        waitUntilExit()
        fail("round \(round): the child stopped before it was ready (status \(terminationStatus))")
    }
}

// MARK: Arguments

var arguments = Array(CommandLine.arguments.dropFirst())
let beside = arguments.contains("--beside")
arguments.removeAll { $0 == "--beside" }
if arguments.first == "--child", arguments.count == 2 {
    runChild(file: URL(fileURLWithPath: arguments[1]), beside: beside)
}
var kills = 60
if let index = arguments.firstIndex(of: "--kills"), index + 1 < arguments.count,
    let count = Int(arguments[index + 1]),
    count > 0
{
    kills = count
} else if !arguments.isEmpty {
    fail("usage: ReduxSwiftCrashTest [--kills N] [--beside]")
}
runDriver(kills: kills, beside: beside)

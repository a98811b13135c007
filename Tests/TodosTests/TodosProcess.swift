import Foundation

/// Runs the `todos` executable built next to the tests, with its own data directory.
final class TodosProcess: Sendable {
    struct Outcome: Sendable {
        var status: Int32
        var output: String
        var errors: String

        var outputLines: [String] { output.split(separator: "\n").map(String.init) }
        var errorLines: [String] { errors.split(separator: "\n").map(String.init) }
    }

    let dataDirectory: URL

    init() {
        dataDirectory = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("TodosTests-\(UUID().uuidString)", isDirectory: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// The folder SwiftPM builds products into: the one holding the test bundle.
    static let productsDirectory: URL = {
        if let bundle = Bundle.allBundles.first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }()

    static var executable: URL { productsDirectory.appendingPathComponent("todos") }

    var archiveURL: URL { dataDirectory.appendingPathComponent("todos.json") }

    /// Runs `todos --data-dir <dir> <arguments>`, feeding `input` to standard input.
    func run(
        _ arguments: [String], input: String? = nil, environment: [String: String] = [:],
        useDataDir: Bool = true
    )
        -> Outcome
    {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = (useDataDir ? ["--data-dir", dataDirectory.path] : []) + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        let errors = Pipe()
        let standardInput = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = standardInput
        do {
            try process.run()
        } catch {
            return Outcome(status: -1, output: "", errors: "cannot start \(Self.executable.path): \(error)")
        }
        // A stuck child must not hang the suite.
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        if let input { standardInput.fileHandleForWriting.write(Data(input.utf8)) }
        try? standardInput.fileHandleForWriting.close()
        let errorData = ErrorCollector(errors.fileHandleForReading)
        let outputData = readToEnd(output.fileHandleForReading)
        process.waitUntilExit()
        watchdog.cancel()
        return Outcome(
            status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
            errors: String(decoding: errorData.finish(), as: UTF8.self))
    }

    /// The archive's bytes, or `nil` when there is none.
    var archiveBytes: Data? {
        FileManager.default.contents(atPath: archiveURL.path)
    }
}

/// Reads a pipe to its end on another thread, so that neither pipe of a child can fill up and
/// block it while the other is read.
final class ErrorCollector: @unchecked Sendable {
    // `@unchecked Sendable`: `data` is written by the reading thread before `done.signal()` and read
    // only after `done.wait()` returns.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = readToEnd(handle)
            done.signal()
        }
    }

    func finish() -> Data {
        done.wait()
        return data
    }
}

/// Reads `handle` to its end, retrying a read that a signal interrupted: many children ending at
/// once interrupt reads with `SIGCHLD`, which `readDataToEndOfFile()` turns into a crash.
func readToEnd(_ handle: FileHandle) -> Data {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
        if count > 0 {
            data.append(contentsOf: buffer[..<count])
        } else if count == 0 || errno != EINTR {
            return data
        }
    }
}

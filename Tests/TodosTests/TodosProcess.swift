import Foundation
import Testing

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

    /// The `todos` executable of this build, found from where the test code was loaded.
    static let executable = BuiltProducts.locate(
        "todos", testBinary: BuiltProducts.testBinary, bundlePaths: Bundle.allBundles.map(\.bundlePath),
        argumentZero: CommandLine.arguments.first)

    /// How long a run may take before the child is killed, so that a stuck child fails its test
    /// instead of hanging the suite.
    static let timeout: TimeInterval = 60

    var archiveURL: URL { dataDirectory.appendingPathComponent("todos.json") }

    /// Runs `todos --data-dir <dir> <arguments>`, feeding `input` to standard input.
    ///
    /// With `shell`, the command line is run by `/bin/sh -c shell` as its `"$@"`, for what only a
    /// shell sets up: `exec "$@" 2>&1` reads both streams as one transcript, in the order written.
    ///
    /// Waits for the child on a thread of its own: the tests run on Swift's cooperative pool, which
    /// has as many threads as cores, and a test blocking one of them for a child's lifetime would
    /// starve the async work of tests running beside it.
    func run(
        _ arguments: [String], input: String? = nil, environment: [String: String] = [:],
        useDataDir: Bool = true, shell: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Outcome {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in
                continuation.resume(
                    returning: runBlocking(
                        arguments, input: input, environment: environment, useDataDir: useDataDir,
                        shell: shell, sourceLocation: sourceLocation))
            }
        }
    }

    /// ``run(_:input:environment:useDataDir:shell:sourceLocation:)`` on the calling thread, for
    /// callers on threads of their own.
    func runBlocking(
        _ arguments: [String], input: String? = nil, environment: [String: String] = [:],
        useDataDir: Bool = true, shell: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    )
        -> Outcome
    {
        let executable: URL
        switch Self.executable {
        case .success(let url):
            executable = url
        case .failure(let error):
            Issue.record("\(error)", sourceLocation: sourceLocation)
            return Outcome(status: -1, output: "", errors: "\(error)")
        }
        let process = Process()
        let commandLine = (useDataDir ? ["--data-dir", dataDirectory.path] : []) + arguments
        if let shell {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", shell, "sh", executable.path] + commandLine
        } else {
            process.executableURL = executable
            process.arguments = commandLine
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        let errors = Pipe()
        let standardInput = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = standardInput
        // The handler captures only the semaphore: on Apple platforms it is a `@Sendable` closure
        // and `Process` is not `Sendable`, so the process itself is used on this thread alone.
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            return Outcome(status: -1, output: "", errors: "cannot start \(executable.path): \(error)")
        }
        // Both pipes are read on threads of their own, so that a child filling one while the other
        // is read never blocks.
        let outputData = PipeReader(output.fileHandleForReading)
        let errorData = PipeReader(errors.fileHandleForReading)
        if let input {
            Self.brokenPipesAreErrors
            writeAll(Data(input.utf8), to: standardInput.fileHandleForWriting.fileDescriptor)
        }
        try? standardInput.fileHandleForWriting.close()
        var timedOut = false
        if exited.wait(timeout: .now() + Self.timeout) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
        }
        process.waitUntilExit()
        let errorText = String(decoding: errorData.finish(), as: UTF8.self)
        return Outcome(
            status: process.terminationStatus, output: String(decoding: outputData.finish(), as: UTF8.self),
            errors: timedOut ? errorText + "killed after \(Self.timeout) s\n" : errorText)
    }

    /// Makes a write to a pipe whose reader has gone fail with `EPIPE` instead of killing this
    /// process with `SIGPIPE`: a child may exit before it reads its input, as on a usage error.
    private static let brokenPipesAreErrors: Void = {
        _ = signal(SIGPIPE, SIG_IGN)
    }()

    /// The archive's bytes, or `nil` when there is none.
    var archiveBytes: Data? {
        FileManager.default.contents(atPath: archiveURL.path)
    }
}

/// Reads a pipe to its end on a thread of its own.
final class PipeReader: @unchecked Sendable {
    // `@unchecked Sendable`: `data` is written by the reading thread before `done.signal()` and read
    // only after `done.wait()` returns; `handle` is only kept, so that its descriptor stays open
    // until then, and the thread reads through the descriptor, an integer.
    private let handle: FileHandle
    private let descriptor: Int32
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        self.handle = handle
        descriptor = handle.fileDescriptor
        Thread.detachNewThread { [self] in
            data = readToEnd(descriptor)
            done.signal()
        }
    }

    /// Waits until the writing end is closed (the child exited) and returns what was read.
    func finish() -> Data {
        done.wait()
        return withExtendedLifetime(handle) { data }
    }
}

/// Reads `descriptor` to its end, retrying a read that a signal interrupted: many children ending
/// at once interrupt reads with `SIGCHLD`, which `readDataToEndOfFile()` turns into a crash.
func readToEnd(_ descriptor: Int32) -> Data {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count > 0 {
            data.append(contentsOf: buffer[..<count])
        } else if count == 0 || errno != EINTR {
            return data
        }
    }
}

/// Writes `data` to `descriptor`, retrying interrupted and partial writes; stops at the first
/// other error, such as `EPIPE` from a child that exited without reading it all.
func writeAll(_ data: Data, to descriptor: Int32) {
    data.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let count = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if count > 0 {
                offset += count
            } else if count < 0, errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}

/// Finds the products SwiftPM or Xcode built with the tests.
///
/// Products are built into one folder: the one holding the test code, which is the `.xctest`
/// executable on Linux and a binary inside the `.xctest` bundle on Apple platforms. Who runs the
/// tests does not matter: `xctest`, the toolchain's Swift Testing helper or the bundle itself.
enum BuiltProducts {
    /// A product that is in none of the folders looked at.
    struct NotFound: Error, Equatable, CustomStringConvertible {
        let name: String
        /// Every path looked at, in order.
        let tried: [String]

        var description: String {
            "cannot find the built `\(name)` executable; looked for "
                + tried.joined(separator: ", ") + " (build it with `swift build` first)"
        }
    }

    /// The file this test code was loaded from: the executable of the bundle holding this module's
    /// classes (on Linux the main bundle, whose executable is the `.xctest` file).
    static var testBinary: String? {
        Bundle(for: TodosProcess.self).executableURL?.path
    }

    /// The first executable file named `name` in the products folder of `testBinary`, else beside
    /// a loaded `.xctest` bundle, else beside `argumentZero`.
    static func locate(_ name: String, testBinary: String?, bundlePaths: [String], argumentZero: String?)
        -> Result<URL, NotFound>
    {
        var folders: [URL] = []
        if let testBinary { folders.append(productsFolder(of: URL(fileURLWithPath: testBinary))) }
        for bundle in bundlePaths where bundle.hasSuffix(".xctest") {
            folders.append(URL(fileURLWithPath: bundle).deletingLastPathComponent())
        }
        if let argumentZero { folders.append(URL(fileURLWithPath: argumentZero).deletingLastPathComponent()) }
        var tried: [String] = []
        for folder in folders {
            let candidate = folder.appendingPathComponent(name)
            guard !tried.contains(candidate.path) else { continue }
            tried.append(candidate.path)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
                !isDirectory.boolValue, FileManager.default.isExecutableFile(atPath: candidate.path)
            {
                return .success(candidate)
            }
        }
        return .failure(NotFound(name: name, tried: tried))
    }

    /// The folder holding the outermost `.xctest` in `binary`'s path, else the binary's folder.
    private static func productsFolder(of binary: URL) -> URL {
        let components = binary.pathComponents
        guard let bundle = components.firstIndex(where: { $0.hasSuffix(".xctest") }) else {
            return binary.deletingLastPathComponent()
        }
        var folder = URL(fileURLWithPath: "/", isDirectory: true)
        for component in components[..<bundle].dropFirst() { folder.appendPathComponent(component) }
        return folder
    }
}

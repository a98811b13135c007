import Dispatch
import Foundation

/// Runs work that recurses deeper than a thread's own stack allows, on a thread with a large one.
///
/// Encoding or decoding a state recurses once per `encode(to:)` or `init(from:)` call, so a state
/// nested hundreds of levels (through wrappers that add calls but no JSON level) can need more
/// stack than a Dispatch worker or a cooperative-pool thread has (512 KiB). Such work runs here:
/// on a new thread whose stack holds ``callLimit`` calls of the encoder or decoder, while the
/// calling thread waits for it. Only states that deep pay for the thread.
enum DeepStack {
    /// The stack of the thread: address space reserved, touched only as deep as the work goes.
    static let stackSize = 64 << 20
    /// The deepest nesting of `encode(to:)` calls a snapshot may have on the deep stack; past it the
    /// encoding fails with ``SnapshotError/NestingTooDeep``, as a cycle through single-value
    /// wrappers would. 16 calls per JSON level on average, at the deepest JSON nesting.
    static let callLimit = 16 * JSONNesting.limit
    /// The deepest nesting of `encode(to:)` calls a snapshot may have on the calling thread; past it
    /// the encoding starts again on the deep stack. Each call costs `JSONEncoder` and the checker
    /// about 3 KiB of stack in a debug build (measured on Linux: 160 calls fit in 512 KiB, 200 do
    /// not), so 64 leave most of a 512 KiB thread to its caller.
    static let callerCallLimit = 64

    /// Runs `body` on a thread with a ``stackSize`` stack and returns what it returned.
    static func run<Value>(_ body: () throws -> Value) throws -> Value {
        try withoutActuallyEscaping(body) { body in
            let work = Work(body)
            let finished = DispatchSemaphore(value: 0)
            let thread = Thread {
                work.run()
                finished.signal()
            }
            thread.stackSize = stackSize
            thread.start()
            finished.wait()
            return try work.result!.get()
        }
    }

    /// The body and its result, handed to the deep thread and back.
    ///
    /// `@unchecked Sendable`: the calling thread creates it, then waits on a semaphore while the deep
    /// thread runs `body` and stores `result`, and reads `result` only after the deep thread signals.
    /// The semaphore orders every access; no two threads touch it at once.
    private final class Work<Value>: @unchecked Sendable {
        /// Released as soon as it has run, before the calling thread resumes: it must not outlive
        /// `withoutActuallyEscaping`, while the thread may outlive the call.
        var body: (() throws -> Value)?
        var result: Result<Value, any Error>?

        init(_ body: @escaping () throws -> Value) {
            self.body = body
        }

        func run() {
            result = Result { try body!() }
            body = nil
        }
    }
}

/// Thrown by an encoder whose `encode(to:)` calls nest deeper than ``DeepStack/callerCallLimit`` on
/// the calling thread: the encoding starts again on the ``DeepStack``.
struct NeedsDeepStack: Error {}

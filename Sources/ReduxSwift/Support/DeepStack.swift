import Dispatch
import Foundation

/// Runs work that recurses deeper than a thread's own stack allows, on a thread with a large one.
///
/// Encoding or decoding a state recurses once per `encode(to:)` or `init(from:)` call, so a state
/// nested hundreds of levels (through wrappers that add calls but no JSON level) can need more
/// stack than a Dispatch worker or a cooperative-pool thread has (512 KiB on Apple platforms).
/// Such work runs here: on a new thread with a ``stackSize`` stack, while the calling thread waits
/// for it. Only states that deep pay for the thread.
///
/// **How deep is too deep.** The snapshot checker compares the stack pointer with the lowest
/// address of the thread's stack (see ``ThreadStack``) at each `encode(to:)` it checks and each
/// container a value asks for, the points every recursion through the encoder passes. Where less
/// than a margin is left, it stops: on the calling thread below ``callerMargin``, and the encoding
/// starts again here; here below ``margin``, and the encoding fails with
/// ``SnapshotError/NestingTooDeep``, which is how a cycle ends, whatever kinds of `encode(to:)` it
/// goes through. A margin must hold what runs past the last check: the rest of one value's
/// `encode(to:)` down to its scalars, `JSONEncoder`'s own calls, and whatever the runtime does
/// the first time (the dynamic linker binding a symbol, metadata instantiated). Measured on Linux
/// (x86-64, Swift 6.3.1) by filling a thread's stack with a pattern and finding the deepest byte
/// changed: past the deepest check, an encoding went 1–2 KiB further, and up to 13 KiB the first
/// time a process encoded such a state (debug and release builds alike); between two checks, in a
/// debug build, one level of a chain of objects takes about 4 KiB (3 KiB in release), a
/// single-value wrapper 3 KiB, an `encode(to:)` that flattens its child 1.1 KiB, and an object with
/// 50 members of every kind 4.9 KiB. The margins leave ten times the worst of these on the calling
/// thread, eighty times here.
///
/// Where a thread's stack cannot be looked up, counts guard instead, as they did before:
/// ``callerCallLimit`` nested calls (or container requests of one value) on the calling thread,
/// ``callLimit`` here.
enum DeepStack {
    /// The stack of the thread: address space reserved, touched only as deep as the work goes.
    static let stackSize = 64 << 20
    /// What the checker leaves unused at the bottom of the deep stack (1 MiB of 64).
    static let margin = 1 << 20
    /// What the checker leaves unused at the bottom of the calling thread's stack before it starts
    /// again on the deep stack: a quarter of a 512 KiB thread.
    static let callerMargin = 128 << 10
    /// The deepest nesting of `encode(to:)` calls a snapshot may have on the deep stack where its
    /// bounds are unknown; past it the encoding fails with ``SnapshotError/NestingTooDeep``, as a
    /// cycle through single-value wrappers would. 16 calls per JSON level on average, at the deepest
    /// JSON nesting.
    static let callLimit = 16 * JSONNesting.limit
    /// The deepest nesting of `encode(to:)` calls or of containers (or the most container requests
    /// of one value) a state may have and still be decoded on its reader's thread; past it, it is
    /// decoded here. A reader's thread may not be the one that encoded it, nor have its stack. Each
    /// call costs `JSONDecoder` about 2.7 KiB of stack in a debug build (`JSONEncoder` and the
    /// checker 4 KiB), so 64 leave most of a 512 KiB thread to its caller. Where a thread's stack is
    /// unknown, it is also how deep an encoding may go on the calling thread.
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

/// Thrown by an encoder whose `encode(to:)` calls leave less than ``DeepStack/callerMargin`` of the
/// calling thread's stack: the encoding starts again on the ``DeepStack``.
struct NeedsDeepStack: Error {}

import Foundation

/// The current thread's stack: where it ends, and how far down it the thread is.
///
/// The snapshot checker compares the address of a local variable with the lowest address of the
/// thread's stack before each `encode(to:)` it passes on (see ``SnapshotChecker``), so that it
/// stops where the stack really runs out, whatever each call costs. The bounds are looked up once
/// per thread and kept in thread-local storage: on Linux, `pthread_getattr_np` reads
/// `/proc/self/maps` for the main thread, which an encoding must not pay for each time; on Apple
/// platforms `pthread_get_stackaddr_np` and `pthread_get_stacksize_np` are cheap, and cached alike.
///
/// Stacks grow down on every platform Swift runs on.
enum ThreadStack {
    /// The lowest and highest addresses of the current thread's stack, or `nil` when the platform
    /// does not tell them, or the thread runs on a stack other than its own (a stack switched to
    /// by a coroutine library, say): the callers fall back to counting calls then.
    static func bounds() -> (lowest: UInt, highest: UInt)? {
        guard let keys = Self.keys else { return nil }
        let cached = (
            lowest: UInt(bitPattern: pthread_getspecific(keys.lowest)),
            highest: UInt(bitPattern: pthread_getspecific(keys.highest))
        )
        let bounds: (lowest: UInt, highest: UInt)
        if cached.highest == 0 {
            // Not looked up yet on this thread; `unknown` marks a lookup that failed.
            let found = lookUp() ?? (lowest: 0, highest: unknown)
            pthread_setspecific(keys.lowest, UnsafeRawPointer(bitPattern: found.lowest))
            pthread_setspecific(keys.highest, UnsafeRawPointer(bitPattern: found.highest))
            bounds = found
        } else {
            bounds = cached
        }
        guard bounds.highest != unknown else { return nil }
        let here = currentAddress()
        guard here > bounds.lowest, here <= bounds.highest else { return nil }
        return bounds
    }

    /// An address in the caller's frame: how far down the stack the thread is.
    @inline(__always)
    static func currentAddress() -> UInt {
        var marker: UInt8 = 0
        return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
    }

    /// How much of a thread's stack an encoding may use under the thread sanitizer, and no limit
    /// elsewhere. The sanitizer keeps its own record of the calls each thread is in, 65,536 deep,
    /// and ends the process past it: a cycle left to fill the 64 MiB of the deep stack goes past
    /// that long before its end. 8 MiB holds a state at the deepest JSON nesting with room to spare
    /// and far fewer calls than the sanitizer holds.
    static let sanitizerLimit: UInt = {
        #if canImport(Darwin)
        let everyImage = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #else
        let everyImage: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        return dlsym(everyImage, "__tsan_init") == nil ? .max : 8 << 20
    }()

    /// What ``bounds()`` keeps for a thread whose stack could not be looked up.
    private static let unknown: UInt = 1

    /// The thread-local slots of the bounds, or `nil` if the process has no keys left (then every
    /// thread counts calls). No destructor: the values are addresses, not allocations.
    private static let keys: (lowest: pthread_key_t, highest: pthread_key_t)? = {
        var lowest = pthread_key_t()
        var highest = pthread_key_t()
        guard pthread_key_create(&lowest, nil) == 0 else { return nil }
        guard pthread_key_create(&highest, nil) == 0 else {
            pthread_key_delete(lowest)
            return nil
        }
        return (lowest, highest)
    }()

    /// Asks the system for the current thread's stack.
    private static func lookUp() -> (lowest: UInt, highest: UInt)? {
        #if canImport(Darwin)
        let thread = pthread_self()
        let highest = UInt(bitPattern: pthread_get_stackaddr_np(thread))
        let size = UInt(pthread_get_stacksize_np(thread))
        guard size > 0, highest > size else { return nil }
        return (highest - size, highest)
        #elseif os(Linux)
        // A GNU extension that the Glibc module does not export (it is declared only under
        // `_GNU_SOURCE`); glibc and musl both have it.
        typealias GetAttributes = @convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32
        guard let symbol = dlsym(nil, "pthread_getattr_np") else { return nil }
        let getAttributes = unsafeBitCast(symbol, to: GetAttributes.self)
        var attributes = pthread_attr_t()
        guard getAttributes(pthread_self(), &attributes) == 0 else { return nil }
        defer { pthread_attr_destroy(&attributes) }
        var lowest: UnsafeMutableRawPointer?
        var size = 0
        guard pthread_attr_getstack(&attributes, &lowest, &size) == 0, let lowest, size > 0 else {
            return nil
        }
        return (UInt(bitPattern: lowest), UInt(bitPattern: lowest) + UInt(size))
        #else
        return nil
        #endif
    }
}

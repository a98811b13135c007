#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#else
#error("ReduxSwift needs os_unfair_lock or pthread mutexes.")
#endif

/// A value guarded by a mutex, changed only through ``withLock(_:)``.
///
/// The store's bookkeeping is small and its critical sections are a few dozen instructions, so an
/// `os_unfair_lock` (Apple) or a `pthread_mutex_t` (elsewhere) beats any queue hop. Critical
/// sections never call user code and never block, which is what keeps the store deadlock-free.
///
/// `@unchecked Sendable`: `value` is read and written only inside `withLock`, while `mutex` is held.
final class LockedValue<Value>: @unchecked Sendable {
    #if canImport(Darwin)
    private let mutex: UnsafeMutablePointer<os_unfair_lock>
    #else
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    #endif
    /// Unchecked exclusivity: every access happens in `withLock` under `mutex`, which already makes
    /// it exclusive, so the runtime's dynamic check would only repeat it on every lock.
    @exclusivity(unchecked) private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        #if canImport(Darwin)
        mutex.initialize(to: os_unfair_lock())
        #else
        let error = pthread_mutex_init(mutex, nil)
        precondition(error == 0, "pthread_mutex_init failed with error \(error)")
        #endif
    }

    deinit {
        #if !canImport(Darwin)
        pthread_mutex_destroy(mutex)
        #endif
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        #if canImport(Darwin)
        os_unfair_lock_lock(mutex)
        defer { os_unfair_lock_unlock(mutex) }
        #else
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        #endif
        return try body(&value)
    }
}

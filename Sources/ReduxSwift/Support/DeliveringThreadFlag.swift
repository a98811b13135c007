#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// Marks a thread while a store delivers notifications on it, so that a dispatch made there (by an
/// observer with no queue) never waits for room in a full queue: the delivery thread must keep
/// going whatever the store it dispatches to is doing.
enum DeliveringThreadFlag {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let error = pthread_key_create(&key, nil)
        precondition(error == 0, "pthread_key_create failed with error \(error)")
        return key
    }()

    /// Whether the calling thread is delivering a store's notifications.
    static var isCurrent: Bool { pthread_getspecific(key) != nil }

    /// Runs `body` with the calling thread marked as delivering.
    static func run(_ body: () -> Void) {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
        defer { pthread_setspecific(key, previous) }
        body()
    }
}

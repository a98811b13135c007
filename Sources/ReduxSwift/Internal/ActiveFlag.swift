#if canImport(Synchronization) && !canImport(Darwin)
import Synchronization

/// A flag that starts set and is cleared once, read on every delivery to an observer.
///
/// An atomic stored inline where the platform floor allows it (Linux); on Apple platforms
/// `Atomic` needs macOS 15 and its peers, so there it is a `LockedValue`, whose `os_unfair_lock` is
/// about as cheap.
struct ActiveFlag: ~Copyable, Sendable {
    private let value = Atomic<Bool>(true)

    var isSet: Bool { value.load(ordering: .acquiring) }

    /// Clears the flag; returns whether this call cleared it.
    func clear() -> Bool {
        value.exchange(false, ordering: .acquiringAndReleasing)
    }
}
#else

/// A flag that starts set and is cleared once, read on every delivery to an observer.
///
/// An atomic stored inline where the platform floor allows it (Linux); on Apple platforms
/// `Atomic` needs macOS 15 and its peers, so there it is a `LockedValue`, whose `os_unfair_lock` is
/// about as cheap.
struct ActiveFlag: ~Copyable, Sendable {
    private let value = LockedValue(true)

    var isSet: Bool { value.withLock { $0 } }

    /// Clears the flag; returns whether this call cleared it.
    func clear() -> Bool {
        value.withLock { isSet in
            defer { isSet = false }
            return isSet
        }
    }
}
#endif

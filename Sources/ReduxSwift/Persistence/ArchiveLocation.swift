import Foundation

/// What the archives of one location share in this process: the lock that runs their backend calls
/// one at a time, and whether the data there failed to load.
///
/// Archives on a ``FileArchiveBackend`` of the same file, or on a ``UserDefaultsArchiveBackend`` of
/// the same key in the same `UserDefaults` object, share one: a load that fails through any of them
/// makes every one refuse to save over the data, and no save of one runs while another loads. An
/// archive on another backend has one of its own, since only that backend's author knows when two
/// of its values are the same storage.
final class ArchiveLocation: @unchecked Sendable {
    // `@unchecked Sendable`: `io` is a lock, and `unreadable` is only used under its own lock.

    /// Recursive, so that code run inside a backend call or a decode (a backend of the user's, an
    /// `ArchiveDefaults` type's `init()`) may use an archive of the same location on the same
    /// thread instead of waiting for itself forever.
    private let io = NSRecursiveLock()
    /// Whether the data here failed to load, and has been neither set aside nor loaded since.
    /// Changed and read by archives only while `io` is held, so that no save slips in between a
    /// load's failure and its record.
    private let unreadable = LockedValue(false)

    /// Runs `body` while no other backend call of an archive of this location runs.
    func exclusively<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        io.lock()
        defer { io.unlock() }
        return try body()
    }

    /// Whether the data here failed to load and must not be saved over; call it from `exclusively`.
    var holdsUnreadableData: Bool {
        get { unreadable.withLock { $0 } }
        set { unreadable.withLock { $0 = newValue } }
    }

    private let unsure = LockedValue(false)

    /// Whether the types do not read their own version here: the data failed to load with
    /// `needsMigration`, as archived or as the migrations made it, or the unmerged state resumed
    /// here was saved so. The types changed without a new `schemaVersion`, so what is saved
    /// beside the data is marked as of an unsure version. Call it from `exclusively`.
    var failedAtOwnVersion: Bool {
        get { unsure.withLock { $0 } }
        set { unsure.withLock { $0 = newValue } }
    }

    /// What this process knows of the unmerged state beside the data (see ``UnmergedState``).
    enum Unmerged {
        /// Nothing yet: a save may create it, but not replace one that is there.
        case unknown
        /// This process wrote it, loaded it, or found none: the state the app runs on holds what
        /// it held, so a save may replace it.
        case known
        /// It failed to load and is kept: nothing saves over it.
        case unreadable
    }

    private let unmergedState = LockedValue(Unmerged.unknown)

    /// What this process knows of the unmerged state beside the data; call it from `exclusively`.
    var unmerged: Unmerged {
        get { unmergedState.withLock { $0 } }
        set { unmergedState.withLock { $0 = newValue } }
    }

    // MARK: Sharing

    /// Identifies the storage of a backend that other backend values can share.
    enum Key: Hashable {
        /// A file, by its standardized path.
        case file(path: String)
        /// A key in a `UserDefaults` object, which the registry keeps alive so that its identifier
        /// is not reused.
        case defaults(ObjectIdentifier, key: String)
    }

    /// The location of each key that an archive uses, or whose data failed to load.
    private static let registry = LockedValue<[Key: Registration]>([:])

    private struct Registration {
        let location: ArchiveLocation
        /// Kept alive for as long as the key is registered: the `UserDefaults` object that
        /// ``Key/defaults(_:key:)`` identifies.
        let owner: AnyObject?
        /// How many archives use the location.
        var archives: Int
    }

    /// The location that `backend`'s archives share, or a new one for a backend that cannot say
    /// where its storage is; ``release(_:)`` it with the key when the archive goes away.
    static func acquire(for backend: any ArchiveBackend) -> (ArchiveLocation, Key?) {
        let shared: (key: Key, owner: AnyObject?)
        switch backend {
        case let file as FileArchiveBackend:
            shared = (.file(path: file.location), nil)
        case let defaults as UserDefaultsArchiveBackend:
            shared = (.defaults(ObjectIdentifier(defaults.defaults), key: defaults.key), defaults.defaults)
        default:
            return (ArchiveLocation(), nil)
        }
        let location = registry.withLock { registry in
            let location = registry[shared.key]?.location ?? ArchiveLocation()
            registry[shared.key, default: Registration(location: location, owner: shared.owner, archives: 0)]
                .archives += 1
            return location
        }
        return (location, shared.key)
    }

    /// Whether `key` is registered: some archive uses it, or its data failed to load.
    static func isRegistered(_ key: Key) -> Bool {
        registry.withLock { $0[key] != nil }
    }

    /// Notes that an archive of `key` went away. The location is forgotten when no archive uses it,
    /// unless its data failed to load: an archive created later must refuse to save over it too.
    static func release(_ key: Key) {
        registry.withLock { registry in
            guard var registration = registry[key] else { return }
            registration.archives -= 1
            if registration.archives == 0, !registration.location.holdsUnreadableData {
                registry[key] = nil
            } else {
                registry[key] = registration
            }
        }
    }
}

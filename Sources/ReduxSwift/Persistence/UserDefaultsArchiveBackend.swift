import Foundation

/// Keeps an archive as a data value in `UserDefaults`, under a namespaced key.
///
/// The key is `<namespace>.<name>`, so several stores and other settings can share one defaults
/// domain without clashing:
///
/// ```swift
/// let backend = UserDefaultsArchiveBackend(name: "AppState", namespace: "com.example.myapp")
/// // stored under "com.example.myapp.AppState" in UserDefaults.standard
/// ```
///
/// A name contains no `.`, so that the last `.` of a key separates the namespace from the name and
/// no two pairs make the same key (`"b.c"` in `"a"` would be `"c"` in `"a.b"`). To keep a key that
/// has a `.` in its last part, such as `com.example.myapp.State.v2`, move the dots into the
/// namespace: `name: "v2", namespace: "com.example.myapp.State"`.
///
/// A save sets the value and calls `synchronize()`, which writes the domain to disk on Linux.
/// On Apple platforms the system decides when defaults reach the disk, so a save there is durable
/// once the system has written it; use ``FileArchiveBackend`` when a save must be on disk when it
/// returns. `UserDefaults` suits small states: it keeps every value of the domain in memory.
///
/// ## Size
///
/// Apple platforms cap what an app keeps in `UserDefaults`, and what passes the cap is not
/// refused but lost, or fatal: tvOS warns an app whose defaults reach 512 KiB and terminates it at
/// 1 MB; watchOS 26 terminates an app whose defaults pass 1 MiB; iOS, iPadOS, Mac Catalyst, macOS
/// and visionOS do not store 4 MiB or more, without an error, and may lose the app's other keys
/// written with it. So a save is refused with ``PersistenceError/Kind/tooLarge(bytes:limit:)``,
/// before anything is written, when the archive, together with the copies set aside from it (see
/// ``setAside(suffix:)``, whatever the suffix) and the values kept beside it (the previous archive
/// kept while an upgraded one has not loaded yet, `<key>.previous-v1`, and the unmerged state
/// saved while the archive cannot be read, `<key>.unmerged`; see ``StateArchive``), would pass
/// ``sizeLimit``. By default, in
/// ``platformSizeLimit``, that is:
///
/// - 512 KiB on tvOS and watchOS: half the hard limit, where tvOS starts warning;
/// - 3 MiB on iOS, iPadOS, Mac Catalyst, macOS and visionOS: a round figure that leaves 1 MiB
///   under the 4 MiB;
/// - no limit (`nil`) on Linux and other platforms, whose defaults are a property-list file of
///   any size.
///
/// The room left is for the app's other defaults, which the limit does not count. Setting a value
/// aside moves it rather than copying it, so it never doubles what is stored; a copy set aside
/// keeps counting until the app removes it. The keys of the copies and of the values kept beside
/// the archive are listed under `<key>#setAside`. An upgrade that writes the archive back needs
/// room for the previous archive and the upgraded one together; when they do not fit, the load
/// still succeeds and the archive stays as it was. Pass `sizeLimit:` to choose another limit, and
/// use ``FileArchiveBackend`` for a state larger than the defaults can hold.
public struct UserDefaultsArchiveBackend: ArchiveBackend, SiblingStorage, @unchecked Sendable {
    // `@unchecked Sendable`: `defaults` is the only property that is not Sendable. Apple documents
    // `UserDefaults` as thread-safe; on Linux it is built on CFPreferences, which locks internally.
    // This type keeps no state of its own beside it.

    /// The defaults this backend reads and writes.
    public let defaults: UserDefaults
    /// The full key: `<namespace>.<name>`.
    public let key: String
    /// The archive's key, for a value kept beside it: the key that lists the copies that count
    /// toward ``sizeLimit``.
    private let archiveKey: String

    /// The key, for errors.
    public var location: String { "UserDefaults key \"\(key)\"" }
    /// The most bytes the archive, the copies set aside under its key and the values kept beside it
    /// may hold together; `nil` for no limit.
    public let sizeLimit: Int?

    /// The default ``sizeLimit`` on this platform: 512 KiB on tvOS and watchOS, 3 MiB on iOS,
    /// iPadOS, Mac Catalyst, macOS and visionOS, and `nil` (no limit) elsewhere.
    public static var platformSizeLimit: Int? { defaultSizeLimit(for: .current) }

    /// The default ``sizeLimit`` on `platform`, below what its `UserDefaults` can hold.
    static func defaultSizeLimit(for platform: Platform) -> Int? {
        switch platform {
        case .tvOS, .watchOS:
            // tvOS warns at 512 KiB and terminates the app at 1 MB; watchOS 26 terminates it above
            // 1 MiB. Half the hard limit leaves the other half to the app's other defaults.
            return 512 * 1024
        case .iOS, .macCatalyst, .macOS, .visionOS:
            // Data of 4 MiB or more is dropped without an error, possibly with other keys. A round
            // 3 MiB leaves 1 MiB to the app's other defaults, which this limit does not count.
            return 3 * 1024 * 1024
        case .other:
            // swift-corelibs-foundation writes the defaults to a property-list file of any size.
            return nil
        }
    }

    /// Creates a backend stored under `<namespace>.<name>`, or under `name` alone when the namespace
    /// is empty.
    ///
    /// ```swift
    /// let backend = UserDefaultsArchiveBackend(name: "AppState", namespace: "com.example.myapp")
    /// ```
    ///
    /// - Precondition: `name` is not empty and contains no `.`; the program stops otherwise. Dots
    ///   belong in the namespace, where they cannot make two pairs share a key.
    ///
    /// - Parameters:
    ///   - name: The archive's name, usually the state type's name.
    ///   - namespace: A prefix that keeps the key apart from others, usually your bundle identifier.
    ///   - defaults: Where to store it; `.standard` unless you pass a suite.
    ///   - sizeLimit: The most bytes the archive and its set-aside copies may hold together;
    ///     ``platformSizeLimit`` by default.
    public init(
        name: String, namespace: String, defaults: UserDefaults = .standard,
        sizeLimit: Int? = UserDefaultsArchiveBackend.platformSizeLimit
    ) {
        precondition(
            !name.isEmpty && !name.contains("."),
            "UserDefaultsArchiveBackend's name must be non-empty and contain no \".\" (put dots in the "
                + "namespace, so that no two names and namespaces make the same key), not \"\(name)\"")
        precondition(sizeLimit.map { $0 >= 0 } ?? true, "sizeLimit must be 0 or more, not \(sizeLimit ?? 0)")
        self.defaults = defaults
        key = namespace.isEmpty ? name : "\(namespace).\(name)"
        archiveKey = key
        self.sizeLimit = sizeLimit
    }

    /// A backend of the value kept beside `archive`'s under `suffix`, in its defaults and counted
    /// in its size limit.
    private init(beside archive: UserDefaultsArchiveBackend, suffix: String) {
        defaults = archive.defaults
        key = archive.key + suffix
        archiveKey = archive.archiveKey
        sizeLimit = archive.sizeLimit
    }

    /// The key under which the keys of the copies set aside, and of the values kept beside the
    /// archive, are listed.
    private var setAsideListKey: String { archiveKey + "#setAside" }

    /// Reads the data value; `nil` when the key has no value.
    public func read(limit: Int) throws(PersistenceError) -> Data? {
        guard let value = defaults.object(forKey: key) else { return nil }
        guard let data = value as? Data else {
            throw PersistenceError(
                .wrongShape(detail: "the value is \(Self.kind(of: value)), not data"), stage: .load,
                location: location)
        }
        if data.count > limit {
            throw PersistenceError(
                .tooLarge(bytes: data.count, limit: limit), stage: .load, location: location)
        }
        return data
    }

    /// Names a property-list value by its kind ("a string", "a date"…), not by its runtime class,
    /// which differs between platforms (`__NSCFString` on Apple platforms, `String` on Linux).
    private static func kind(of value: Any) -> String {
        if value is Date { return "a date" }
        if value is [AnyHashable: Any] { return "a dictionary" }
        return JSONKind.of(value)
    }

    /// Sets the data value and asks `UserDefaults` to write it to disk.
    ///
    /// - Throws: ``PersistenceError/Kind/tooLarge(bytes:limit:)``, with nothing written, when the
    ///   data and the copies set aside under this key would hold more than ``sizeLimit``.
    public func write(_ data: Data) throws(PersistenceError) {
        if let sizeLimit {
            let total = data.count + setAsideBytes()
            if total > sizeLimit {
                throw PersistenceError(
                    .tooLarge(bytes: total, limit: sizeLimit), stage: .save, location: location)
            }
        }
        if key != archiveKey { list(key) }
        defaults.set(data, forKey: key)
        guard defaults.synchronize() else {
            throw PersistenceError(
                .system(call: "UserDefaults.synchronize", errno: 0, message: "it returned false"),
                stage: .save, location: location
            )
        }
    }

    /// The bytes the other values of the archive's key hold, whatever their suffix and kind of
    /// value: the archive itself, the copies set aside from it and the values kept beside it. A
    /// copy the app removed no longer counts.
    private func setAsideBytes() -> Int {
        let listed = defaults.stringArray(forKey: setAsideListKey) ?? []
        let keys = Set(listed + [archiveKey]).subtracting([key])
        return keys.reduce(0) { total, key in total + (defaults.object(forKey: key).map(Self.size(of:)) ?? 0)
        }
    }

    /// Lists `key` among the values that count toward ``sizeLimit``, and forgets those removed.
    private func list(_ key: String) {
        let listed = (defaults.stringArray(forKey: setAsideListKey) ?? []).filter {
            $0 != key && defaults.object(forKey: $0) != nil
        }
        defaults.set(listed + [key], forKey: setAsideListKey)
    }

    /// The size of a property-list value as stored: its bytes for data and strings, its binary
    /// property-list encoding for anything else.
    private static func size(of value: Any) -> Int {
        if let data = value as? Data { return data.count }
        if let string = value as? String { return string.utf8.count }
        return (try? PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0))?
            .count ?? 0
    }

    /// Moves the value to `<key><suffix>` (adding `-2`, `-3`… if that key is taken): it is moved,
    /// not copied, so the defaults hold no more than before.
    public func setAside(suffix: String) throws(PersistenceError) -> String? {
        guard let value = defaults.object(forKey: key) else { return nil }
        var target = key + suffix
        var attempt = 1
        while defaults.object(forKey: target) != nil {
            attempt += 1
            target = key + suffix + "-\(attempt)"
        }
        defaults.set(value, forKey: target)
        defaults.removeObject(forKey: key)
        // Listed, so that the copy counts toward ``sizeLimit`` whatever its suffix.
        list(target)
        _ = defaults.synchronize()
        return "UserDefaults key \"\(target)\""
    }

    // MARK: Values beside the archive

    /// The value under this key with `suffix` added, counted in the same ``sizeLimit``.
    func sibling(_ suffix: String) -> any SiblingStorage {
        UserDefaultsArchiveBackend(beside: self, suffix: suffix)
    }

    /// Whether the key has a value.
    func exists() -> Bool {
        defaults.object(forKey: key) != nil
    }

    /// Removes the value, and its key from the list of those that count toward ``sizeLimit`` (the
    /// list itself when no other is left), and asks `UserDefaults` to write the change to disk.
    func remove() throws(PersistenceError) {
        guard exists() else { return }
        defaults.removeObject(forKey: key)
        let listed = (defaults.stringArray(forKey: setAsideListKey) ?? []).filter {
            $0 != key && defaults.object(forKey: $0) != nil
        }
        if listed.isEmpty {
            defaults.removeObject(forKey: setAsideListKey)
        } else {
            defaults.set(listed, forKey: setAsideListKey)
        }
        guard defaults.synchronize() else {
            throw PersistenceError(
                .system(call: "UserDefaults.synchronize", errno: 0, message: "it returned false"),
                stage: .save, location: location)
        }
    }

    /// The suffixes of the listed keys beside this one that start with `prefix` and have a value.
    func siblingSuffixes(startingWith prefix: String) -> [String] {
        (defaults.stringArray(forKey: setAsideListKey) ?? []).filter {
            $0.hasPrefix(key + prefix) && defaults.object(forKey: $0) != nil
        }.map { String($0.dropFirst(key.count)) }
    }
}

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// The default identifier of `action`, built by reflection once per type and enum case.
///
/// Reflection costs microseconds, yet the default identifier depends only on the action's type
/// and, for an enum, on its case: the associated values are left out. A reducer that compares
/// identifiers reads one for every action, so each is built once and then looked up by its type
/// and case tag: first among the identifiers this thread read recently, without a lock, then in
/// the cache all threads share. A lookup costs about what a reducer's `action as? SomeAction` does.
func defaultIdentifier<Action: ActionProtocol>(of action: Action) -> String {
    guard let key = identifierKey(of: action) else { return reflectedIdentifier(of: action) }
    let recent = RecentIdentifiers.ofCurrentThread
    if let identifier = recent[key] { return identifier }
    let (identifier, holdsForKey) = ActionIdentifierCache.shared.identifier(of: action, key: key)
    if holdsForKey { recent[key] = identifier }
    return identifier
}

/// Default identifiers that every thread shares, each built once per type and enum case.
///
/// Reflection runs outside the lock, because it can call the action's own `description` or
/// `customMirror`; the lock only guards the table. Two threads that miss at once both build the
/// same string, and the first to store it wins.
///
/// The table holds one identifier per type and case read, which a program declares in finite number, so
/// it needs no eviction; `maximumCount` still bounds it, for programs that instantiate generic
/// action types without end. Past it, new pairs are built on every read that misses.
final class ActionIdentifierCache: Sendable {
    /// The cache behind every default identifier.
    static let shared = ActionIdentifierCache(maximumCount: 4_096)

    private let table: LockedValue<IdentifierTable>

    init(maximumCount: Int) {
        table = LockedValue(IdentifierTable(maximumCount: maximumCount))
    }

    /// The number of identifiers kept.
    var count: Int { table.withLock { $0.count } }

    /// The identifier of `action`, whose type and case are `key`: from the table, or built and kept.
    /// - Returns: The identifier, and whether it holds for every value with that key: a custom
    ///   mirror may describe each value differently, so such an identifier is never stored.
    func identifier<Action: ActionProtocol>(
        of action: Action, key: IdentifierTable.Key
    ) -> (identifier: String, holdsForKey: Bool) {
        if let identifier = table.withLock({ $0[key] }) { return (identifier, true) }
        let identifier = reflectedIdentifier(of: action)
        guard !(action is any CustomReflectable) else { return (identifier, false) }
        table.withLock { $0.insert(identifier, for: key) }
        return (identifier, true)
    }
}

/// The identifiers the current thread read last, in a small direct-mapped table that needs no lock.
///
/// A store reduces on one thread, and every reducer there asks for the identifier of the same
/// action, so a few identifiers catch nearly every read; the shared cache's lock would cost as much as
/// the rest of a lookup. Each thread's table is allocated on its first read and freed when the
/// thread exits; each refers to the shared cache's string, so the table holds no copies.
struct RecentIdentifiers {
    private struct Slot {
        var key: IdentifierTable.Key?
        var identifier: String
    }

    /// A power of two, so that the slot is the top bits of the key's hash.
    private static let slotCount = 32

    private let slots: UnsafeMutablePointer<Slot>

    /// The current thread's table.
    static var ofCurrentThread: RecentIdentifiers {
        if let slots = pthread_getspecific(threadKey) {
            return RecentIdentifiers(slots: slots.assumingMemoryBound(to: Slot.self))
        }
        let slots = UnsafeMutablePointer<Slot>.allocate(capacity: slotCount)
        slots.initialize(repeating: Slot(key: nil, identifier: ""), count: slotCount)
        pthread_setspecific(threadKey, slots)
        return RecentIdentifiers(slots: slots)
    }

    /// Frees a thread's table, when the thread exits.
    fileprivate static func deallocate(_ slots: UnsafeMutableRawPointer) {
        let slots = slots.assumingMemoryBound(to: Slot.self)
        slots.deinitialize(count: slotCount)
        slots.deallocate()
    }

    subscript(key: IdentifierTable.Key) -> String? {
        get {
            let slot = slots + IdentifierTable.home(of: key, capacity: Self.slotCount)
            return slot.pointee.key == key ? slot.pointee.identifier : nil
        }
        nonmutating set {
            guard let newValue else { return }
            let slot = slots + IdentifierTable.home(of: key, capacity: Self.slotCount)
            slot.pointee = Slot(key: key, identifier: newValue)
        }
    }
}

/// The key under which each thread keeps its `RecentIdentifiers`.
private let threadKey: pthread_key_t = {
    var key = pthread_key_t()
    let error = pthread_key_create(&key) { slots in
        #if canImport(Darwin)
        RecentIdentifiers.deallocate(slots)
        #else
        if let slots { RecentIdentifiers.deallocate(slots) }
        #endif
    }
    precondition(error == 0, "pthread_key_create failed with error \(error)")
    return key
}()

/// The shared table from a type and case to its identifier, bounded by `maximumCount`.
///
/// Only a thread's miss in its `RecentIdentifiers` reaches it, so a plain dictionary serves. Identifiers
/// are never removed, and need not be: type metadata lives as long as the process, so a key never
/// comes to name another type.
struct IdentifierTable {
    /// A type, and for an enum the tag of one of its cases.
    struct Key: Hashable {
        let type: ObjectIdentifier
        /// The enum case's tag, or `nil` for a type that is not an enum.
        let caseTag: UInt32?
    }

    /// The most identifiers kept; inserting past it does nothing.
    let maximumCount: Int
    private var identifiers: [Key: String] = [:]

    init(maximumCount: Int) {
        self.maximumCount = maximumCount
    }

    /// The number of identifiers kept.
    var count: Int { identifiers.count }

    subscript(key: Key) -> String? {
        identifiers[key]
    }

    /// Keeps `identifier` for `key`, unless the table is full or already holds one for it.
    mutating func insert(_ identifier: String, for key: Key) {
        guard identifiers.count < maximumCount, identifiers[key] == nil else { return }
        identifiers[key] = identifier
    }

    /// The slot of `key` among `capacity`, a power of two, in a thread's `RecentIdentifiers`: a
    /// multiplicative hash, cheaper than the dictionary's SipHash on the path every read takes, and
    /// enough for keys that are metadata addresses and case numbers no one chooses. Fibonacci
    /// hashing: the multiplication carries the address and tag bits into the high bits, which pick
    /// the slot.
    static func home(of key: Key, capacity: Int) -> Int {
        let address = UInt64(UInt(bitPattern: key.type))
        let tag = key.caseTag.map { UInt64($0) &+ 1 } ?? 0
        let mixed = (address ^ (tag << 32 | tag)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> UInt64(64 - capacity.trailingZeroBitCount))
    }
}

/// The key of `value`'s default identifier: its type, and for an enum the tag of its case; `nil`
/// when the case cannot be read, so that the identifier must be built by reflection each time.
///
/// The tag comes from the `getEnumTag` entry of the enum's value witness table, the function the
/// runtime itself uses to tell cases apart, so it costs one indirect call. The layouts read here
/// (the metadata's kind, the witness table pointer just before the metadata, the table's fields)
/// are part of Swift's ABI, stable on Apple platforms since Swift 5 and the same on Linux. On arm64e that pointer and the table's functions are signed,
/// and a plain call would fail authentication, so there enums have no key.
@inline(__always)
func identifierKey<Value>(of value: Value) -> IdentifierTable.Key? {
    let metadata = unsafeBitCast(Value.self, to: UnsafeRawPointer.self)
    let type = ObjectIdentifier(Value.self)
    // `MetadataKind::Enum`; `Optional` has its own kind, and reflects as an optional, not an enum.
    guard metadata.load(as: Int.self) == 0x201 else { return IdentifierTable.Key(type: type, caseTag: nil) }
    #if _ptrauth(_arm64e)
    return nil
    #else
    let witnesses = metadata.load(
        fromByteOffset: -MemoryLayout<UnsafeRawPointer>.size, as: UnsafeRawPointer.self)
    let getEnumTag = witnesses.load(
        fromByteOffset: MemoryLayout<EnumValueWitnessTable>.offset(of: \.getEnumTag)!,
        as: EnumValueWitnessTable.GetEnumTag.self)
    let tag = withUnsafePointer(to: value) { getEnumTag(UnsafeRawPointer($0), metadata) }
    return IdentifierTable.Key(type: type, caseTag: tag)
    #endif
}

/// The start of an enum's value witness table, as the runtime lays it out: eight functions, the
/// size, stride, flags and extra-inhabitant count, then the functions only enums have. Only the
/// offset of `getEnumTag` is used.
private struct EnumValueWitnessTable {
    typealias GetEnumTag = @convention(c) (_ value: UnsafeRawPointer, _ metadata: UnsafeRawPointer) -> UInt32

    let initializeBufferWithCopyOfBuffer: UnsafeRawPointer
    let destroy: UnsafeRawPointer
    let initializeWithCopy: UnsafeRawPointer
    let assignWithCopy: UnsafeRawPointer
    let initializeWithTake: UnsafeRawPointer
    let assignWithTake: UnsafeRawPointer
    let getEnumTagSinglePayload: UnsafeRawPointer
    let storeEnumTagSinglePayload: UnsafeRawPointer
    let size: Int
    let stride: Int
    let flags: UInt32
    let extraInhabitantCount: UInt32
    let getEnumTag: GetEnumTag
}

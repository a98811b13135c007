import Dispatch
import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif
#if canImport(Synchronization) && !canImport(Darwin)
import Synchronization
#endif

/// An observer a token can end: a value observer or a center observer (of notifications).
protocol CancellableObserver: AnyObject, Sendable {
    /// Every call of the user's code passes it; cancelling closes it.
    var gate: CallGate { get }
    /// Stops future calls; returns whether the observer was still active. Calls under way are not
    /// waited for.
    func deactivate() -> Bool
    /// Removes the observer from where it is kept, after ``deactivate()`` returned `true`.
    func remove(from center: StoreNotificationCenter?)
}

extension CancellableObserver {
    /// Ends the observer with the promise of ``ObserverToken/cancel()``: once this returns, no
    /// call of the user's code begins, and none is under way on another thread (with that
    /// method's exceptions: a call on this thread, and store code, which never waits).
    func cancel(removingFrom center: StoreNotificationCenter?) {
        if deactivate() { remove(from: center) }
        gate.waitForCallsOnOtherThreads()
    }
}

/// A state watcher: what the holder of a store's live state runs at a place in the queue, and after
/// each change while it asks to: a value observer, or a `PlaceInQueue` a thread waits for. Not
/// generic, so that the store's pipeline keeps a plain list of them.
protocol StateWatcher: AnyObject {
    /// Selects the first value from the live state, at the watcher's place in the queue; returns
    /// whether to go on selecting after each change.
    func activate(on state: StatePointer) -> Bool
    /// Selects from the live state after a pass that changed it, and offers the value; returns
    /// `false` once the observer is cancelled, so that the pipeline drops it.
    func select(from state: StatePointer) -> Bool
    /// The store is gone: no value will come any more.
    func storeDidEnd()
    /// Whether the observer has ended: it was cancelled, or its owner is gone (then it ends now),
    /// so that the pipeline may drop it before it selects again. Called by the holder of the
    /// state, while any thread may cancel.
    func hasEnded() -> Bool
}

/// The one value observer behind every observing form: `observe(_:)` with or without an
/// owner, `values(of:)` and `ObservedValue`.
///
/// **Selecting.** The holder of the store's live state (the drainer, on the store's queue) selects
/// each value from the live state itself, at the registration's place in the queue and then after
/// every pass that committed a change: no JSON, no copy of the state, a cost proportional to what
/// the selector reads. The value is `Sendable`, so nothing handed out shares mutable storage with
/// the live state; a selected array shares its buffer until the next mutation copies it, as any
/// Swift value does. When `Value` is `Equatable`, a value equal to the last one selected is not
/// offered at all, so an unrelated change costs one selection and one comparison.
///
/// **Delivering.** Through ``Mailbox``, the algorithm every observer shares, with a one-slot
/// mailbox where a newer value replaces an older one not yet delivered. The deliverer skips a value
/// equal to the last one delivered (an older value can come back after a newer one was replaced).
/// Every call of the user's block passes ``gate``, which gives ``ObserverToken/cancel()`` its
/// promise.
///
/// `@unchecked Sendable`: `userCode` answers for itself; `lastOffered` is touched only by the
/// holder of the store's live state, which the store's mutex hands from thread to thread;
/// `lastDelivered` only by the deliverer, which the mailbox hands over (through its lock, and the
/// start of each deliverer; for an iterator, by the one task that iterates); `kernel` is a weak
/// reference assigned once, in `init`; the other properties are immutable and `Sendable`.
final class ValueObserver<State: StateProtocol, Value: Sendable>: StateWatcher, CancellableObserver,
    @unchecked Sendable
{
    /// The user's code, in the observer's gate: read without a lock by the selections and calls
    /// the gate lets begin, and released once the gate ends (it is closed, and no selection or
    /// call is under way): at the cancel, or when the last selection or call under way ends.
    ///
    /// `@unchecked Sendable`: the closures are written in `init`, before the observer is
    /// published, and once more in ``gateDidEnd()``, after which no selection or call ever reads
    /// them; each read happens inside ``CallGate/read(_:)`` or ``CallGate/run(_:)``, whose atomic
    /// read-modify-writes order it before that last write.
    private final class UserCode: CallGate, @unchecked Sendable {
        private(set) var select: (@Sendable (State) -> Value)?
        private(set) var deliver: (@Sendable (Value) -> Void)?

        init(select: @escaping @Sendable (State) -> Value, deliver: @escaping @Sendable (Value) -> Void) {
            self.select = select
            self.deliver = deliver
        }

        override func gateDidEnd() {
            // No lock is held: the closures' `deinit` may run user code.
            select = nil
            deliver = nil
        }
    }

    private let isDuplicate: (@Sendable (Value, Value) -> Bool)?
    private weak var kernel: StoreKernel?
    /// The owner the observer lives with, if any: once it is freed, the observer ends at the
    /// store's next change, whether or not its value changed.
    private let owner: (any OwnerBinding)?
    private let userCode: UserCode
    private let mailbox: Mailbox<NewestValue<Value>>
    /// Signalled once the first value is offered, for a registering thread that delivers it.
    private let activated = DispatchSemaphore(value: 0)
    var gate: CallGate { userCode }
    private var lastOffered: Value?
    private var lastDelivered: Value?

    init(
        kernel: StoreKernel,
        select: @escaping @Sendable (State) -> Value,
        isDuplicate: (@Sendable (Value, Value) -> Bool)?,
        target: Mailbox<NewestValue<Value>>.Target,
        owner: (any OwnerBinding)? = nil,
        deliver: @escaping @Sendable (Value) -> Void
    ) {
        self.kernel = kernel
        self.owner = owner
        self.isDuplicate = isDuplicate
        userCode = UserCode(select: select, deliver: deliver)
        mailbox = Mailbox(target: target, kernel: kernel)
        // Weak: a delivery scheduled on a queue may outlive the observer.
        mailbox.onDelivery { [weak self] value in self?.deliverValue(value) }
        owner?.attach(self)
    }

    // MARK: Registering

    /// Registers with the store: the store's queue selects the first value after every entry
    /// queued before this call. With `firstValueHere`, a thread that may wait (not store code)
    /// waits for that value and delivers it before returning; values that come while it does go
    /// to the target, as later ones do.
    func start(firstValueHere: Bool) {
        guard let kernel else { return }
        let deliversFirst = firstValueHere && StoreCodeScope.current == nil
        if deliversFirst { mailbox.claim() }
        kernel.enqueue(.command(StartWatching(watcher: self)), .neverHeld)
        guard deliversFirst else { return }
        kernel.lendPriorityIfMainThread()
        activated.wait()
        mailbox.deliverFirst()
    }

    // MARK: Selecting (as the holder of the live state)

    func activate(on state: StatePointer) -> Bool {
        let isActive = select(from: state)
        activated.signal()
        return isActive
    }

    func hasEnded() -> Bool {
        guard gate.isOpen else { return true }
        guard let owner, !owner.isOwnerAlive else { return false }
        _ = deactivate()
        return true
    }

    func select(from state: StatePointer) -> Bool {
        userCode.read {
            guard let select = userCode.select else { return false }
            if let owner, !owner.isOwnerAlive {
                _ = deactivate()
                return false
            }
            let value = select(state.assuming(State.self).pointee)
            if let isDuplicate {
                if let lastOffered, isDuplicate(lastOffered, value) { return true }
                lastOffered = value
            }
            mailbox.offer(value)
            return true
        }
    }

    // MARK: Delivering

    private func deliverValue(_ value: Value) {
        if let isDuplicate {
            if let lastDelivered, isDuplicate(lastDelivered, value) { return }
            lastDelivered = value
        }
        _ = userCode.run { userCode.deliver?(value) }
    }

    /// The next value for an asynchronous iterator: the first one, then each new one; `nil` once
    /// the task is cancelled or the observer is.
    func next() async -> Value? {
        while let value = await mailbox.next() {
            if let isDuplicate {
                if let lastDelivered, isDuplicate(lastDelivered, value) { continue }
                lastDelivered = value
            }
            return value
        }
        return nil
    }

    // MARK: Cancelling

    func deactivate() -> Bool {
        // The user's code is released when the gate ends: here, unless a selection or a call is
        // under way, and then when it ends.
        guard gate.close() else { return false }
        mailbox.close()
        return true
    }

    func remove(from center: StoreNotificationCenter?) {
        // The store's pipeline drops a closed observer at its next pass.
    }

    func storeDidEnd() {
        // A `values(of:)` loop gets the value that waits, if any, then ends.
        mailbox.finish()
    }
}

// MARK: - The call gate

/// The calls to one observer's block: a call begins only while the gate is open, and closing the
/// gate can wait for the calls under way. This is what makes "once `cancel()` returns, the block is
/// not called again" hold when a delivery races the cancel.
///
/// One word holds the state: bit 0 is set once the gate is closed, bit 1 once a thread has waited
/// for it, bit 2 while a read is under way (see ``read(_:)``), bit 3 once the gate has ended, and
/// the rest counts the calls under way. A call and a close each change the word with one atomic
/// read-modify-write, so one of them sees the other: either the call sees the gate closed and
/// does not begin, or the close sees the call and (when asked to) waits for it.
///
/// The gate *ends* once it is closed and no call or read is under way, which one read-modify-write
/// sees (the close's, or that of the last call or read to end): ``gateDidEnd()`` then runs once,
/// and from then on nothing reads what calls and reads may read, since none can begin on a closed
/// gate. So a subclass can keep what they read in plain properties and release it there.
///
/// A call costs two atomic operations and one thread-local read; waiting is the rare path and
/// takes a process-wide lock (``CallWaits``).
///
/// Not final so that a plain center observer can be its own gate, which keeps the word in the
/// cache line a post reads anyway, and a value observer's gate holds its user's code. `@unchecked
/// Sendable`: the only stored property is the word, an atomic (or a `LockedValue`); subclasses
/// answer for their own properties.
class CallGate: @unchecked Sendable {
    private static let closedBit = 1
    private static let waitedBit = 2
    private static let readingBit = 4
    private static let endedBit = 8
    private static let oneCall = 16

    #if canImport(Synchronization) && !canImport(Darwin)
    /// An atomic where the platform floor allows it (Linux); on Apple platforms `Atomic` needs
    /// macOS 15 and its peers, so there it is a `LockedValue`, whose `os_unfair_lock` is about as
    /// cheap.
    private let word = Atomic<Int>(0)

    private var current: Int { word.load(ordering: .acquiring) }

    @inline(__always)
    private func add(_ delta: Int) -> (oldValue: Int, newValue: Int) {
        word.wrappingAdd(delta, ordering: .acquiringAndReleasing)
    }

    @inline(__always)
    private func set(_ bits: Int) -> Int {
        word.bitwiseOr(bits, ordering: .acquiringAndReleasing).oldValue
    }

    @inline(__always)
    private func clear(_ bits: Int) -> Int {
        word.bitwiseAnd(~bits, ordering: .acquiringAndReleasing).newValue
    }
    #else
    private let word = LockedValue(0)

    private var current: Int { word.withLock { $0 } }

    @inline(__always)
    private func add(_ delta: Int) -> (oldValue: Int, newValue: Int) {
        word.withLock { word in
            defer { word &+= delta }
            return (word, word &+ delta)
        }
    }

    @inline(__always)
    private func set(_ bits: Int) -> Int {
        word.withLock { word in
            defer { word |= bits }
            return word
        }
    }

    @inline(__always)
    private func clear(_ bits: Int) -> Int {
        word.withLock { word in
            word &= ~bits
            return word
        }
    }
    #endif

    /// Whether calls may still begin.
    final var isOpen: Bool { current & Self.closedBit == 0 }

    /// How many calls are under way, on every thread.
    final var callsUnderWay: Int { current / Self.oneCall }

    /// Whether a thread has waited for calls under way, set just before it blocks (tests wait for
    /// it to know that a cancel is waiting).
    final var wasWaitedFor: Bool { current & Self.waitedBit != 0 }

    /// Runs `body` as one call, unless the gate is closed; returns whether it ran.
    ///
    /// `body` runs without any lock held, so it may post, cancel (this gate too), read or dispatch.
    @inline(__always)
    @discardableResult
    final func run(_ body: () -> Void) -> Bool {
        guard add(Self.oneCall).oldValue & Self.closedBit == 0 else {
            callEnded()
            return false
        }
        CallStack.withFrame(for: self, body)
        callEnded()
        return true
    }

    @inline(__always)
    private final func callEnded() {
        let word = add(-Self.oneCall).newValue
        if Self.hasJustEnded(word) { end() }
        if word & Self.waitedBit != 0 { CallWaits.shared.callEnded() }
    }

    /// Runs `body` as a read, unless the gate is closed; returns what it returned, or `false`.
    ///
    /// A read keeps the gate from ending, as a call does, but it is no call: it does not count as
    /// one under way, so a cancel does not wait for it. One thread at a time reads a gate (a value
    /// observer's selector, run by the holder of the store's live state): the word has one bit for
    /// it.
    @inline(__always)
    final func read(_ body: () -> Bool) -> Bool {
        let before = set(Self.readingBit)
        assert(before & Self.readingBit == 0, "two threads read one gate at once")
        let result = before & Self.closedBit == 0 ? body() : false
        if Self.hasJustEnded(clear(Self.readingBit)) { end() }
        return result
    }

    /// Closes the gate, so that no call begins after this returns; returns whether this call closed
    /// it. Calls already under way are not waited for: see ``waitForCallsOnOtherThreads()``. With
    /// none under way, nor a read, the gate ends here.
    final func close() -> Bool {
        let before = set(Self.closedBit)
        guard before & Self.closedBit == 0 else { return false }
        if Self.hasJustEnded(before | Self.closedBit) { end() }
        return true
    }

    /// Whether `word`, just written by a read-modify-write, shows a gate that is closed, with no
    /// call or read under way, and has not ended yet.
    @inline(__always)
    private static func hasJustEnded(_ word: Int) -> Bool {
        word & (closedBit | readingBit | endedBit) == closedBit && word / oneCall == 0
    }

    /// Ends the gate, once: several threads can see it closed with nothing under way (a call that
    /// does not begin on a closed gate ends too), and the first to set the bit runs
    /// ``gateDidEnd()``.
    private final func end() {
        if set(Self.endedBit) & Self.endedBit == 0 { gateDidEnd() }
    }

    /// Runs once, on the thread that ends the gate, with no lock held: the gate is closed and no
    /// call or read is under way, nor will one ever be. A subclass releases there what they read.
    func gateDidEnd() {}

    /// Returns once no call is under way on another thread, except calls that cannot end before
    /// this thread returns; never waits inside a reducer or an `encode(to:)`.
    ///
    /// Calls on this thread (the caller is inside the block, or the block is on its stack) are not
    /// waited for: they cannot end first. Nor are calls on threads that are themselves waiting, in
    /// this method, for a call this thread is making (two blocks cancelling each other). Inside a
    /// reducer or an `encode(to:)`, this returns at once, like a read there, because the call under
    /// way may be waiting for that store.
    final func waitForCallsOnOtherThreads() {
        guard callsUnderWay > 0, StoreCodeScope.current == nil else { return }
        CallWaits.shared.wait(for: self)
    }

    /// Marks the gate as waited for, so that every call ending from now on wakes the waiters.
    fileprivate final func markWaited() {
        _ = set(Self.waitedBit)
    }
}

/// The gates whose calls are under way on the current thread, one element per call, in a buffer
/// each thread allocates once and reaches through one thread-local read.
///
/// Only the owning thread reads or writes its buffer; it is freed when the thread exits.
enum CallStack {
    /// One thread's calls: a growable array of gate addresses. Plain memory, not a class, so that
    /// reaching it costs no reference counting.
    private struct Calls {
        var gates: UnsafeMutablePointer<UnsafeMutableRawPointer>
        var count: Int
        var capacity: Int
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let error = pthread_key_create(&key) { free($0) }
        precondition(error == 0, "pthread_key_create failed with error \(error)")
        return key
    }()

    /// The calling thread's calls, made on first use; freed when the thread exits.
    @inline(__always)
    private static var calls: UnsafeMutablePointer<Calls> {
        if let pointer = pthread_getspecific(key) { return pointer.assumingMemoryBound(to: Calls.self) }
        return makeCalls()
    }

    private static func makeCalls() -> UnsafeMutablePointer<Calls> {
        // One block holds the header and the first gates, so the key's destructor frees it whole;
        // a larger array, once grown into, is leaked with the thread only if it grew past 64 calls.
        let capacity = 64
        let size = MemoryLayout<Calls>.stride + capacity * MemoryLayout<UnsafeMutableRawPointer>.stride
        guard let block = malloc(size) else { fatalError("out of memory") }
        let calls = block.bindMemory(to: Calls.self, capacity: 1)
        let gates = (block + MemoryLayout<Calls>.stride).bindMemory(
            to: UnsafeMutableRawPointer.self, capacity: capacity)
        calls.initialize(to: Calls(gates: gates, count: 0, capacity: capacity))
        pthread_setspecific(key, block)
        return calls
    }

    /// Runs `body` with a call of `gate` recorded on the calling thread.
    @inline(__always)
    static func withFrame(for gate: CallGate, _ body: () -> Void) {
        let calls = calls
        if calls.pointee.count == calls.pointee.capacity { grow(calls) }
        calls.pointee.gates[calls.pointee.count] = Unmanaged.passUnretained(gate).toOpaque()
        calls.pointee.count += 1
        body()
        calls.pointee.count -= 1
    }

    /// Doubles the array; only a thread nesting more than 64 calls gets here.
    private static func grow(_ calls: UnsafeMutablePointer<Calls>) {
        let capacity = calls.pointee.capacity * 2
        let larger = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: capacity)
        larger.moveInitialize(from: calls.pointee.gates, count: calls.pointee.count)
        if calls.pointee.capacity > 64 { calls.pointee.gates.deallocate() }
        calls.pointee.gates = larger
        calls.pointee.capacity = capacity
    }

    /// The gates with a call under way on the calling thread, one element per call.
    static func gatesOnThisThread() -> [ObjectIdentifier] {
        guard let pointer = pthread_getspecific(key) else { return [] }
        let calls = pointer.assumingMemoryBound(to: Calls.self).pointee
        return (0..<calls.count).map { index in
            ObjectIdentifier(Unmanaged<CallGate>.fromOpaque(calls.gates[index]).takeUnretainedValue())
        }
    }
}

/// The threads waiting for calls to end, and the one condition they wait on.
///
/// Each waiter publishes the gate it waits for and the calls it is itself making. A waiter does not
/// wait for calls made by threads that (directly or through other waiters) wait for one of its own
/// calls, since those cannot end before it returns; so waits never form a cycle.
///
/// `@unchecked Sendable`: `waiters` is read and written only while `condition` is locked.
final class CallWaits: @unchecked Sendable {
    static let shared = CallWaits()

    private final class Waiter {
        let gate: ObjectIdentifier
        let making: [ObjectIdentifier]

        init(gate: ObjectIdentifier, making: [ObjectIdentifier]) {
            self.gate = gate
            self.making = making
        }
    }

    private let condition = NSCondition()
    private var waiters: [Waiter] = []

    func wait(for gate: CallGate) {
        let id = ObjectIdentifier(gate)
        let me = Waiter(gate: id, making: CallStack.gatesOnThisThread())
        condition.lock()
        defer { condition.unlock() }
        gate.markWaited()
        waiters.append(me)
        // Waiters that wait for one of this thread's calls stop waiting for the calls it waits for.
        condition.broadcast()
        while gate.callsUnderWay > callsThatCannotEndFirst(of: id, for: me) {
            condition.wait()
        }
        waiters.removeAll { $0 === me }
        condition.broadcast()
    }

    func callEnded() {
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// Calls to `gate` that cannot end before `me` returns: its own, and those of the waiters that
    /// wait, directly or through other waiters, for a call `me` makes.
    private func callsThatCannotEndFirst(of gate: ObjectIdentifier, for me: Waiter) -> Int {
        var blocked: Set<ObjectIdentifier> = Set(me.making)
        var stuck: [Waiter] = []
        var found = true
        while found {
            found = false
            for waiter in waiters where waiter !== me && !stuck.contains(where: { $0 === waiter }) {
                if blocked.contains(waiter.gate) {
                    stuck.append(waiter)
                    blocked.formUnion(waiter.making)
                    found = true
                }
            }
        }
        return ([me] + stuck).reduce(0) { total, waiter in total + waiter.making.count { $0 == gate } }
    }
}

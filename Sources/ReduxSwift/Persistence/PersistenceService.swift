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

/// When a ``PersistenceService`` saves after a change.
///
/// Delays are in seconds, from 0 to `.infinity`. An infinite delay never comes due: with
/// `SavePolicy(idleDelay: .infinity, maximumDelay: .infinity)` the service saves only on
/// ``PersistenceService/flush()``, ``PersistenceService/stop()`` or its release.
///
/// The maximum delay wins: an idle delay longer than it is cut to it, so
/// `SavePolicy(idleDelay: .infinity)` saves 10 seconds after a change, and
/// `SavePolicy(idleDelay: 5, maximumDelay: 1)` equals `SavePolicy(idleDelay: 1, maximumDelay: 1)`.
public struct SavePolicy: Sendable, Equatable {
    /// Save once the state has not changed for this many seconds.
    public var idleDelay: Double
    /// Under constant change, save at least this many seconds after the first unsaved change.
    /// A failed save is retried after this delay too.
    public var maximumDelay: Double

    /// Creates a policy.
    ///
    /// ```swift
    /// let policy = SavePolicy(idleDelay: 1, maximumDelay: 5)
    /// ```
    ///
    /// - Parameters:
    ///   - idleDelay: Seconds without a change before saving; 2 by default, as in Flask.
    ///   - maximumDelay: The longest a change waits to be saved, in seconds; 10 by default.
    ///     ``idleDelay`` is cut to it when longer.
    /// - Precondition: Both delays are 0 or more (`.infinity` included) and neither is NaN; a
    ///   negative or NaN delay is a programming error and stops the program.
    public init(idleDelay: Double = 2, maximumDelay: Double = 10) {
        precondition(
            idleDelay >= 0 && maximumDelay >= 0,
            "SavePolicy needs delays of 0 or more, not NaN: idleDelay \(idleDelay), maximumDelay \(maximumDelay)"
        )
        self.idleDelay = min(idleDelay, maximumDelay)
        self.maximumDelay = maximumDelay
    }
}

/// Saves a store's state to a ``StateArchive`` as it changes, the way services observe a store.
///
/// The service observes ``Foundation/NSNotification/Name/stateDidChange`` and saves once the state
/// has been still for ``SavePolicy/idleDelay`` seconds, or at the latest ``SavePolicy/maximumDelay``
/// seconds after the first unsaved change. It saves the store's cached JSON snapshot, the one
/// ``Store/currentState()`` decodes, so a save never encodes the state a second time.
///
/// ```swift
/// let persistence = PersistenceService(store: AppStore.shared, archive: AppStore.archive)
///
/// // Before the app is suspended or quits:
/// try persistence.flush()
/// ```
///
/// ``flush()`` saves at once and returns when the bytes are durable. ``stop()``, or releasing the
/// service, stops observing and saves whatever has not been saved, on the calling thread: when the
/// last reference to the service goes away, the save is durable before that release returns. Each
/// save covers every action dispatched before it started; a state already saved is not written
/// again.
///
/// Store code (a reducer, a middleware, a state's `encode(to:)`) must never wait for the store, so
/// there a flush, a stop or the last release returns at once, before anything is saved: it
/// schedules the save on the service's queue, where it runs once the action under way has
/// finished and saves the committed state as of then, that action included unless it failed. A
/// failure of that save goes to `onError`, and is retried after ``SavePolicy/maximumDelay``
/// unless the service was stopped or released.
///
/// Timed saves run on the service's own serial queue, at the utility QoS, never on the store's
/// threads. A failed save is reported to the `onError` handler and retried after
/// ``SavePolicy/maximumDelay``; the archive keeps the last state that was saved.
public final class PersistenceService<State: StateProtocol>: Sendable {
    /// The store whose state is saved.
    public let store: Store<State>
    /// Where it is saved.
    public let archive: StateArchive<State>
    /// When it is saved.
    public let policy: SavePolicy

    /// The observer, timers and saves. The store's observer and the timers reach it weakly and the
    /// service alone holds it strongly, so only the service's owners keep the service alive: its
    /// last release runs `deinit` on the releasing thread, never later on a delivery or timer
    /// thread that happened to be calling into it. (A save that store code scheduled holds the
    /// saver, not the service, until it has run.)
    private let saver: Saver<State>

    /// Creates a service and starts observing `store`.
    ///
    /// ```swift
    /// let persistence = PersistenceService(
    ///     store: AppStore.shared, archive: AppStore.archive, policy: SavePolicy(idleDelay: 1),
    ///     onError: { error in print(error) })
    /// ```
    ///
    /// The service treats the store's initial state (restored from `archive` or a default) as
    /// saved; if `store` has already changed since, it schedules a save.
    ///
    /// - Parameters:
    ///   - store: The store to save.
    ///   - archive: Where to save it.
    ///   - policy: When to save.
    ///   - onError: Receives each failed save. When `nil`, a debug build reports each as a runtime
    ///     warning (a runtime issue in Xcode, a line on standard error elsewhere), and a release
    ///     build prints one line to standard error: pass a handler that tells the user.
    public convenience init(
        store: Store<State>,
        archive: StateArchive<State>,
        policy: SavePolicy = SavePolicy(),
        onError: (@Sendable (PersistenceError) -> Void)? = nil
    ) {
        self.init(
            store: store, archive: archive, policy: policy, scheduler: DispatchSaveScheduler(),
            onError: onError)
    }

    /// Creates a service that takes its time and timers from `scheduler`; tests pass one whose
    /// clock they move by hand.
    init(
        store: Store<State>,
        archive: StateArchive<State>,
        policy: SavePolicy = SavePolicy(),
        scheduler: any SaveScheduler,
        onError: (@Sendable (PersistenceError) -> Void)? = nil
    ) {
        self.store = store
        self.archive = archive
        self.policy = policy
        saver = Saver(
            store: store, archive: archive, policy: policy, scheduler: scheduler,
            onError: onError ?? { [maximumDelay = policy.maximumDelay] error in
                RuntimeWarning.report(
                    "\(error) The archive keeps the last state saved, and the save is retried in "
                        + "\(maximumDelay) s. Handle failed saves with PersistenceService(store:archive:"
                        + "onError:): tell the user that their latest changes are not saved.",
                    releaseBuildsToo: true)
            })
        saver.start()
    }

    deinit {
        do {
            try saver.stop()
        } catch {
            saver.onError(error)
        }
    }

    /// The error of the most recent save, or `nil` if it succeeded or none has run.
    public var lastError: PersistenceError? {
        saver.saved.lastError
    }

    /// Saves the state now and returns when it is durable.
    ///
    /// The saved state covers every action dispatched before this call.
    ///
    /// Called from store code (a reducer, a middleware, an `encode(to:)`), which must not wait for
    /// the store, it returns at once without saving or throwing: it schedules a save on the
    /// service's queue, which runs once the action under way has finished and saves the committed
    /// state as of then, that action included unless it failed. A failure of that save goes to
    /// `onError` and is retried after ``SavePolicy/maximumDelay``. Called from inside one of this
    /// service's saves (an ``ArchiveBackend`` whose `write(_:)` flushes), it likewise schedules the
    /// save, which runs once that write is done.
    ///
    /// Saves run one at a time, with no lock held while the backend writes: a flush that finds
    /// another save under way waits for it, then saves if the state is newer.
    ///
    /// - Throws: ``PersistenceError``; the archive then keeps the last state saved.
    public func flush() throws(PersistenceError) {
        try saver.saveLatest()
    }

    /// Stops observing the store and saves what has not been saved yet.
    ///
    /// Calling it again does nothing. Releasing the service stops it too, before the release
    /// returns, and reports a failed final save to `onError`.
    ///
    /// Called from store code (a reducer, a middleware, an `encode(to:)`), or when the service's
    /// last release happens there, it stops observing at once but does not save before returning:
    /// like ``flush()`` there, it schedules the final save on the service's queue, to run once
    /// the action under way has finished, and reports a failure of it to `onError`.
    ///
    /// - Throws: ``PersistenceError`` if the final save fails.
    public func stop() throws(PersistenceError) {
        try saver.stop()
    }
}

/// The working part of a ``PersistenceService``: observing, debouncing and saving.
private final class Saver<State: StateProtocol>: Sendable {
    let store: Store<State>
    let archive: StateArchive<State>
    let policy: SavePolicy
    let scheduler: any SaveScheduler
    let onError: @Sendable (PersistenceError) -> Void
    let timing: LockedValue<Timing>
    /// The newest store version known to be durable, and the lock that orders writes.
    let saved: SavedVersion

    init(
        store: Store<State>, archive: StateArchive<State>, policy: SavePolicy, scheduler: any SaveScheduler,
        onError: @escaping @Sendable (PersistenceError) -> Void
    ) {
        self.store = store
        self.archive = archive
        self.policy = policy
        self.scheduler = scheduler
        self.onError = onError
        timing = LockedValue(Timing())
        saved = SavedVersion()
    }

    func start() {
        // Closures capture the saver as a non-generic existential: capturing a generic `self` in
        // a `@Sendable` closure would capture `State`'s metatype, which need not be Sendable.
        let token = store.observeChanges { [weak trigger = self as any SaveTrigger] _ in
            trigger?.stateDidChange()
        }
        timing.withLock { $0.token = token }
        if store.kernel.committedVersion > 0 { stateDidChange() }
    }

    func stop() throws(PersistenceError) {
        let stopped = timing.withLock { timing -> (ObserverToken?, ScheduledWork?)? in
            guard !timing.isStopped else { return nil }
            timing.isStopped = true
            defer { (timing.token, timing.timer) = (nil, nil) }
            return (timing.token, timing.timer)
        }
        guard let (token, timer) = stopped else { return }
        token?.cancel()
        timer?.cancel()
        try saveLatest()
    }

    // MARK: Debouncing

    func stateDidChange() {
        let now = scheduler.now()
        let request = timing.withLock { $0.recordChange(at: now, policy: policy) }
        if let request { schedule(request) }
    }

    func timerFired(_ id: UInt64) {
        let now = scheduler.now()
        switch timing.withLock({ $0.timerFired(id, at: now, policy: policy) }) {
        case .ignore:
            break
        case .reschedule(let request):
            schedule(request)
        case .save:
            saveReportingFailure { () throws(PersistenceError) in try saveLatest() }
        }
    }

    /// Runs `save`; reports a failure to `onError` and, unless stopped, schedules the retry.
    private func saveReportingFailure(_ save: () throws(PersistenceError) -> Void) {
        do {
            try save()
        } catch {
            onError(error)
            let retry = timing.withLock { $0.saveFailed(at: scheduler.now(), policy: policy) }
            if let retry { schedule(retry) }
        }
    }

    private func schedule(_ request: Timing.Request) {
        let work = scheduler.schedule(at: request.deadline) { [weak trigger = self as any SaveTrigger] in
            trigger?.timerFired(request.id)
        }
        let isCurrent = timing.withLock { $0.attach(work, to: request.id) }
        if !isCurrent { work.cancel() }
    }

    // MARK: Saving

    /// Saves a state that covers every action dispatched before the call; from store code, where
    /// that would mean waiting for the store, or from inside a save (a backend whose `write`
    /// flushes), where it would mean waiting for that save, schedules the save instead and returns
    /// at once.
    func saveLatest() throws(PersistenceError) {
        // Store code gets a snapshot without waiting, so an old one (the last a reader happened to
        // read), never the action under way: saving it would lose that action and everything since.
        guard StoreCodeScope.current == nil else {
            scheduleDeferredSave()
            return
        }
        try saveNow()
    }

    /// Schedules a save on the scheduler's queue, at once: there it may wait for the store, so its
    /// snapshot covers the action under way, committed, and for the save under way, so that it
    /// writes after it. The work holds the saver strongly, so the save runs even when store code
    /// released the service. Requests made before the work starts share it, since it takes its
    /// snapshot only then.
    private func scheduleDeferredSave() {
        guard timing.withLock({ $0.requestDeferredSave() }) else { return }
        let trigger: any SaveTrigger = self
        _ = scheduler.schedule(at: scheduler.now()) { trigger.saveDeferred() }
    }

    func saveDeferred() {
        timing.withLock { $0.startDeferredSave() }
        saveReportingFailure { () throws(PersistenceError) in try saveNow() }
    }

    private func saveNow() throws(PersistenceError) {
        // It covers every action dispatched before this call, the promise of `flush()`.
        let snapshot = store.kernel.latestSnapshot()
        let outcome = try saved.write(snapshot.version, lendingPriority: scheduler.lendPriority) {
            () throws(PersistenceError) in
            // A version the save decoded is one a later failing version falls back to, as if a
            // reader had decoded it.
            if try archive.save(snapshot: snapshot, roundTripped: store.kernel.hasRoundTripped(snapshot)) {
                store.kernel.recordRoundTrip(snapshot)
            }
        }
        if outcome == .insideWrite { scheduleDeferredSave() }
    }
}

/// What a saver's observer and timers call, named without the saver's generic parameter.
private protocol SaveTrigger: AnyObject, Sendable {
    func stateDidChange()
    func timerFired(_ id: UInt64)
    func saveDeferred()
}

extension Saver: SaveTrigger {}

/// The newest version written, and the write under way.
///
/// Writes run one at a time, so versions only go up; a write that finds another under way waits
/// for it, then writes only if its version is still newer. No lock is held while writing, because
/// the archive's backend may be the user's (and a state's `init(from:)` runs when underscored
/// keys are left out): a backend whose `write` flushes the service reaches this again, on the same
/// thread, and is told so instead of waiting for itself.
private final class SavedVersion: Sendable {
    private struct Writes {
        var version: UInt64 = 0
        var error: PersistenceError?
        /// The thread writing, while a write is under way.
        var writer: pthread_t?
        /// The threads waiting for that write to end.
        var waiters: [DispatchSemaphore] = []
    }

    /// How a call of ``write(_:lendingPriority:_:)`` ended.
    enum Outcome {
        /// The version, or a newer one, is durable: written by this call or before it.
        case durable
        /// Called on the thread of the write under way, from inside it: nothing was written.
        case insideWrite
    }

    private enum Turn {
        case upToDate
        case insideWrite
        case wait(DispatchSemaphore)
        case write
    }

    private let writes = LockedValue(Writes())

    var lastError: PersistenceError? {
        writes.withLock { $0.error }
    }

    /// Runs `write` unless `newVersion` or a newer one is already durable, once no other write is
    /// under way; a main thread that has to wait first calls `lendPriority`.
    func write(
        _ newVersion: UInt64, lendingPriority lendPriority: () -> Void,
        _ write: () throws(PersistenceError) -> Void
    ) throws(PersistenceError) -> Outcome {
        let thisThread = pthread_self()
        while true {
            let turn = writes.withLock { writes -> Turn in
                if let writer = writes.writer {
                    if pthread_equal(writer, thisThread) != 0 { return .insideWrite }
                    let waiter = DispatchSemaphore(value: 0)
                    writes.waiters.append(waiter)
                    return .wait(waiter)
                }
                guard newVersion > writes.version else { return .upToDate }
                writes.writer = thisThread
                return .write
            }
            switch turn {
            case .upToDate:
                return .durable
            case .insideWrite:
                return .insideWrite
            case .wait(let waiter):
                if MainThread.isCurrent { lendPriority() }
                waiter.wait()
            case .write:
                var failure: PersistenceError?
                do {
                    try write()
                } catch {
                    failure = error
                }
                let waiters = writes.withLock { writes -> [DispatchSemaphore] in
                    writes.writer = nil
                    if failure == nil { writes.version = newVersion }
                    writes.error = failure
                    defer { writes.waiters.removeAll() }
                    return writes.waiters
                }
                for waiter in waiters { waiter.signal() }
                if let failure { throw failure }
                return .durable
            }
        }
    }
}

/// The debounce bookkeeping of a ``PersistenceService``: pure, behind the service's lock.
struct Timing {
    /// A timer to start: run `timerFired(id)` at `deadline`.
    struct Request: Equatable {
        let id: UInt64
        let deadline: Double
    }

    enum Firing: Equatable {
        /// A stale or cancelled timer, or nothing left to save.
        case ignore
        /// Not due yet: start this timer instead.
        case reschedule(Request)
        /// Save now.
        case save
    }

    var token: ObserverToken?
    var timer: ScheduledWork?
    var isStopped = false
    /// Whether a save asked for by store code, or from inside a save, is scheduled and has not
    /// started yet.
    private(set) var isDeferredSaveScheduled = false
    /// When the oldest unsaved change happened; `nil` when everything is saved.
    private(set) var firstChange: Double?
    private(set) var lastChange: Double = 0
    /// After a failed save, no retry before this time.
    private(set) var retryAfter: Double?
    /// The timer that is running, if any.
    private(set) var pending: Request?
    private var nextID: UInt64 = 0

    /// When the unsaved changes are due to be saved; `nil` when everything is saved, or when the
    /// policy's delays are infinite and only a flush or stop saves.
    func deadline(_ policy: SavePolicy) -> Double? {
        guard let firstChange else { return nil }
        let due = min(lastChange + policy.idleDelay, firstChange + policy.maximumDelay)
        let deadline = max(due, retryAfter ?? due)
        return deadline.isFinite ? deadline : nil
    }

    /// Records a change; returns a timer to start if none is running.
    mutating func recordChange(at now: Double, policy: SavePolicy) -> Request? {
        guard !isStopped else { return nil }
        if firstChange == nil { firstChange = now }
        lastChange = max(lastChange, now)
        // A running timer fires no later than the new deadline, which only moves later while
        // changes keep coming; when it fires it looks again.
        guard pending == nil, let deadline = deadline(policy) else { return nil }
        return makeRequest(deadline)
    }

    mutating func timerFired(_ id: UInt64, at now: Double, policy: SavePolicy) -> Firing {
        guard pending?.id == id else { return .ignore }
        pending = nil
        timer = nil
        guard !isStopped, let deadline = deadline(policy) else { return .ignore }
        if now < deadline { return .reschedule(makeRequest(deadline)) }
        firstChange = nil
        return .save
    }

    /// Marks the state unsaved again after a failed save; returns the retry's timer.
    mutating func saveFailed(at now: Double, policy: SavePolicy) -> Request? {
        guard !isStopped else { return nil }
        retryAfter = now + policy.maximumDelay
        if firstChange == nil { firstChange = now }
        guard pending == nil, let deadline = deadline(policy) else { return nil }
        return makeRequest(deadline)
    }

    /// Records a save asked for by store code or from inside a save; `false` when one is scheduled
    /// and not started, so that it serves this request too.
    mutating func requestDeferredSave() -> Bool {
        defer { isDeferredSaveScheduled = true }
        return !isDeferredSaveScheduled
    }

    /// The scheduled save starts: a request from now on needs another.
    mutating func startDeferredSave() {
        isDeferredSaveScheduled = false
    }

    /// Keeps the handle of the timer started for `id`; `false` if that timer is no longer wanted.
    mutating func attach(_ work: ScheduledWork, to id: UInt64) -> Bool {
        guard pending?.id == id, !isStopped else { return false }
        timer = work
        return true
    }

    private mutating func makeRequest(_ deadline: Double) -> Request {
        nextID += 1
        let request = Request(id: nextID, deadline: deadline)
        pending = request
        return request
    }
}

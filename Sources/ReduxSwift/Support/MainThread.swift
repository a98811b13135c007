import Foundation

/// Whether the calling code runs on the main thread or the main queue: on Linux, the main queue can
/// be run by another thread (under `dispatchMain()`, or by Swift Testing's main actor).
enum MainThread {
    /// Set on the main queue once, the first time a waiter asks.
    private static let queueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isCurrent: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: queueKey) == true
    }
}

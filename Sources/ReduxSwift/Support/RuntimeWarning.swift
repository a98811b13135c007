import Foundation

#if canImport(os)
import os
#endif

/// Reports a mistake in the app's use of the store that the store survives, such as dispatching
/// one ``AsyncAction`` value twice: in debug builds, loudly, where a developer looks, and to the
/// listeners tests register, in every build.
///
/// On Apple platforms the warning is a fault in the `com.apple.runtime-issues` log subsystem,
/// which Xcode shows as a runtime issue beside the code, without stopping the app; elsewhere it
/// is one line on standard error.
enum RuntimeWarning {
    /// Listeners of every warning, by registration; tests add one to see what is reported.
    static let listeners = LockedValue<[UInt64: @Sendable (String) -> Void]>([:])
    private static let nextListener = LockedValue<UInt64>(0)

    /// Reports `message`: in debug builds where a developer looks, and to the listeners in every
    /// build.
    ///
    /// `releaseBuildsToo` writes the message to standard error in release builds as well: for
    /// failures that lose the user's data unless the app acts, which no build may keep quiet.
    static func report(_ message: String, releaseBuildsToo: Bool = false) {
        #if !DEBUG
        if releaseBuildsToo { writeLineToStandardError("ReduxSwift: \(message)") }
        #endif
        #if DEBUG
        #if canImport(os)
        os_log(
            .fault, dso: #dsohandle,
            log: OSLog(subsystem: "com.apple.runtime-issues", category: "ReduxSwift"),
            "%@", message as NSString)
        #else
        writeLineToStandardError("ReduxSwift: warning: \(message)")
        #endif
        #endif
        for listener in listeners.withLock({ Array($0.values) }) { listener(message) }
    }

    /// Adds a listener; the returned number removes it with ``removeListener(_:)``.
    static func addListener(_ listener: @escaping @Sendable (String) -> Void) -> UInt64 {
        let id = nextListener.withLock { next -> UInt64 in
            next += 1
            return next
        }
        listeners.withLock { $0[id] = listener }
        return id
    }

    static func removeListener(_ id: UInt64) {
        _ = listeners.withLock { $0.removeValue(forKey: id) }
    }
}

/// The platform the library runs on, as far as its storage limits and locations differ.
///
/// The figures that depend on it are pure functions of a `Platform`, so that a test on any
/// platform can check the figure of every other one; only ``current`` asks the compiler.
enum Platform: CaseIterable, Sendable {
    case iOS
    case macCatalyst
    case macOS
    case visionOS
    case tvOS
    case watchOS
    /// Linux, Windows, Android and any other platform that is not Apple's.
    case other

    /// The platform this code was compiled for.
    static var current: Platform {
        #if targetEnvironment(macCatalyst)
        return .macCatalyst
        #elseif os(iOS)
        return .iOS
        #elseif os(macOS)
        return .macOS
        #elseif os(visionOS)
        return .visionOS
        #elseif os(tvOS)
        return .tvOS
        #elseif os(watchOS)
        return .watchOS
        #else
        return .other
        #endif
    }
}

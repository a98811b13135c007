import Foundation

/// Reads the contents of an `NSArray` or `NSDictionary` one level deep, as Apple platforms do.
///
/// On Linux, swift-corelibs-foundation converts each element it hands out to a Swift value, and an
/// element that is itself an `NSArray` or `NSDictionary` is converted with everything inside it: a
/// collection that contains itself, which a migration can build, makes that conversion recurse
/// until the stack overflows. These functions hand out a nested collection as the object it is,
/// so that the caller can walk it one level at a time and notice that it contains itself.
enum FoundationCollection {
    /// The elements of `array`, in order; an element that is a Foundation collection is that object.
    static func elements(of array: NSArray) -> [Any] {
        #if canImport(ObjectiveC)
        // Apple platforms bridge lazily: iterating hands out each element as the object it is.
        return array.map { $0 }
        #else
        // The mirror of an NSArray holds the objects it stores, unconverted.
        let stored = Mirror(reflecting: array).children.map(\.value)
        guard stored.count == array.count else { return (0..<array.count).map(array.object(at:)) }
        return stored.map(shallowlyConverted)
        #endif
    }

    /// The keys and values of `dictionary`; a value that is a Foundation collection is that object.
    static func members(of dictionary: NSDictionary) -> [(Any, Any)] {
        #if canImport(ObjectiveC)
        return dictionary.map { ($0.key, $0.value) }
        #else
        // `allKeys` and `allValues` return the stored objects, unconverted, in the same order: both
        // read the same Swift dictionary.
        let keys = dictionary.allKeys
        let values = dictionary.allValues
        guard keys.count == dictionary.count, values.count == keys.count else {
            return keys.map { ($0, dictionary.object(forKey: $0) ?? NSNull()) }
        }
        return zip(keys.map(shallowlyConverted), values.map(shallowlyConverted)).map { ($0, $1) }
        #endif
    }

    #if !canImport(ObjectiveC)
    /// A stored object as swift-corelibs-foundation hands it out (an `NSString` as a `String`, a
    /// boxed Swift value as that value), except that a Foundation collection stays as it is.
    private static func shallowlyConverted(_ object: Any) -> Any {
        if object is NSArray || object is NSDictionary { return object }
        return NSArray(object: object).object(at: 0)
    }
    #endif
}

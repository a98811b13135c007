import Foundation

/// Gives memory that was freed back to the system where the allocator keeps it, after a large
/// snapshot is encoded or decoded.
///
/// `JSONEncoder` builds a tree of the whole state before it writes the bytes: for a state of
/// 15 MB of JSON, about 60 MB of small blocks, freed when the encoding ends. glibc's allocator
/// keeps freed blocks in the arena of the thread that freed them, and a store encodes on whichever
/// thread holds the state at the time, so each thread's arena kept a tree's worth of memory
/// resident, and `JSONDecoder`'s work space stayed in the reading thread's: after a launch and one
/// action, the process held 1.8 times the memory of a `JSONEncoder` and `JSONDecoder` round trip
/// of the same state (1.17 times with this). Apple platforms' allocator returns such memory by
/// itself.
enum MemoryRelease {
    /// The snapshot size from which an encoding returns freed memory: below it, the tree is small
    /// enough to keep, and trimming would cost more than it gives back.
    static let threshold = 4 << 20

    /// glibc's `malloc_trim`, which the Glibc module does not export (it is declared in
    /// `malloc.h`); `nil` on every other C library.
    private static let trim: (@convention(c) (Int) -> Int32)? = {
        #if os(Linux)
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }()

    /// Returns the free memory of every arena to the system, where the C library can.
    static func returnFreedMemory() {
        _ = trim?(0)
    }
}

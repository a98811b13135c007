/// How deep arrays and objects may nest in the JSON a store writes and reads.
///
/// One limit for every part of the library: snapshots, change sets and archives. It is the deepest
/// nesting `JSONDecoder` and `JSONSerialization` read back: 512 levels are read, a 513th is
/// refused. A scalar inside the 512th level adds no level.
enum JSONNesting {
    /// The deepest nesting of arrays and objects that round-trips.
    static let limit = 512
}

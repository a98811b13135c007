/// How deep arrays and objects may nest in the JSON a store writes and reads.
enum JSONNesting {
    /// The deepest nesting of a state: what `JSONEncoder` writes (it refuses 512 levels), and so
    /// what snapshots and change sets allow. A scalar inside the deepest container adds no level.
    static let limit = 511
    /// The deepest nesting `JSONDecoder` and `JSONSerialization` read back: 512 levels are read, a
    /// 513th is refused. An archive's envelope adds one level around a state of at most ``limit``,
    /// so whatever a save writes, a load reads.
    static let readLimit = limit + 1
}

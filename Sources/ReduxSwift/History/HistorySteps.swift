import Foundation

/// The steps of a history: the encoded state at the current position, and between each two
/// neighbouring steps only the bytes that differ.
///
/// Neighbouring states usually differ in a small region of their JSON (one toggle changes four or
/// five bytes of a megabyte), so a step costs the size of its change, not of the state. Moving one
/// step rebuilds the neighbour's JSON from the current one in one copy.
struct HistorySteps {
    /// `deltas[i]` turns step `i` into step `i + 1` and back.
    private var deltas: [HistoryDelta] = []
    /// The JSON of the step at `position`; `nil` while empty.
    private var current: Data?
    private(set) var position = 0
    private(set) var byteCount = 0

    var count: Int { current == nil ? 0 : deltas.count + 1 }

    /// Adds `data` as the newest step after the current one, dropping the redo steps, then the
    /// oldest steps beyond `limit`.
    mutating func append(_ data: Data, limit: HistoryLimit) {
        guard let current else {
            self.current = data
            byteCount = data.count
            position = 0
            return
        }
        if position < deltas.count {
            byteCount -= deltas[position...].reduce(0) { $0 + $1.byteCount }
            deltas.removeSubrange(position...)
        }
        let delta = HistoryDelta(from: current, to: data)
        deltas.append(delta)
        byteCount += delta.byteCount - current.count + data.count
        self.current = data
        position = deltas.count
        while count > limit.steps || (byteCount > limit.bytes && count > 1) {
            byteCount -= deltas.removeFirst().byteCount
            position -= 1
        }
    }

    /// The JSON of step `target`, rebuilt from the current step.
    func state(at target: Int) -> Data? {
        guard var data = current, (0..<count).contains(target) else { return nil }
        var step = position
        while step > target {
            data = deltas[step - 1].older(from: data)
            step -= 1
        }
        while step < target {
            data = deltas[step].newer(from: data)
            step += 1
        }
        return data
    }

    /// Makes `target`, whose JSON is `data`, the current step.
    mutating func move(to target: Int, state data: Data) {
        guard let current else { return }
        byteCount += data.count - current.count
        self.current = data
        position = target
    }
}

/// The difference between two neighbouring steps: they share `prefix` leading and `suffix`
/// trailing bytes, and differ in the middle.
struct HistoryDelta {
    let prefix: Int
    let suffix: Int
    /// The older step's middle bytes.
    let olderMiddle: Data
    /// The newer step's middle bytes.
    let newerMiddle: Data

    /// What the delta keeps, counting its two lengths.
    var byteCount: Int { olderMiddle.count + newerMiddle.count + 2 * MemoryLayout<Int>.size }

    init(from older: Data, to newer: Data) {
        let (prefix, suffix) = older.withUnsafeBytes { older in
            newer.withUnsafeBytes { newer in HistoryDelta.commonEnds(older, newer) }
        }
        self.prefix = prefix
        self.suffix = suffix
        // Copies, so that a delta never keeps a whole state's buffer alive.
        olderMiddle = Data(older[(older.startIndex + prefix)..<(older.endIndex - suffix)])
        newerMiddle = Data(newer[(newer.startIndex + prefix)..<(newer.endIndex - suffix)])
    }

    func older(from newer: Data) -> Data { splice(newer, newerMiddle.count, olderMiddle) }

    func newer(from older: Data) -> Data { splice(older, olderMiddle.count, newerMiddle) }

    /// Replaces the middle of `data` (of `middleCount` bytes after the prefix) with `middle`.
    private func splice(_ data: Data, _ middleCount: Int, _ middle: Data) -> Data {
        var result = Data(capacity: prefix + middle.count + suffix)
        result.append(data[data.startIndex..<(data.startIndex + prefix)])
        result.append(middle)
        result.append(data[(data.startIndex + prefix + middleCount)..<data.endIndex])
        return result
    }

    /// The lengths of the common prefix and of the common suffix that does not overlap it.
    private static func commonEnds(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> (Int, Int) {
        let common = min(a.count, b.count)
        var prefix = 0
        while prefix < common, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < common - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        return (prefix, suffix)
    }
}

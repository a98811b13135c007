import Dispatch
import Foundation

/// Nanoseconds since an arbitrary point, from a monotonic clock.
func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Seconds spent running `body`.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = now()
    try body()
    return Double(now() - start) / 1e9
}

/// The median, minimum and maximum of repeated measurements.
struct Summary: Encodable, Sendable {
    let median: Double
    let min: Double
    let max: Double

    init(_ samples: [Double]) {
        precondition(!samples.isEmpty, "a summary needs samples")
        let sorted = samples.sorted()
        let middle = sorted.count / 2
        median = sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
        min = sorted[0]
        max = sorted[sorted.count - 1]
    }

    func map(_ transform: (Double) -> Double) -> Summary {
        let values = [transform(median), transform(min), transform(max)]
        return Summary(median: values[0], min: values.min()!, max: values.max()!)
    }

    private init(median: Double, min: Double, max: Double) {
        self.median = median
        self.min = min
        self.max = max
    }
}

/// Runs each variant once as a warm-up, then `repetitions` times, interleaving the variants so
/// machine noise hits all of them alike. Each variant returns the quantity it measured.
func measureInterleaved(repetitions: Int, _ variants: [() throws -> Double]) throws -> [Summary] {
    var samples = Array(repeating: [Double](), count: variants.count)
    for repetition in 0...repetitions {
        for (index, variant) in variants.enumerated() {
            let value = try variant()
            if repetition > 0 { samples[index].append(value) }
        }
    }
    return samples.map(Summary.init)
}

/// A scenario's figures, one row of the table and one object of the JSON output.
struct Result: Encodable {
    /// Number and name, such as "1 100k increments, 1 observer".
    let scenario: String
    /// What `reduxswift` and `baseline` count, such as "actions/s".
    let unit: String
    let reduxswift: Double
    @NullWhenAbsent var baseline: Double?
    /// `reduxswift / baseline`, or the quantity the target bounds when there is no baseline.
    @NullWhenAbsent var ratio: Double?
    /// The bar, as text.
    let target: String
    let meets: Bool
    /// What the baseline is.
    @NullWhenAbsent var baselineName: String?
    let reduxswiftMin: Double
    let reduxswiftMax: Double
    @NullWhenAbsent var baselineMin: Double?
    @NullWhenAbsent var baselineMax: Double?
    /// Context for reading the figure, such as the limit loop measured in the same run.
    @NullWhenAbsent var note: String?

    init(
        scenario: String, unit: String, reduxswift: Summary, baseline: Summary?, baselineName: String?,
        ratio: Double?, target: String, meets: Bool, note: String? = nil
    ) {
        self.scenario = scenario
        self.unit = unit
        self.reduxswift = reduxswift.median
        self.reduxswiftMin = reduxswift.min
        self.reduxswiftMax = reduxswift.max
        self.baseline = baseline?.median
        self.baselineMin = baseline?.min
        self.baselineMax = baseline?.max
        self.baselineName = baselineName
        self.ratio = ratio
        self.target = target
        self.meets = meets
        self.note = note
    }
}

/// An optional that the synthesized encoding writes as `null` when absent instead of leaving its
/// key out, so that every object of the JSON output has the same keys.
@propertyWrapper
struct NullWhenAbsent<Value: Encodable>: Encodable {
    var wrappedValue: Value?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

/// A wrong result: the harness reports it and exits non-zero, whatever the timings.
struct WrongResult: Error, CustomStringConvertible {
    let description: String
}

/// Fails the scenario unless `condition` holds.
func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw WrongResult(description: message()) }
}

/// A one-shot signal with a timeout, for waiting on work done on other threads.
final class Signal: @unchecked Sendable {
    // `@unchecked Sendable`: a `DispatchSemaphore` is thread-safe.
    private let semaphore = DispatchSemaphore(value: 0)

    func fire() { semaphore.signal() }

    /// Waits for `fire()`; throws a `WrongResult` after `timeout` seconds.
    func wait(timeout: Double = 600, _ what: String) throws {
        if semaphore.wait(timeout: .now() + timeout) == .timedOut {
            throw WrongResult(description: "timed out waiting for \(what)")
        }
    }
}

/// Asks the allocator to return freed pages to the system, so that resident memory reflects what
/// is still allocated rather than what the allocator keeps cached for reuse. glibc's `malloc_trim`
/// is looked up at run time because Swift's Glibc module does not import `malloc.h`.
func returnFreedMemoryToTheSystem() {
    #if os(Linux)
    typealias MallocTrim = @convention(c) (Int) -> Int32
    if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }
    #endif
}

/// Resident memory of this process, in bytes.
func residentMemory() -> Int {
    #if os(Linux)
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    #elseif canImport(Darwin)
    var info = mach_task_basic_info()
    var count = mach_msg_type_number_t(MemoryLayout<mach_task_basic_info>.size / MemoryLayout<natural_t>.size)
    let status = withUnsafeMutablePointer(to: &info) {
        $0.withMemoryRebound(to: integer_t.self, capacity: Int(count)) {
            task_info(machTaskSelf, task_flavor_t(MACH_TASK_BASIC_INFO), $0, &count)
        }
    }
    return status == KERN_SUCCESS ? Int(info.resident_size) : 0
    #else
    return 0
    #endif
}

import Foundation

/// Names the number that `JSONDecoder` could not fit into the type it decoded it as, and where it
/// is.
///
/// For a number that does not fit (`1e400` for any type, `1.5` or `18446744073709551615` for an
/// `Int`, `300` for a `UInt8`), Foundation's `JSONDecoder` throws `DecodingError.dataCorrupted`
/// with no coding path and the message "The given data was not valid JSON.", although it is.
/// ``explain(_:in:under:budget:decode:)`` decodes again with numbers replaced by `0`, which every
/// number type holds. When that succeeds, a number was the cause, and bisection finds the first
/// one: it decodes with all but the first `k` numbers replaced, halving the range of `k` each
/// time, so it decodes once per halving of the count of numbers. It runs only after a load has
/// failed, and only when the bytes it would decode stay within ``searchBudget``; past it, the
/// error says that a number does not fit without naming it.
enum UnfitNumber {
    /// The most bytes a search decodes in all: about two seconds' work for `JSONDecoder` on Linux,
    /// less on Apple platforms, and enough for an archive of a megabyte or so.
    static let searchBudget = 32 << 20

    /// `error` with the unfit number and its coding path, when `error` is `JSONDecoder`'s report
    /// of a number that does not fit; otherwise `error` itself.
    ///
    /// - Parameters:
    ///   - error: What `decode` threw for `data`.
    ///   - data: Valid JSON.
    ///   - prefix: Where the decoded value is in `data`: only numbers under it are replaced.
    ///   - budget: The most bytes to decode in a search for the number.
    ///   - decode: Decodes `data` as it did when it threw `error`.
    static func explain(
        _ error: any Error, in data: Data, under prefix: [JSONPathComponent], budget: Int = searchBudget,
        decode: (Data) throws -> Void
    ) -> any Error {
        guard isPathlessDataCorruption(error), let tree = try? JSONValue(parsing: data) else { return error }
        // Integers from 0 to 127 fit every number type, so they are never the cause. The suspects
        // are in the order `mappingNumbers` visits them.
        var suspects: [(path: [JSONPathComponent], text: String)] = []
        var path: [JSONPathComponent] = []
        _ = tree.mappingNumbers(under: prefix[...], path: &path) { path, text in
            if !fitsEveryNumberType(text) { suspects.append((path, text)) }
            return text
        }
        /// Whether decoding fails alike when only the first `count` suspects are kept.
        func failsAlike(keeping count: Int) -> Bool {
            var seen = 0
            var path: [JSONPathComponent] = []
            let zeroed = tree.mappingNumbers(under: prefix[...], path: &path) { _, text in
                guard !fitsEveryNumberType(text) else { return text }
                seen += 1
                return seen > count ? "0" : text
            }
            do {
                try decode(zeroed.data)
                return false
            } catch {
                return isPathlessDataCorruption(error)
            }
        }
        // With every suspect 0 the failure must be gone; if it is not, no number is its cause.
        guard !suspects.isEmpty, !failsAlike(keeping: 0) else { return error }
        // The bisection decodes ⌈log₂ n⌉ times for n suspects.
        let halvings = Int.bitWidth - (suspects.count - 1).leadingZeroBitCount
        let searched = data.count.multipliedReportingOverflow(by: halvings)
        guard !searched.overflow, searched.partialValue <= budget else {
            return DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [],
                    debugDescription: "A number does not fit the type of the field it is decoded as (a "
                        + "fraction in a field of an integer type, or a number outside the range of the "
                        + "field's type); the archive is too large to search for which one"))
        }
        // Keeping the first `passing` suspects decodes; keeping the first `failing` does not.
        var passing = 0
        var failing = suspects.count
        while failing - passing > 1 {
            let middle = passing + (failing - passing) / 2
            if failsAlike(keeping: middle) { failing = middle } else { passing = middle }
        }
        // Keeping this number as well brought the failure back: it is the first that does not fit.
        let (unfitPath, text) = suspects[failing - 1]
        return DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: unfitPath.map(\.codingKey),
                debugDescription: "The number \(text) does not fit the type of this field: \(reason(text))."))
    }

    /// Whether the number written as `text` is an integer from 0 to 127 (or `-0`).
    private static func fitsEveryNumberType(_ text: String) -> Bool {
        let text = text.utf8
        let digits = text.first == UInt8(ascii: "-") ? text.dropFirst() : text[...]
        guard !digits.isEmpty, digits.count <= 3,
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return false }
        let value = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return text.first == UInt8(ascii: "-") ? value == 0 : value <= 127
    }

    /// Whether `error` is what `JSONDecoder` throws for JSON it cannot read, and for a number that
    /// does not fit.
    private static func isPathlessDataCorruption(_ error: any Error) -> Bool {
        guard case DecodingError.dataCorrupted(let context) = error else { return false }
        return context.codingPath.isEmpty
    }

    /// Why a number written as `text` may not fit.
    private static func reason(_ text: String) -> String {
        guard let value = Double(text), value.isFinite else {
            return "it is beyond the range of every number type JSONDecoder reads"
        }
        if value == value.rounded(.towardZero) {
            return "it is outside the range of the field's type"
        }
        if abs(value) >= Double(Float.leastNormalMagnitude) {
            return "it has a fraction, which an integer type cannot hold"
        }
        return "it has a fraction, which an integer type cannot hold, and is too close to 0 for a Float "
            + "or a Decimal"
    }
}

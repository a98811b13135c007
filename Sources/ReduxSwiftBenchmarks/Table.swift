import Foundation

/// Renders results as a Markdown table, as the README shows them.
enum Table {
    static func format(_ value: Double) -> String {
        switch abs(value) {
        case 0: return "0"
        case 100_000...: return String(format: "%.3g", value).replacingOccurrences(of: "e+0", with: "e")
        case 100...: return String(format: "%.0f", value)
        case 1...: return String(format: "%.2f", value)
        default: return String(format: "%.3f", value)
        }
    }

    static func row(_ result: Result) -> String {
        let baseline = result.baseline.map { "\(format($0)) (\(result.baselineName ?? "baseline"))" } ?? "—"
        let ratio = result.ratio.map { format($0) + "×" } ?? "—"
        let note = result.note.map { "\n    \($0)" } ?? ""
        return "\(result.meets ? "✔" : "✘") \(result.scenario): \(format(result.reduxswift)) \(result.unit) "
            + "[\(format(result.reduxswiftMin))–\(format(result.reduxswiftMax))], baseline \(baseline), "
            + "ratio \(ratio), target \(result.target)\(note)"
    }

    static func render(_ results: [Result]) -> String {
        var lines = [
            "| # | unit | ReduxSwift (median [min–max]) | baseline (median) | ratio | target | meets |",
            "|---|---|---|---|---|---|---|",
        ]
        for result in results {
            let baseline = result.baseline.map { "\(format($0)) \(result.baselineName ?? "")" } ?? "—"
            let ratio = result.ratio.map { format($0) + "×" } ?? "—"
            lines.append(
                "| \(result.scenario) | \(result.unit) | \(format(result.reduxswift)) "
                    + "[\(format(result.reduxswiftMin))–\(format(result.reduxswiftMax))] | \(baseline) | \(ratio) "
                    + "| \(result.target) | \(result.meets ? "yes" : "**no**") |")
        }
        let notes = results.compactMap { result in result.note.map { "- \(result.scenario): \($0)" } }
        return (lines + (notes.isEmpty ? [] : [""] + notes)).joined(separator: "\n")
    }
}

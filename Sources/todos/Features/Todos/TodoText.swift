import Foundation

/// What a todo's text may hold: one line of printable text.
///
/// Control characters (C0, DEL, C1, which include newlines, tabs and the escapes that drive a
/// terminal), the line and paragraph separators, and the invisible bidirectional marks, embeddings,
/// overrides and isolates are refused on input, so that a title can neither fake a row of the
/// list nor drive the terminal. Text that holds one anyway (an archive edited by hand) is printed
/// with each written as `\u{1B}`.
enum TodoText {
    /// `text` without surrounding whitespace and newlines.
    ///
    /// - Throws: ``TodoError/emptyText`` when nothing is left, ``TodoError/controlCharacter(_:)``
    ///   for the first character that ``isRefused(_:)``.
    static func validated(_ text: String) throws(TodoError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .emptyText }
        if let refused = trimmed.unicodeScalars.first(where: isRefused) { throw .controlCharacter(refused) }
        return trimmed
    }

    /// Whether `scalar` is refused in a title and escaped when printed.
    static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true  // C0 controls, DEL, C1 controls
        case 0x2028, 0x2029: return true  // line and paragraph separators
        case 0x061C, 0x200E, 0x200F: return true  // bidirectional marks: Arabic, left-to-right, right-to-left
        case 0x202A...0x202E, 0x2066...0x2069: return true  // bidirectional embeddings, overrides, isolates
        default: return false
        }
    }

    /// `text` with every refused character written as `\u{1B}`, safe to print on one line.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isRefused) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if isRefused(scalar) {
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `U+001B`, the way the error messages name a character.
    static func name(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

import Foundation
import Testing

@testable import ReduxSwift

/// Builds the migrations an error suggests, as pasting its Swift into an app does: each line of
/// ``PersistenceError/suggestedMigrations`` becomes the `ArchiveMigration` its public initializer
/// makes, with every argument read from the text.
///
/// A line with a placeholder (`<#…#>`) does not compile: `choices` gives, for each placeholder's
/// text, what the developer writes there; a line whose placeholder is chosen as `nil` is deleted.
enum PastedMigrations {
    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    /// The migrations of `text`, an array literal such as `[\n    ArchiveMigration(…),\n]`.
    static func migrations(
        _ text: String, choices: [String: String?] = [:]
    ) throws -> [ArchiveMigration] {
        var lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.first == "[", lines.last == "]" else {
            throw Unreadable(description: "not an array: \(text)")
        }
        lines = Array(lines.dropFirst().dropLast())
        var migrations: [ArchiveMigration] = []
        for line in lines {
            guard line.hasSuffix(",") else { throw Unreadable(description: "no comma after \(line)") }
            if let migration = try migration(String(line.dropLast()), choices: choices) {
                migrations.append(migration)
            }
        }
        return migrations
    }

    /// The migration of one line, or `nil` for a line chosen to be deleted.
    static func migration(_ line: String, choices: [String: String?] = [:]) throws -> ArchiveMigration? {
        var reader = Reader(text: line)
        try reader.expect("ArchiveMigration(")
        var arguments: [(label: String, value: Value)] = []
        while !reader.next(is: ")") {
            if !arguments.isEmpty { try reader.expect(", ") }
            let label = reader.word()
            try reader.expect(": ")
            arguments.append((label, try reader.value(choices: choices)))
        }
        guard reader.isAtEnd else { throw Unreadable(description: "text after the migration: \(line)") }
        if arguments.contains(where: { if case .deleted = $0.value { true } else { false } }) { return nil }
        func string(_ label: String) throws -> String? {
            guard let argument = arguments.first(where: { $0.label == label }) else { return nil }
            guard case .string(let text) = argument.value else {
                throw Unreadable(description: "\(label) is not a string in \(line)")
            }
            return text
        }
        guard case .number(let versionText)? = arguments.first?.value, arguments.first?.label == "from",
            let version = Int(versionText)
        else { throw Unreadable(description: "no version in \(line)") }
        let path = try string("in") ?? ""
        let labels = arguments.map(\.label)
        switch labels.dropFirst().first {
        case "renaming":
            guard let old = try string("renaming"), let new = try string("to") else { break }
            return ArchiveMigration(from: version, renaming: old, to: new, in: path)
        case "removing":
            guard let member = try string("removing") else { break }
            return ArchiveMigration(from: version, removing: member, in: path)
        case "adding":
            guard let member = try string("adding") else { break }
            if let json = try string("json") {
                return ArchiveMigration(from: version, adding: member, json: json, in: path)
            }
            switch arguments.first(where: { $0.label == "value" })?.value {
            case .string(let text)?:
                return ArchiveMigration(from: version, adding: member, value: text, in: path)
            case .bool(let flag)?:
                return ArchiveMigration(from: version, adding: member, value: flag, in: path)
            case .number(let text)?:
                if let integer = Int(text) {
                    return ArchiveMigration(from: version, adding: member, value: integer, in: path)
                }
                if let double = Double(text) {
                    return ArchiveMigration(from: version, adding: member, value: double, in: path)
                }
            default: break
            }
        default: break
        }
        throw Unreadable(description: "not a migration this helper builds: \(line)")
    }

    enum Value {
        case string(String)
        case number(String)
        case bool(Bool)
        case deleted
    }

    struct Reader {
        let text: [Character]
        var index = 0

        init(text: String) { self.text = Array(text) }

        var isAtEnd: Bool { index == text.count }

        mutating func next(is prefix: String) -> Bool {
            let characters = Array(prefix)
            guard text[index...].starts(with: characters) else { return false }
            index += characters.count
            return true
        }

        mutating func expect(_ prefix: String) throws {
            guard next(is: prefix) else {
                throw Unreadable(description: "expected \(prefix) at \(String(text[index...]))")
            }
        }

        mutating func word() -> String {
            let start = index
            while index < text.count, text[index].isLetter { index += 1 }
            return String(text[start..<index])
        }

        mutating func value(choices: [String: String?]) throws -> Value {
            if next(is: "<#") {
                let start = index
                while !next(is: "#>") {
                    guard index < text.count else { throw Unreadable(description: "an open placeholder") }
                    index += 1
                }
                let placeholder = String(text[start..<(index - 2)])
                guard let choice = choices[placeholder] else {
                    throw Unreadable(description: "no choice for the placeholder <#\(placeholder)#>")
                }
                // What is written there: a literal as Swift reads it (`0`, `"[]"`), or else a name,
                // as a string.
                guard let choice else { return .deleted }
                var written = Reader(text: choice)
                if let first = choice.first,
                    "\"#-0123456789".contains(first) || choice == "true" || choice == "false",
                    let value = try? written.value(choices: [:]), written.isAtEnd
                {
                    return value
                }
                return .string(choice)
            }
            if next(is: "true") { return .bool(true) }
            if next(is: "false") { return .bool(false) }
            if index < text.count, text[index] == "\"" || text[index] == "#" { return .string(try string()) }
            let start = index
            while index < text.count, "-+.0123456789eE".contains(text[index]) { index += 1 }
            guard index > start else {
                throw Unreadable(description: "no value at \(String(text[start...]))")
            }
            return .number(String(text[start..<index]))
        }

        /// A Swift string literal, raw (`#"…"#`) or with the escapes `MigrationAdvice` writes.
        mutating func string() throws -> String {
            var hashes = 0
            while next(is: "#") { hashes += 1 }
            try expect("\"")
            let close = "\"" + String(repeating: "#", count: hashes)
            var result = ""
            while !next(is: close) {
                guard index < text.count else { throw Unreadable(description: "an open string") }
                let character = text[index]
                index += 1
                guard hashes == 0, character == "\\" else {
                    result.append(character)
                    continue
                }
                let escaped = text[index]
                index += 1
                switch escaped {
                case "n": result.append("\n")
                case "r": result.append("\r")
                case "t": result.append("\t")
                case "u":
                    try expect("{")
                    let start = index
                    while text[index] != "}" { index += 1 }
                    let scalar = UInt32(String(text[start..<index]), radix: 16).flatMap(Unicode.Scalar.init)
                    index += 1
                    guard let scalar else { throw Unreadable(description: "a bad \\u escape") }
                    result.unicodeScalars.append(scalar)
                default: result.append(escaped)
                }
            }
            return result
        }
    }
}

extension PersistenceError {
    /// The migrations this error suggests, built as pasting them builds them.
    func pastedMigrations(choosing choices: [String: String?] = [:]) throws -> [ArchiveMigration] {
        try PastedMigrations.migrations(try #require(suggestedMigrations), choices: choices)
    }
}

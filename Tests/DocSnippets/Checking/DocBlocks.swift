import Foundation

/// The Swift code blocks of a Markdown document, and a check that each one is code a test target
/// compiles.
///
/// Every ```` ```swift ```` block of the README and of the DocC articles is kept, as written, in a
/// source file of a snippet test target, at file scope or inside a function (a block with
/// statements) or a namespace; a block's `import` lines need only be among the file's imports. ``missingBlocks(in:compiledIn:)`` compares the two line by line,
/// ignoring indentation, blank lines and the width of runs of spaces (swift-format aligns comments
/// differently), so that a block edited in the document and not in its compiled copy, or the other
/// way round, fails the check.
public enum DocBlocks {
    /// One code block: where it starts in its document, and its lines.
    public struct Block: CustomStringConvertible, Sendable {
        /// The document's path, relative to the repository's root.
        public let document: String
        /// The line of the block's first line of code, counting from 1.
        public let line: Int
        /// The block's code, without its fences.
        public let code: String

        /// Where the block is, then its code.
        public var description: String { "\(document):\(line)\n\(code)" }
    }

    /// The repository's root, found from this file's path.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The ```` ```swift ```` blocks of the document at `path` (relative to the root): a Markdown
    /// file, or the `///` comments of a Swift source file.
    public static func swiftBlocks(inDocumentAt path: String) throws -> [Block] {
        var text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        if path.hasSuffix(".swift") {
            // Doc comments only, with their `///` taken off; other lines end any block.
            text = text.components(separatedBy: "\n").map { line in
                let trimmed = line.drop { $0 == " " }
                guard trimmed.hasPrefix("///") else { return "```" }
                let comment = trimmed.dropFirst(3)
                return String(comment.first == " " ? comment.dropFirst() : comment)
            }.joined(separator: "\n")
        }
        var blocks: [Block] = []
        var current: (line: Int, lines: [String])?
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            if let open = current {
                if line.hasPrefix("```") {
                    blocks.append(
                        Block(document: path, line: open.line, code: open.lines.joined(separator: "\n")))
                    current = nil
                } else {
                    current?.lines.append(line)
                }
            } else if line == "```swift" {
                current = (index + 2, [])
            }
        }
        return blocks
    }

    /// A manifest fragment (a block starting `// Package.swift`) is checked by
    /// ``unknownProducts(in:)`` instead: it is not code a target can compile.
    public static func isManifestFragment(_ block: Block) -> Bool {
        block.code.hasPrefix("// Package.swift")
    }

    /// The blocks of `document` (manifest fragments aside) that no file of `files` holds.
    public static func missingBlocks(in document: String, compiledIn files: [String]) throws -> [Block] {
        let compiled = try files.flatMap { path in
            normalized(try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8))
        }
        return try swiftBlocks(inDocumentAt: document).filter { block in
            guard !isManifestFragment(block) else { return false }
            // A file's imports come first, sorted by swift-format: a block's imports need only be
            // among them.
            let lines = normalized(block.code)
            let imports = lines.filter { $0.hasPrefix("import ") }
            let code = lines.filter { !$0.hasPrefix("import ") }
            return !imports.allSatisfy(compiled.contains) || !compiled.containsRun(code)
        }
    }

    /// Product names a manifest fragment names that the package does not declare.
    public static func unknownProducts(in document: String) throws -> [String] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let fragments = try swiftBlocks(inDocumentAt: document).filter(isManifestFragment)
        var unknown: [String] = []
        for fragment in fragments {
            for name in quoted(after: ".product(name: ", in: fragment.code)
            where !manifest.contains(".library(name: \"\(name)\"") {
                unknown.append(name)
            }
        }
        return unknown
    }

    private static func quoted(after prefix: String, in text: String) -> [String] {
        text.components(separatedBy: prefix).dropFirst().compactMap { rest in
            guard rest.hasPrefix("\"") else { return nil }
            return rest.dropFirst().split(separator: "\"", maxSplits: 1).first.map(String.init)
        }
    }

    /// The lines that matter: trimmed, runs of spaces made one, blank lines dropped.
    static func normalized(_ text: String) -> [String] {
        text.components(separatedBy: "\n").compactMap { line in
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            return words.isEmpty ? nil : words.joined(separator: " ")
        }
    }
}

extension Array where Element == String {
    /// Whether `run` occurs in this array as consecutive elements.
    fileprivate func containsRun(_ run: [String]) -> Bool {
        guard !run.isEmpty else { return true }
        guard run.count <= count else { return false }
        return (0...(count - run.count)).contains { start in
            self[start..<(start + run.count)].elementsEqual(run)
        }
    }
}

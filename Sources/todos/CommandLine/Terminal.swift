import Foundation

/// Where `todos` writes: listings to standard output, messages to standard error, each line at once.
///
/// Neither stream is buffered. Standard output is block-buffered when it is not a terminal, so
/// with piped input every listing would come out after every error, and a transcript of both
/// would read out of order.
enum Terminal {
    /// Writes `text` and a newline to standard output.
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data("\(text)\n".utf8))
    }

    /// Writes `todos: message` to standard error.
    static func writeError(_ message: String) {
        FileHandle.standardError.write(Data("todos: \(message)\n".utf8))
    }
}

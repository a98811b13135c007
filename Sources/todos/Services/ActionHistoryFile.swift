import Foundation
import ReduxSwift

/// The app's own recording: every action a launch commits or fails, appended to `actions.jsonl` in
/// the data directory, and the state the first recorded launch started from, `actions-start.json`,
/// so that `todos inspect` can replay them all into a page.
///
/// The files are written while the launch holds the data directory's lock, after the todos are
/// saved. Deleting both starts a new recording from the next launch's state; so does a launch that
/// finds the recording past ``sizeLimit``, so that it never grows without bound.
struct ActionHistoryFile {
    static let linesName = "actions.jsonl"
    static let startName = "actions-start.json"
    /// The size of `actions.jsonl` past which the next launch starts a new recording from its own
    /// state: 1 MiB, thousands of edits.
    static let sizeLimit = 1 << 20

    let directory: URL
    let log: ActionLog
    private let recording: ActionLog.Recording
    private let startState: AppState

    var linesURL: URL { directory.appendingPathComponent(Self.linesName) }
    var startURL: URL { directory.appendingPathComponent(Self.startName) }

    /// The log that knows the app's action types.
    static func makeLog() -> ActionLog {
        let log = ActionLog()
        log.register(TodoAction.self, name: "TodoAction")
        log.register(VisibilityFilterAction.self, name: "VisibilityFilterAction")
        return log
    }

    /// Starts recording `store`, whose state is `state`.
    init(directory: URL, store: AppStore, state: AppState) {
        self.directory = directory
        log = Self.makeLog()
        recording = log.record(store)
        startState = state
    }

    /// Stops recording and appends what was recorded; the first time, once the recording is past
    /// ``sizeLimit``, or when its start state does not read, it writes this launch's start state
    /// and starts the recording anew.
    func save() throws {
        let lines = recording.stop()
        guard !lines.isEmpty else { return }
        let manager = FileManager.default
        let size = (try? manager.attributesOfItem(atPath: linesURL.path)[.size] as? Int) ?? nil
        // A start state that does not read (damaged, or of another app) makes the recording
        // useless: it starts anew too.
        let startReads = (try? JSONDecoder().decode(AppState.self, from: Data(contentsOf: startURL))) != nil
        if !startReads || size.map({ $0 > Self.sizeLimit }) ?? true {
            try JSONEncoder().encode(startState).write(to: startURL, options: .atomic)
            try lines.write(to: linesURL, options: .atomic)
            return
        }
        let handle = try FileHandle(forWritingTo: linesURL)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: lines)
    }

    /// Writes the inspector page of the recording kept in `directory` to `page`, and returns how
    /// many steps it shows.
    static func writePage(from directory: URL, to page: URL) throws(CommandError) -> Int {
        let lines: Data
        let start: AppState
        do {
            lines = try Data(contentsOf: directory.appendingPathComponent(linesName))
            start = try JSONDecoder().decode(
                AppState.self, from: Data(contentsOf: directory.appendingPathComponent(startName)))
        } catch {
            let exists = [linesName, startName].allSatisfy {
                FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path)
            }
            guard exists else {
                throw .dataFileUnusable(
                    "no recording to inspect in \(directory.path): add a todo first (\(linesName) and "
                        + "\(startName) are written by every launch that changes the list)")
            }
            throw .dataFileUnusable(
                "the recording in \(directory.path) does not read (\(error)); the next launch that changes "
                    + "the list starts it anew")
        }
        do {
            return try makeLog().writeInspectorPage(
                of: lines, reducers: TodoReducers.reducers + VisibilityFilterReducers.reducers,
                startingFrom: start, to: page, title: "todos")
        } catch {
            throw .saveFailed("cannot write the inspector page \(page.path): \(error)")
        }
    }
}

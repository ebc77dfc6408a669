import Foundation
import ShelfCommandLine
import ShelfCore
import ShelfJSON
import ShelfWire

/// What `shelf watch` prints, and where: the list and its changes on standard output, messages on standard error,
/// each through a `LinePrinter` (its own thread and bounded queue). It only renders: `WatchModel` decides.
struct WatchScreen: Sendable {
    let json: Bool
    private let out: LinePrinter
    private let err: LinePrinter

    /// Gives the local time to put before each change line (`HH:MM:SS `), or `nil` for none.
    private let clock: (@Sendable () -> String)?

    /// A screen printing to `output`, as JSON lines with `json` (`--json`), each change line after `clock`'s time
    /// and a space when there is one (`LocalTime.now` when standard output is a terminal).
    init(output: Output, json: Bool, clock: (@Sendable () -> String)? = nil) {
        self.json = json
        self.clock = clock
        out = LinePrinter(write: output.out)
        err = LinePrinter(write: output.err)
    }

    /// Shows a list read from the server: its `result`, and the items and revision read from it.
    func showList(_ result: JSONValue, items: [Item], revision: Revision) async {
        if json { return await out.print(TerminalText.json(result) + "\n") }
        var text = ""
        for item in items { text += ItemRow.text(item) + "\n" }
        await out.print(text + ItemRow.summary(items, revision: revision) + "\n")
    }

    /// Shows one change (`WatchModel.describe(_:)`), or the notification as JSON with `json`.
    func show(_ shown: WatchModel.ShownChange) async {
        if json { return await out.print(TerminalText.json(ServerNotification.changed(shown.change).json) + "\n") }
        let stamp = clock.map { $0() + " " } ?? ""
        await out.print(shown.lines.map { stamp + $0 + "\n" }.joined())
    }

    /// Says `message` on standard error after `shelf: `, control characters made visible (a message may quote the
    /// server).
    func say(_ message: String) async {
        await err.print(TerminalText.visibleLines("shelf: " + message) + "\n")
    }

    /// Says why the watch ends: `shelf: MESSAGE`, or with `json` the report's JSON line.
    func fail(_ report: ErrorReport) async {
        if json { return await err.print(report.jsonLine + "\n") }
        await say(report.message)
    }

    /// Ends the printers' threads once they have written what is queued.
    func close() {
        out.close()
        err.close()
    }

    /// Returns once everything shown so far is written, or `limit` has passed (a standard output nobody reads
    /// would hold the exit for ever).
    func flush(within limit: Duration) async {
        let (done, finish) = AsyncStream.makeStream(of: Void.self)
        let printers = [out, err]
        let flushing = Task {
            for printer in printers { await printer.drained() }
            finish.yield()
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            finish.yield()
        }
        var first = done.makeAsyncIterator()
        _ = await first.next()
        flushing.cancel()
        timer.cancel()
    }
}

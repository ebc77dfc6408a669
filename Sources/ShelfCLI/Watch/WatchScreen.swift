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

    /// A screen printing to `output`, as JSON lines with `json` (`--json`).
    init(output: Output, json: Bool) {
        self.json = json
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

    /// Shows one change: `+`, `~` or `-` and the item, or the notification as JSON with `json`.
    func show(_ shown: WatchModel.ShownChange) async {
        if json { return await out.print(TerminalText.json(ServerNotification.changed(shown.change).json) + "\n") }
        let line = switch shown.change.change {
        case .added(let item): "+ \(ItemRow.shortID(item)) \(TerminalText.visible(item.title))"
        case .updated(let item): "~ \(ItemRow.text(item))"
        case .removed(let id): "- \(String(id.wireString.prefix(8)))\(shown.removedTitle.map { " " + TerminalText.visible($0) } ?? "")"
        }
        await out.print(line + "\n")
    }

    /// Says `message` on standard error after `shelf: `, control characters made visible (a message may quote the
    /// server).
    func say(_ message: String) async {
        await err.print(TerminalText.visibleLines("shelf: " + message) + "\n")
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

import Foundation
import ShelfClient
import ShelfCommandLine
import ShelfCore
import ShelfJSON
import ShelfWire

/// `shelf watch`: prints the list, then one line per change as it happens; when the server goes away it says so,
/// reconnects with backoff (at most 5 s between tries) and resumes from the last revision it printed, re-listing
/// after `compacted` or when the server's `run` changed (a restart: the same revision may name another list,
/// protocol/PROTOCOL.md §6). A server that is full (`7 too_many_connections`) is retried like one that is down. A
/// change is printed only if its revision is newer than the last one printed, so nothing is shown twice or out of
/// order.
struct WatchRunner {
    let command: ShelfCommand
    let output: Output
    /// The longest wait between reconnection attempts.
    static let maxBackoff: Duration = .seconds(5)

    /// The last revision printed, and the items as of then (to name removed ones), in the server run that
    /// produced them.
    private struct Shown {
        var revision: Revision
        var items: [UUID: Item]
        var run: String?
    }

    /// Runs until the task is cancelled (Ctrl-C); returns 0 then.
    func run() async -> Int32 {
        var shown: Shown?
        var backoff: Duration = .milliseconds(100)
        // An outage (the server down, full, or not answering) is reported when it starts, and when the server takes
        // a connection again (`hello` answered). Every try after a failure waits the backoff, which starts over only
        // once a watch has lasted `maxBackoff`: a server (or a proxy) that answers and then drops the connection is
        // not retried ten times a second.
        var reported = false
        var connectedBefore = false
        while !Task.isCancelled {
            let client: ShelfClient
            do {
                client = try await ShelfClient.connect(
                    to: command.server, token: try ShelfMain.token(command), timeout: command.timeout)
                try await start(client, shown: &shown) {
                    if reported { output.error("shelf: \(connectedBefore ? "reconnected" : "connected") to \(command.server)") }
                    reported = false
                    connectedBefore = true
                }
            } catch {
                switch error {
                case ClientError.server(let rpc) where rpc.knownCode == .tooManyConnections:
                    if !reported { output.error("shelf: the server is full (\(rpc.message)); retrying") }
                case ClientError.server(let rpc):
                    output.error("shelf: \(ShelfMain.message(for: .server(rpc), command))")
                    return ExitCode.failure.rawValue
                case let failure as TokenFile.Failure:
                    output.error("shelf: \(failure)")
                    return ExitCode.usage.rawValue
                case ClientError.protocolViolation:
                    output.error("shelf: \(error)")
                    return ExitCode.protocolError.rawValue
                case let failure as ClientError:
                    if !reported { output.error("shelf: \(ShelfMain.message(for: failure, command)) (retrying)") }
                default:
                    if !reported { output.error("shelf: \(error); retrying") }
                }
                reported = true
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, Self.maxBackoff)
                continue
            }
            let watching = ContinuousClock.now
            let pinger = command.timeout.map { Self.keepChecking(client, every: $0) }
            await relay(client.notifications, shown: &shown)
            pinger?.cancel()
            let unanswered = await pinger?.value ?? false
            await client.close()
            if Task.isCancelled { break }
            if unanswered, let limit = command.timeout {
                output.error("shelf: no reply from \(command.server) to a ping within \(limit.components.seconds) s; reconnecting")
            } else {
                output.error("shelf: lost the connection to \(command.server); reconnecting")
            }
            reported = true
            if ContinuousClock.now - watching >= Self.maxBackoff { backoff = .milliseconds(100) }
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, Self.maxBackoff)
        }
        return ExitCode.success.rawValue
    }

    /// Pings `client` every `interval` (the `--timeout`) while the watch lasts. Waiting for changes alone would
    /// never notice a server that stopped answering, or a peer gone without a word (a laptop asleep, a dropped
    /// Wi-Fi link: TCP reports nothing to a side that only reads); a ping not answered within the timeout fails
    /// the client, which ends the watch's notifications, and the watch reconnects.
    /// - Returns: the pinging task; its value is true when a ping went unanswered (and it closed the client).
    private static func keepChecking(_ client: ShelfClient, every interval: Duration) -> Task<Bool, Never> {
        Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if Task.isCancelled { return false }
                do {
                    try await client.ping()
                } catch {
                    await client.close()
                    // Told by the error, not by cancellation: the unanswered ping ends the watch's notifications
                    // too, and the watch may cancel this task before it gets here.
                    if case ClientError.noReply = error { return true }
                    return false
                }
            }
            return false
        }
    }

    /// Says hello (then calls `connected`: the server took the connection), lists if needed, then watches from the
    /// last printed revision. A connection that fails here (the server is full, or went away again) leaves `shown`
    /// as it was.
    private func start(_ client: ShelfClient, shown: inout Shown?, connected: () -> Void) async throws {
        let run: String?
        do {
            run = try ResultDecoding.hello(try await client.call(.hello)).run
        } catch {
            await client.close()
            throw error
        }
        connected()
        do {
            guard let current = shown else { return shown = try await listAndWatch(client, run: run) }
            guard current.run == run else {
                output.error("shelf: \(command.server) restarted since revision \(current.revision); listing again")
                return shown = try await listAndWatch(client, run: run)
            }
            do {
                _ = try await client.call(.watch(since: current.revision))
            } catch {
                guard case .server(let rpc) = error, rpc.knownCode == .compacted else { throw error }
                output.error("shelf: the server no longer has the changes after revision \(current.revision); listing again")
                shown = try await listAndWatch(client, run: run)
            }
        } catch {
            await client.close()
            throw error
        }
    }

    /// Prints each change newer than the last one printed, until the connection ends.
    private func relay(_ notifications: AsyncStream<RPCRequest>, shown: inout Shown?) async {
        for await notification in notifications {
            if notification.method == "closing" {
                output.error("shelf: the server is closing the connection: \(notification.params["message"]?.stringValue ?? "")")
                continue
            }
            guard notification.method == "changed", let change = ServerNotification.change(fromParams: notification.params),
                  var current = shown, change.revision > current.revision
            else { continue }
            print(change, notification, items: &current.items)
            current.revision = change.revision
            shown = current
        }
    }

    private func listAndWatch(_ client: ShelfClient, run: String?) async throws -> Shown {
        let result = try await client.call(.list(.all))
        let (revision, items) = try ResultDecoding.list(result)
        if command.json {
            output.line(TerminalText.json(result))
        } else {
            for item in items { output.line(ItemRow.text(item)) }
            output.line(ItemRow.summary(items, revision: revision))
        }
        _ = try await client.call(.watch(since: revision))
        return Shown(revision: revision, items: Dictionary(items.map { ($0.id, $0) }, uniquingKeysWith: { $1 }), run: run)
    }

    private func print(_ change: RevisionedChange, _ notification: RPCRequest, items: inout [UUID: Item]) {
        if command.json {
            let json = ServerNotification.changed(change).json
            output.line(TerminalText.json(json))
        }
        switch change.change {
        case .added(let item):
            items[item.id] = item
            if !command.json { output.line("+ \(ItemRow.shortID(item)) \(TerminalText.visible(item.title))") }
        case .updated(let item):
            items[item.id] = item
            if !command.json { output.line("~ \(ItemRow.text(item))") }
        case .removed(let id):
            let title = items.removeValue(forKey: id).map { " " + TerminalText.visible($0.title) } ?? ""
            if !command.json { output.line("- \(String(id.wireString.prefix(8)))\(title)") }
        }
    }
}

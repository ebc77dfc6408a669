import Foundation
import ShelfClient
import ShelfCommandLine
import ShelfCore
import ShelfJSON
import ShelfWire

/// `shelf watch`: prints the list, then one line per change as it happens; when the server goes away it says so,
/// reconnects with backoff (at most 5 s between tries) and resumes from the last revision it printed, listing again
/// when the server's identity changed (a restart: the same revision may name another list, protocol/PROTOCOL.md
/// §6) or when it fell behind (`6 compacted`: more than `--history` changes while it could not take them). A server
/// that is full (`7 too_many_connections`) is retried like one that is down. `WatchModel` makes every decision;
/// this type makes the calls, and `WatchScreen` prints.
struct WatchRunner {
    let command: ShelfCommand
    let screen: WatchScreen
    /// The longest wait between reconnection attempts.
    static let maxBackoff: Duration = .seconds(5)

    /// Runs until the task is cancelled (Ctrl-C); returns 0 then.
    func run() async -> Int32 {
        var model = WatchModel(server: "\(command.server)")
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
                try await start(client, model: &model) {
                    if reported { await screen.say("\(connectedBefore ? "reconnected" : "connected") to \(command.server)") }
                    reported = false
                    connectedBefore = true
                }
            } catch {
                switch error {
                case ClientError.server(let rpc) where rpc.knownCode == .tooManyConnections:
                    if !reported { await screen.say("the server is full (\(rpc.message)); retrying") }
                // The errors that end the watch are said as any command says them (one JSON line with --json).
                case ClientError.server, ClientError.protocolViolation, is TokenFile.Failure:
                    let report = ErrorReport(error, command: command)
                    await screen.fail(report)
                    return report.exit.rawValue
                case let failure as ClientError:
                    if !reported { await screen.say("\(ShelfMain.message(for: failure, command)) (retrying)") }
                default:
                    if !reported { await screen.say("\(error); retrying") }
                }
                reported = true
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, Self.maxBackoff)
                continue
            }
            let watching = ContinuousClock.now
            let pinger = command.timeout.map { Self.keepChecking(client, every: $0) }
            let closing = await relay(client, model: &model)
            pinger?.cancel()
            let unanswered = await pinger?.value ?? false
            await client.close()
            if Task.isCancelled { break }
            if unanswered, let limit = command.timeout {
                await screen.say(model.saying(.unanswered(seconds: limit.components.seconds)))
            } else {
                await screen.say(model.saying(closing ?? .lost))
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

    /// Says hello (then calls `connected`: the server took the connection), then starts the watch as the model
    /// decides: from the last revision shown, or with a list. A connection that fails here (the server is full, or
    /// went away again) leaves the model as it was.
    private func start(_ client: ShelfClient, model: inout WatchModel, connected: () async -> Void) async throws {
        let hello: HelloResult
        do {
            hello = try ResultDecoding.hello(try await client.call(.hello))
        } catch {
            await client.close()
            throw error
        }
        await connected()
        do {
            let start = model.start(after: hello)
            if let message = model.saying(start) { await screen.say(message) }
            if case .resume(let since) = start {
                do {
                    _ = try await client.call(.watch(since: since))
                    return
                } catch .server(let rpc) where rpc.knownCode == .compacted {
                    await screen.say(model.fellBehind(since: since))
                }
            }
            try await listAndWatch(client, identity: WatchIdentity(hello), model: &model)
        } catch {
            await client.close()
            throw error
        }
    }

    /// Lists, shows the list, then watches from its revision; lists again as long as that watch is refused with
    /// `6 compacted` (more than `--history` changes came while the list was shown: its output was blocked, say),
    /// as an informer lists again when its watch is too old.
    private func listAndWatch(_ client: ShelfClient, identity: WatchIdentity, model: inout WatchModel) async throws(ClientError) {
        while true {
            let result = try await client.call(.list(.all))
            let (revision, items) = try ResultDecoding.list(result)
            model.listed(revision: revision, items: items, identity: identity)
            await screen.showList(result, items: items, revision: revision)
            do {
                _ = try await client.call(.watch(since: revision))
                return
            } catch .server(let rpc) where rpc.knownCode == .compacted {
                await screen.say(model.fellBehind(since: revision))
            }
        }
    }

    /// Shows each change the model takes, until the connection ends.
    /// - Returns: how the server said it closed the connection (`closing`), if it did.
    private func relay(_ client: ShelfClient, model: inout WatchModel) async -> WatchEnding? {
        var closing: WatchEnding?
        for await notification in client.notifications {
            switch notification.method {
            case "closing":
                closing = .closed(
                    reason: notification.params["reason"]?.stringValue ?? "",
                    message: notification.params["message"]?.stringValue ?? "")
            case "changed":
                guard let change = ServerNotification.change(fromParams: notification.params),
                      let shown = model.changed(change)
                else { continue }
                await screen.show(shown)
            default:
                continue
            }
        }
        return closing
    }
}

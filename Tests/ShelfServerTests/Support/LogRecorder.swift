import ShelfCore
import ShelfServer
import ShelfSockets
import Testing
import ShelfTestSupport

/// Keeps every line a server logs, so a test can wait for an event only the log shows (a session ending).
final class LogRecorder: Sendable {
    private let lines = Locked<[String]>([])
    /// Tasks waiting for a line (`waitForLine(containing:)`), woken by each line logged.
    private let waiters = Locked<[CheckedContinuation<Void, Never>]>([])

    var log: ServerLog {
        ServerLog { [lines, waiters] line in
            lines.withLock { $0.append(line) }
            let woken = waiters.withLock { waiters in
                defer { waiters = [] }
                return waiters
            }
            for waiter in woken { waiter.resume() }
        }
    }

    /// The lines logged so far, in order.
    var recorded: [String] { lines.withLock { $0 } }

    /// Waits until a line containing `text` has been logged (call inside `withDeadline`), and returns the first.
    func waitForLine(containing text: String) async -> String {
        while true {
            if let line = recorded.first(where: { $0.contains(text) }) { return line }
            await withCheckedContinuation { continuation in
                // Registered under the lock the sink takes after appending, so no line can slip in between.
                let logged = waiters.withLock { waiters -> Bool in
                    if recorded.contains(where: { $0.contains(text) }) { return true }
                    waiters.append(continuation)
                    return false
                }
                if logged { continuation.resume() }
            }
        }
    }

    /// How many logged lines contain `text`.
    func count(containing text: String) -> Int {
        lines.withLock { $0.filter { $0.contains(text) }.count }
    }
}

/// Like `withTestServer`, but the server logs into a `LogRecorder` handed to `body`.
func withRecordingTestServer(
    store: any ListStore = MemoryListStore(identity: TestServer.listID),
    configuration: ServerConfiguration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0)),
    clock: any ServerClock = LoopClock(),
    seconds: Int = 60,
    _ body: @escaping @Sendable (TestServer, LogRecorder) async throws -> Void
) async throws {
    let recorder = LogRecorder()
    try await withDeadline(seconds: seconds) {
        let server = try await TestServer.start(store: store, configuration: configuration, log: recorder.log, clock: clock)
        do {
            try await body(server, recorder)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

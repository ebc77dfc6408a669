import Foundation
import ShelfCore
import ShelfServer
import ShelfSockets
import Synchronization
import Testing
import ShelfTestSupport

/// A real `Server` on 127.0.0.1, port 0, over an injected store, ids and clock, for end-to-end tests.
struct TestServer: Sendable {
    let server: Server
    let list: ReadingList
    let address: HostPort
    private let runTask: Task<Void, Never>

    /// Starts a server whose list runs on the shared event loop, as in `shelfd`. Ids are 00000000-0000-0000-0000-00000000000N in order (N from 1), and the clock
    /// starts at 2026-01-02T03:04:05.000Z and advances one second per item.
    static func start(
        store: any ListStore = MemoryListStore(identity: TestServer.listID),
        configuration: ServerConfiguration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0)),
        log: ServerLog = .silent,
        clock: any ServerClock = LoopClock()
    ) async throws -> TestServer {
        let ids = Counter()
        let ticks = Counter()
        let list = try await ReadingList(
            store: store,
            now: { Date(timeIntervalSince1970: 1_767_323_045 + Double(ticks.next() - 1)) },
            newID: { TestServer.id(ids.next()) },
            executor: Reactor.shared.executor.serial, completionExecutor: Reactor.shared.executor)
        let server = Server(list: list, configuration: configuration, log: log, runID: run, clock: clock)
        let address = try await server.start()
        let runTask = Task { await server.run() }
        return TestServer(server: server, list: list, address: address, runTask: runTask)
    }

    /// The run id every test server reports in `hello` (the one protocol/examples shows).
    static let run = UUID(uuidString: "9f1c2e4a-7b3d-4c5e-8f60-1a2b3c4d5e6f") ?? UUID()

    /// The list identity the transcripts' store reports in `hello` (the one protocol/examples shows).
    static let listID = UUID(uuidString: "2b7e1516-28ae-4d2a-a6f7-15884f3c9e01") ?? UUID()

    /// The id the server gives its `n`th new item (from 1).
    static func id(_ n: Int) -> UUID {
        let digits = String(n, radix: 16)
        let padded = String(repeating: "0", count: max(0, 12 - digits.count)) + digits
        return UUID(uuidString: "00000000-0000-0000-0000-\(padded)") ?? UUID()
    }

    /// Shuts the server down and waits until it has stopped.
    func stop() async {
        await server.shutdown()
        await runTask.value
    }

    /// Opens a raw line connection to the server.
    func connect() async throws -> LineConnection {
        try await LineConnection.connect(to: address)
    }
}

/// Runs `body` against a fresh server and stops it afterwards, even when `body` throws; the whole run is bounded
/// by a deadline.
func withTestServer(
    store: any ListStore = MemoryListStore(identity: TestServer.listID),
    configuration: ServerConfiguration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0)),
    clock: any ServerClock = LoopClock(),
    seconds: Int = 60,
    _ body: @escaping @Sendable (TestServer) async throws -> Void
) async throws {
    try await withDeadline(seconds: seconds) {
        let server = try await TestServer.start(store: store, configuration: configuration, clock: clock)
        do {
            try await body(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

/// A thread-safe counter: `next()` returns 1, 2, 3, …
final class Counter: Sendable {
    private let value = Mutex(0)

    func next() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }
}

import Foundation
import ShelfCore
import ShelfServer
import ShelfSockets
import Synchronization
import Testing
import ShelfTestSupport

/// A real `Server` like `TestServer` (127.0.0.1, port 0; ids `TestServer.id(n)` from 1 and the same test clock),
/// but built here so that the `ReadingList` gets a `historyLimit` (`TestServer.start` keeps the default) and the
/// log can be recorded.
struct HistoryTestServer: Sendable {
    let server: Server
    let list: ReadingList
    let address: HostPort
    private let runTask: Task<Void, Never>

    private init(server: Server, list: ReadingList, address: HostPort, runTask: Task<Void, Never>) {
        self.server = server
        self.list = list
        self.address = address
        self.runTask = runTask
    }

    /// Starts a server over `store` that keeps `historyLimit` changes for `watch` resumption; `configuration`'s
    /// own `historyLimit` is set to the same value.
    static func start(
        store: any ListStore = MemoryListStore(identity: TestServer.listID),
        historyLimit: Int = ReadingList.defaultHistoryLimit,
        configuration: ServerConfiguration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0)),
        log: ServerLog = .silent
    ) async throws -> HistoryTestServer {
        let ids = Counter()
        let ticks = Counter()
        var configuration = configuration
        configuration.historyLimit = historyLimit
        let list = try await ReadingList(
            store: store,
            now: { Date(timeIntervalSince1970: 1_767_323_045 + Double(ticks.next() - 1)) },
            newID: { TestServer.id(ids.next()) },
            historyLimit: historyLimit,
            executor: Reactor.shared.executor.serial, completionExecutor: Reactor.shared.executor)
        let server = Server(list: list, configuration: configuration, log: log, runID: TestServer.run)
        let address = try await server.start()
        let runTask = Task { await server.run() }
        return HistoryTestServer(server: server, list: list, address: address, runTask: runTask)
    }

    /// Shuts the server down (saves in flight finish) and waits until it has stopped.
    func stop() async {
        await server.shutdown()
        await runTask.value
    }

    /// Opens a raw line connection to the server.
    func connect() async throws -> LineConnection {
        try await LineConnection.connect(to: address)
    }
}

/// Runs `body` against a fresh `HistoryTestServer` and stops it afterwards, even when `body` throws; the whole run
/// is bounded by a deadline.
func withHistoryTestServer(
    store: any ListStore = MemoryListStore(identity: TestServer.listID),
    historyLimit: Int = ReadingList.defaultHistoryLimit,
    configuration: ServerConfiguration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0)),
    log: ServerLog = .silent,
    seconds: Int = 60,
    _ body: @escaping @Sendable (HistoryTestServer) async throws -> Void
) async throws {
    try await withDeadline(seconds: seconds) {
        let server = try await HistoryTestServer.start(
            store: store, historyLimit: historyLimit, configuration: configuration, log: log)
        do {
            try await body(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

/// `changed` notification lines exactly as the server writes them (protocol/PROTOCOL.md, "Watching").
/// `item` is raw item JSON, e.g. from `ExpectedLine.itemJSON`.
enum ExpectedNotification {
    static func added(_ revision: Int, _ item: String) -> String {
        changed(revision, #"{"kind":"added","item":\#(item)}"#)
    }

    static func updated(_ revision: Int, _ item: String) -> String {
        changed(revision, #"{"kind":"updated","item":\#(item)}"#)
    }

    /// `id` is the lowercase wire id.
    static func removed(_ revision: Int, id: String) -> String {
        changed(revision, #"{"kind":"removed","id":"\#(id)"}"#)
    }

    private static func changed(_ revision: Int, _ change: String) -> String {
        #"{"jsonrpc":"2.0","method":"changed","params":{"revision":\#(revision),"change":\#(change)}}"#
    }
}

/// The resident set size of this process (`VmRSS` in /proc/self/status), in bytes; `nil` where that file does
/// not exist (not Linux).
func residentMemoryBytes() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        // "VmRSS:	   123456 kB"
        let digits = line.dropFirst("VmRSS:".count).filter(\.isNumber)
        return Int(digits).map { $0 * 1024 }
    }
    return nil
}

/// Lets tasks wait until `count` of them have arrived (a one-use barrier). No timing involved.
final class ArrivalBarrier: Sendable {
    private struct State {
        var arrived = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let count: Int
    private let state = Mutex(State())

    init(count: Int) {
        self.count = count
    }

    /// Counts this caller in and suspends until `count` callers have arrived.
    func arriveAndWait() async {
        await withCheckedContinuation { continuation in
            let release = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.arrived += 1
                state.waiters.append(continuation)
                guard state.arrived >= count else { return [] }
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            for waiter in release { waiter.resume() }
        }
    }
}

import ShelfSockets

/// Opens many connections at once, a bounded number of connects in flight, optionally exchanging set-up lines.
enum Connector {
    /// The connections that opened (and whose set-up lines were answered without error), in no particular order.
    struct Opened: Sendable {
        var connections: [TCPConnection] = []
        var failures = 0
        var firstFailure: String?
    }

    /// Opens `count` connections to `server`, at most `concurrency` connecting at a time. On each, sends every
    /// line of `setup` in turn and waits for its reply; a connection that fails to connect or gets an error
    /// reply is closed and counted in `failures`.
    static func open(
        _ count: Int, to server: HostPort, setup: [[UInt8]], framing: BenchOptions.Framing, concurrency: Int = 200
    ) async -> Opened {
        await withTaskGroup(of: Result<TCPConnection, BenchFailure>.self) { group in
            var opened = Opened()
            var started = 0
            func startOne() {
                group.addTask { await connect(to: server, setup: setup, framing: framing) }
                started += 1
            }
            while started < min(count, concurrency) { startOne() }
            while let result = await group.next() {
                switch result {
                case .success(let connection):
                    opened.connections.append(connection)
                case .failure(let failure):
                    opened.failures += 1
                    if opened.firstFailure == nil { opened.firstFailure = failure.description }
                }
                if started < count, !Task.isCancelled { startOne() }
            }
            return opened
        }
    }

    /// Opens `count` connections or none: any failure closes the others and throws.
    static func openAll(
        _ count: Int, to server: HostPort, setup: [[UInt8]], framing: BenchOptions.Framing
    ) async throws(BenchFailure) -> [TCPConnection] {
        let opened = await open(count, to: server, setup: setup, framing: framing)
        guard opened.failures == 0 else {
            for connection in opened.connections { connection.close() }
            throw BenchFailure(
                "\(opened.failures) of \(count) connections to \(server) failed: \(opened.firstFailure ?? "unknown error")")
        }
        return opened.connections
    }

    private static func connect(
        to server: HostPort, setup: [[UInt8]], framing: BenchOptions.Framing
    ) async -> Result<TCPConnection, BenchFailure> {
        let connection: TCPConnection
        do {
            connection = try await TCPConnection.connect(to: server)
        } catch {
            return .failure(BenchFailure("cannot connect to \(server): \(error)"))
        }
        do {
            for line in setup { try await exchange(line, on: connection, framing: framing) }
        } catch {
            connection.close()
            return .failure(error as? BenchFailure ?? BenchFailure("\(error)"))
        }
        return .success(connection)
    }

    /// Sends `line` and reads exactly one reply.
    /// - Throws: `BenchFailure` quoting the reply's start when it is an error, or when the server closes first.
    static func exchange(_ line: [UInt8], on connection: TCPConnection, framing: BenchOptions.Framing) async throws {
        try await connection.write(line)
        var framer = ReplyFramer(framing)
        var start: [UInt8] = []
        while true {
            let chunk = try await connection.read()
            guard !chunk.isEmpty else {
                throw BenchFailure("the server closed the connection instead of answering \(quote(line))")
            }
            if start.count < 200 { start += chunk.prefix(200 - start.count) }
            let counted = try framer.count(chunk)
            guard counted.replies == 0 else {
                if counted.errors > 0 { throw BenchFailure("\(quote(line)) was answered with an error: \(quote(start))") }
                return
            }
        }
    }

    private static func quote(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(200), as: UTF8.self)
        return "'" + text.trimmingSuffix { $0 == "\n" || $0 == "\r" } + "'"
    }
}

extension String {
    /// This string without trailing characters that match `predicate`.
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> String {
        var text = self
        while let last = text.last, predicate(last) { text.removeLast() }
        return text
    }
}

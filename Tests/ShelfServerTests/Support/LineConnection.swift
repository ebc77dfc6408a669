import ShelfJSON
import ShelfSockets
import ShelfWire

/// A raw TCP connection for tests, speaking lines the way `nc` does: send any bytes, read reply lines.
final class LineConnection: Sendable {
    let connection: TCPConnection
    private let framer = Locked(LineFramer(maxLineBytes: 64 << 20))
    private let pending = Locked<[[UInt8]]>([])

    private init(connection: TCPConnection) {
        self.connection = connection
    }

    static func connect(to address: HostPort) async throws -> LineConnection {
        LineConnection(connection: try await TCPConnection.connect(to: address))
    }

    /// Sends `text` exactly as given (add "\n" yourself).
    func send(_ text: String) async throws {
        try await connection.write(Array(text.utf8))
    }

    /// Sends raw bytes.
    func send(bytes: [UInt8]) async throws {
        try await connection.write(bytes)
    }

    /// The next reply line as text, or `nil` when the server closed the connection first.
    func readLine() async throws -> String? {
        while true {
            if let line = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                return String(decoding: line, as: UTF8.self)
            }
            let (bytes, lines) = try await readChunk()
            if bytes == 0, lines == 0 { return nil }
        }
    }

    /// Waits until the server has sent something, and takes in one read of it (kept for `readLine`).
    func awaitSomeBytes() async throws {
        _ = try await readChunk()
    }

    /// One read; the lines it completes are kept for `readLine`.
    /// - Returns: how many bytes were read (0 at the end of the stream) and how many lines they completed.
    private func readChunk() async throws -> (bytes: Int, lines: Int) {
        let bytes = try await connection.read()
        let events = framer.withLock { bytes.isEmpty ? $0.finish() : $0.push(bytes) }
        let lines = events.compactMap { event -> [UInt8]? in
            if case .line(let line) = event { return Array(line) }
            return nil
        }
        pending.withLock { $0.append(contentsOf: lines) }
        return (bytes.count, lines.count)
    }

    /// The next reply line parsed as JSON; fails the test's expectations by throwing when there is none.
    func readJSON() async throws -> JSONValue {
        guard let line = try await readLine() else { throw LineConnectionError.closed }
        return try JSONParser.parse(Array(line.utf8))
    }

    /// Sends one line and reads one reply line as JSON.
    func call(_ line: String) async throws -> JSONValue {
        try await send(line + "\n")
        return try await readJSON()
    }

    func close() {
        connection.close()
    }
}

enum LineConnectionError: Error {
    case closed
}

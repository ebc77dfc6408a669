import ShelfJSON
import ShelfSockets
import ShelfWire

/// A raw TCP connection for tests, speaking lines the way `nc` does: send any bytes, read reply lines.
final class LineConnection: Sendable {
    let connection: TCPConnection
    private let framer = Locked(LineFramer(maxLineBytes: 64 << 20))
    private let pending = Locked<[[UInt8]]>([])
    private let telnetReplies = Locked<[UInt8]>([])

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

    /// The telnet refusals (`FF FC x`, `FF FE x`) read so far and not yet taken, in order.
    func takeTelnetReplies() -> [UInt8] {
        telnetReplies.withLock { replies in
            defer { replies = [] }
            return replies
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
            guard case .line(var line) = event else { return nil }
            // Telnet refusals (protocol/PROTOCOL.md §1) come before the line that follows them; 0xFF is never in
            // a reply line, so they are told apart exactly.
            while line.count >= 3, line.first == 0xFF, [0xFC, 0xFE].contains(line.dropFirst().first) {
                telnetReplies.withLock { $0.append(contentsOf: line.prefix(3)) }
                line = line.dropFirst(3)
            }
            return Array(line)
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

import ShelfSockets
import Testing
import ShelfTestSupport

struct EchoLoadTests {
    @Test func twoHundredConnectionsEchoInParallel() async throws {
        let count = 200
        let listener = try TCPListener.listen(on: HostPort(host: "127.0.0.1", port: 0))
        defer { listener.close() }
        try await withDeadline {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await Self.serveEcho(listener, connections: count) }
                for index in 0..<count {
                    group.addTask {
                        let client = try await TCPConnection.connect(to: listener.localAddress)
                        defer { client.close() }
                        let message = patternBytes(4096 + index, seed: index)
                        try await client.write(message)
                        client.shutdownWrite()
                        let echoed = try await client.readToEnd()
                        #expect(echoed == message)
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    /// Accepts `connections` connections and echoes each until its end of stream, all concurrently.
    private static func serveEcho(_ listener: TCPListener, connections: Int) async throws {
        try await withThrowingDiscardingTaskGroup { group in
            for _ in 0..<connections {
                let connection = try await listener.accept()
                group.addTask {
                    defer { connection.close() }
                    while true {
                        let chunk = try await connection.read()
                        if chunk.isEmpty { return }
                        try await connection.write(chunk)
                    }
                }
            }
        }
    }
}

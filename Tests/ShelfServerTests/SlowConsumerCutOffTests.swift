import ShelfServer
import ShelfSockets
import Testing

/// Cutting off a slow consumer while its session's reader is still waiting on the socket.
@Suite struct SlowConsumerCutOffTests {
    /// Found by a hostile-input run: closing the cut-off watcher gracefully read from the writer while the reader
    /// was still parked on the same socket, and the second concurrent read stopped the process (6 of 6 runs, with
    /// this exact input: `--max-outbound-bytes 65536`, a watcher that never reads, 1,000 adds in one write).
    @Test("a watcher that never reads is cut off during 1,000 pipelined adds, and the writer gets every reply and a pong")
    func cutOffWhileTheReaderWaits() async throws {
        var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
        configuration.maxOutboundBytes = 65536
        try await withTestServer(configuration: configuration, seconds: 60) { server in
            let watcher = try await server.connect()
            defer { watcher.close() }
            // The watch reply is the last thing the watcher reads.
            #expect(try await watcher.call(#"{"id":"w","method":"watch"}"#).member("result", "revision") == 0)
            let writer = try await server.connect()
            defer { writer.close() }
            let title = String(repeating: "t", count: 100)
            try await writer.send((1...1000).map { #"{"id":\#($0),"method":"add","params":{"title":"\#(title)"}}"# + "\n" }.joined())
            var replies = 0
            while replies < 1000, let line = try await writer.readLine() {
                #expect(line.hasPrefix(#"{"jsonrpc":"2.0","id":\#(replies + 1),"result":"#), "\(line.prefix(120))")
                replies += 1
            }
            #expect(replies == 1000)
            #expect(try await writer.call(#"{"id":"after","method":"ping"}"#).member("result") == "pong")
        }
    }
}

import Foundation
import Testing

/// Shutdown with a client that pipelines far ahead of its reading (PROTOCOL.md §3, "Shutdown": the replies owed are
/// written). Closing while such a client's input was still arriving made the kernel reset the connection and drop
/// megabytes of queued replies: the client got 32,674 whole replies and half of the next one for 47,007 saved changes.
@Suite struct SlowReaderShutdownTests {
    static let adds = 100_000
    /// Under `Server.drainTimeout` (4 s), with room for a loaded machine.
    static let lingerMargin: Duration = .milliseconds(3_500)

    @Test("SIGTERM while a client has sent 100,000 adds in one write and reads slowly: it gets a whole reply for every saved change, in order, then closing (shutdown) and end of stream")
    func aSlowReaderGetsEveryReplyItIsOwed() async throws {
        try await Sandbox.with { sandbox in
            let store = ["--store", "file:\(sandbox.storePath)"]
            let daemon = try await RunningShelfd.start(store, environment: sandbox.environment)
            let port = try #require(UInt16(daemon.port))
            let socket = try BlockingLineSocket.connect(port: port)
            defer { socket.close() }
            let payload = Array((0..<Self.adds).map { #"{"id":\#($0),"method":"add","params":{"title":"p\#($0)"}}"# + "\n" }.joined().utf8)
            // One thread sends (only the descriptor is shared: `send` touches no read state), another reads.
            let sending = Task { await onOwnThread { try? socket.send(payload, timeout: .seconds(60)) } }
            let child = daemon.child
            let read = await onOwnThread { () -> (replies: Int, problems: [String], ending: String) in
                var replies = 0
                var problems: [String] = []
                while true {
                    let line: String?
                    do {
                        line = try socket.readLine(timeout: .seconds(20))
                    } catch {
                        return (replies, problems, "\(error)")
                    }
                    guard let line else { return (replies, problems, "end of stream") }
                    if line.hasPrefix(#"{"jsonrpc":"2.0","method":"closing","params":{"reason":"shutdown""#) {
                        do {
                            let after = try socket.readLine(timeout: .seconds(20))
                            return (replies, problems, after.map { "after closing: \($0.prefix(120))" } ?? "closing (shutdown), then end of stream")
                        } catch {
                            return (replies, problems, "after closing: \(error)")
                        }
                    }
                    let reply = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
                    let result = reply?["result"] as? [String: Any]
                    if reply?["id"] as? Int != replies || result?["revision"] as? Int != replies + 1 {
                        problems.append("reply \(replies): \(line.prefix(120))")
                        if problems.count > 5 { return (replies, problems, "stopped checking") }
                    }
                    replies += 1
                    if replies == 5_000 { child.send(SIGTERM) }
                    // The slow reader under test (about 1.7 MB/s): a pause every 100 replies, not a wait for anything.
                    if replies % 100 == 0 { usleep(10_000) }
                }
            }
            _ = await sending.value
            let outcome = try #require(await daemon.child.waitForExit(timeout: .seconds(10)), "shelfd did not exit")
            #expect(outcome.status == 0 && !outcome.signaled, "exit \(outcome.status), stderr: \(outcome.stderr.suffix(500))")
            #expect(read.problems.isEmpty, "\(read.problems)")
            #expect(read.ending == "closing (shutdown), then end of stream", "after \(read.replies) replies: \(read.ending)")

            let restarted = try await RunningShelfd.start(store, environment: sandbox.environment)
            let listed = await onOwnThread { SigtermTests.list(port: UInt16(restarted.port) ?? 0) }
            _ = await restarted.stop()
            let (revision, _) = try listed.get()
            print("slow reader: \(read.replies) replies, revision \(revision), ending \(read.ending)")
            #expect(read.replies > 5_000)
            #expect(revision == read.replies, "\(revision) changes saved, \(read.replies) replies received")
        }
    }

    /// The bound is 3.5 s, half a second under the 4 s linger it guards against: at 2 s a debug build under the
    /// rest of the suite's load once took 2.2 s and once 2.35 s.
    @Test("SIGTERM with 20 idle clients that have all their replies but keep their connections open: exit 0 before the 4 s linger")
    func idleClientsThatKeepTheirConnectionsOpenDoNotHoldShutdown() async throws {
        try await Sandbox.with { sandbox in
            let daemon = try await RunningShelfd.start(["--store", "memory"], environment: sandbox.environment)
            let port = try #require(UInt16(daemon.port))
            let opened = await onOwnThread { () -> Result<[BlockingLineSocket], LineSocketError> in
                Result {
                    try (0..<20).map { index in
                        let socket = try BlockingLineSocket.connect(port: port)
                        try socket.sendLine(#"{"id":\#(index),"method":"ping"}"#)
                        _ = try socket.readLine()
                        return socket
                    }
                }.mapError { $0 as? LineSocketError ?? .timedOut("\($0)") }
            }
            let sockets = try opened.get()
            defer { for socket in sockets { socket.close() } }
            let signalledAt = ContinuousClock.now
            daemon.child.send(SIGTERM)
            let outcome = await daemon.child.waitForExit(timeout: Self.lingerMargin)
            if outcome == nil { await daemon.child.terminate(grace: .zero) }
            // The clients acknowledge the FIN at once but never close: waiting for their input would hold each
            // connection, and shutdown, for the whole 4 s linger.
            let stopped = try #require(outcome, "shelfd still running 3.5 s after SIGTERM")
            #expect(stopped.status == 0 && !stopped.signaled)
            #expect(ContinuousClock.now - signalledAt < Self.lingerMargin)
        }
    }
}

@testable import ShelfServer
import ShelfSockets
import Testing
import ShelfTestSupport

/// The server-wide ceiling on memory held for peers (`--max-memory-bytes`, protocol/PROTOCOL.md §10): 1,000
/// connections each holding an unfinished 1 MB line held ~1 GiB, and 1,024 full outbound queues could hold 8.7 GiB.
@Suite struct MemoryCeilingTests {
    @Test("an account charges within its ceiling, refuses past it, takes forced charges past it, and refunds")
    func account() {
        let memory = MemoryAccount(ceiling: 100)
        #expect(memory.charge(60))
        #expect(!memory.charge(41))
        #expect(memory.charge(40) && memory.heldBytes == 100 && memory.isFull)
        memory.refund(50)
        #expect(memory.heldBytes == 50 && !memory.isFull)
        memory.force(80)
        #expect(memory.heldBytes == 130 && memory.isFull && memory.peakBytes == 130)
        #expect(!memory.charge(1) && memory.charge(0))
        memory.refund(130)
        #expect(memory.heldBytes == 0 && memory.peakBytes == 130)
        memory.resetPeak()
        #expect(memory.peakBytes == 0)
    }

    @Test("a connection's budget charges its held replies, unsent bytes and notifications, takes over what was charged already, and refunds all at the end")
    func budgetCharges() {
        var budget = OutboundBudget(maxBytes: 1000)
        #expect(budget.update(replies: 30, unsent: 0, notifications: 0) == 30)
        #expect(budget.update(replies: 0, unsent: 10, notifications: 0) == -20)
        // A notification charged within the ceiling as it was queued is not charged again.
        budget.adopt(50)
        #expect(budget.update(replies: 0, unsent: 10, notifications: 50) == 0)
        #expect(budget.update(replies: 0, unsent: 0, notifications: 0) == -60)
        #expect(budget.update(replies: 2000, unsent: 0, notifications: 0) == 2000)
        #expect(budget.close() == 2000 && budget.charged == 0)
        #expect(!budget.admitsRequest(holding: 1001) && budget.admitsRequest(holding: 1000))
        #expect(OutboundBudget(maxBytes: 1).admitsRequest(holding: 0) && OutboundBudget(maxBytes: 1).admitsRequest(holding: 1))
    }

    @Test("memory is trimmed once it has fallen more than 1 MiB below its peak, at most once a second")
    func trim() {
        let memory = MemoryAccount(ceiling: 1 << 30)
        var trim = MemoryTrim()
        let start = ContinuousClock.now
        memory.force(3 << 20)
        memory.refund(1 << 20)
        let atOneMiB = trim.sessionEnded(memory: memory, now: start)
        memory.refund(1)
        let pastOneMiB = trim.sessionEnded(memory: memory, now: start)
        #expect(atOneMiB == .none && pastOneMiB == .trimNow && memory.peakBytes == memory.heldBytes)
        memory.force(4 << 20)
        memory.refund(4 << 20)
        let tooSoon = trim.sessionEnded(memory: memory, now: start + .milliseconds(999))
        #expect(tooSoon == .deferUntil(start + .seconds(1)))
        #expect(trim.deferredTrimDue(memory: memory, now: start + .seconds(1)) == .trimNow)
    }

    @Test("40 connections that held 64 KB ids closing at once, within a second of the last trim: the trim is deferred to the end of that second, not dropped")
    func burstOfClosesDefersTheTrim() {
        // As `ping`s with 64 KB ids pipelined without reading: each connection's outbox held 8 MiB and one reply.
        let perConnection = (8 << 20) + 65_600
        let memory = MemoryAccount(ceiling: 1 << 40)
        var trim = MemoryTrim()
        let start = ContinuousClock.now
        // The last trim: an earlier connection's end, 300 ms before the burst.
        memory.force(2 << 20)
        memory.refund(2 << 20)
        #expect(trim.sessionEnded(memory: memory, now: start) == .trimNow)
        for _ in 0..<40 { memory.force(perConnection) }
        // All 40 end within 2 ms: the first trim would be due 700 ms later; the others leave it to look then.
        var decisions: [MemoryTrim.Decision] = []
        for closed in 0..<40 {
            memory.refund(perConnection)
            decisions.append(trim.sessionEnded(memory: memory, now: start + .milliseconds(300) + .microseconds(50 * closed)))
        }
        #expect(decisions == [.deferUntil(start + .seconds(1))] + Array(repeating: .none, count: 39))
        #expect(memory.heldBytes == 0 && memory.peakBytes == 40 * perConnection)
        // The timer comes due with 0 connections left: the memory of all 40 is given back.
        #expect(trim.deferredTrimDue(memory: memory, now: start + .seconds(1) + .milliseconds(1)) == .trimNow)
        #expect(memory.peakBytes == 0)
        // A deferred trim that comes due after new connections took the memory again does nothing, and the next
        // ending decides afresh.
        memory.force(8 << 20)
        memory.refund(8 << 20)
        #expect(trim.sessionEnded(memory: memory, now: start + .milliseconds(1500)) == .deferUntil(start + .seconds(2) + .milliseconds(1)))
        memory.force(8 << 20)
        #expect(trim.deferredTrimDue(memory: memory, now: start + .seconds(2) + .milliseconds(1)) == .none)
        memory.refund(8 << 20)
        #expect(trim.sessionEnded(memory: memory, now: start + .seconds(3)) == .trimNow)
    }

    @Test("with a 48 KiB ceiling, a connection sending a 100 KB unfinished line gets closing memory_limit and is closed; another's ping is answered, and the memory is given back")
    func unfinishedLinePastTheCeiling() async throws {
        var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
        configuration.maxMemoryBytes = 48 << 10
        try await withRecordingTestServer(configuration: configuration) { server, recorder in
            let bystander = try await server.connect()
            defer { bystander.close() }
            #expect(try await bystander.call(#"{"id":1,"method":"ping"}"#).member("result") == "pong")
            let hog = try await server.connect()
            defer { hog.close() }
            try await hog.send(#"{"id":1,"method":"add","params":{"title":""# + String(repeating: "x", count: 100_000))
            #expect(try await hog.readLine() == #"{"jsonrpc":"2.0","method":"closing","params":{"reason":"memory_limit","message":"Closing: the server holds as much memory for its connections as it may (49152 bytes, --max-memory-bytes); try again later"}}"#)
            #expect(try await hog.readLine() == nil)
            #expect(try await bystander.call(#"{"id":2,"method":"ping"}"#).member("result") == "pong")
            let line = await recorder.waitForLine(containing: "memory limit")
            #expect(line.contains("closed (memory limit: the server holds "), "\(line)")
            // Given back: a 40 KB line now fits.
            let next = try await server.connect()
            defer { next.close() }
            let long = #"{"id":3,"method":"add","params":{"title":""# + String(repeating: "y", count: 40_000) + #""}}"#
            #expect(try await next.call(long).member("error")?.member("code") == 1)
        }
    }
}

import Dispatch
import Glibc
@testable import ShelfSockets
import Synchronization
import Testing
import ShelfTestSupport

/// After a read returns fewer bytes than asked, the next read waits for readiness instead of trying the socket
/// (`TCPConnection.read`): these pin down the cases where no further edge comes.
struct ShortReadTests {
    @Test("data and end of stream that arrive together: the short read's successor still sees the end")
    func endOfStreamArrivingWithTheData() async throws {
        let pair = try await LoopbackPair.make()
        defer { pair.close() }
        try await withDeadline {
            // Both are in the server's socket before it reads, so epoll reports them in one event.
            try await pair.client.write(Array("last words".utf8))
            pair.client.shutdownWrite()
            try await waitUntil { pair.server.registration.hungUp.load(ordering: .acquiring) }
            #expect(try await pair.server.read() == Array("last words".utf8))
            #expect(try await pair.server.read() == [])
        }
    }

    @Test("data and end of stream reported in the one event that wakes a parked read: the next read sees the end")
    func endOfStreamInTheEventThatWokeTheRead() async throws {
        let reactor = try Reactor()
        let pair = try await LoopbackPair.make(reactor: reactor)
        defer { pair.close() }
        try await withDeadline {
            async let firstRead = pair.server.read()
            try await waitUntil { pair.server.registration.readable.hasWaiter }
            // Hold the reactor thread so that the data and the FIN reach epoll before it looks again.
            let release = DispatchSemaphore(value: 0)
            let holding = Atomic<Bool>(false)
            Task(executorPreference: reactor.executor) {
                holding.store(true, ordering: .releasing)
                release.wait()
            }
            try await waitUntil { holding.load(ordering: .acquiring) }
            #expect(try pair.client.writeNow(Array("bye".utf8)[...]) == 3)
            pair.client.shutdownWrite()
            release.signal()
            #expect(try await firstRead == Array("bye".utf8))
            #expect(try await pair.server.read() == [])
        }
    }

    @Test("data arriving after a short read wakes the next read")
    func laterDataAfterAShortRead() async throws {
        let pair = try await LoopbackPair.make()
        defer { pair.close() }
        try await withDeadline {
            for round in 0..<200 {
                let message = Array("message \(round)".utf8)
                try await pair.client.write(message)
                #expect(try await pair.server.read(exactly: message.count) == message)
            }
        }
    }

    @Test("a read that fills its buffer tries the socket again at once")
    func fullReadDoesNotWait() async throws {
        let pair = try await LoopbackPair.make()
        defer { pair.close() }
        try await withDeadline {
            try await pair.client.write(patternBytes(10))
            pair.client.shutdownWrite()
            #expect(try await pair.server.read(maxBytes: 4) == Array(patternBytes(10)[0..<4]))
            #expect(try await pair.server.read(maxBytes: 4) == Array(patternBytes(10)[4..<8]))
            #expect(try await pair.server.read(maxBytes: 4) == Array(patternBytes(10)[8..<10]))
            #expect(try await pair.server.read(maxBytes: 4) == [])
        }
    }
}

import Dispatch
import Glibc
import ShelfCore
import ShelfJSON
@testable import ShelfServer
@testable import ShelfSockets
import Testing
import ShelfTestSupport

extension MemoryHeavy {
    /// The server-wide memory ceiling against replies (protocol/PROTOCOL.md §10): connections that read `list`
    /// requests at the same moment each had their reply encoded and queued, because the only check was at read time
    /// and replies were charged after it, whatever the ceiling (60 connections held 4.4 times 256 MiB, and while over
    /// it every other client was closed, even a `ping` on an established connection).
    @Suite struct SimultaneousListsTests {
        /// Items in the list: over `Session.largeListItems`, so each reply is encoded on the global pool, several at
        /// once, as the 20,000-item list of the attack run was; each reply (about 10.5 MB) is more than twice what the
        /// kernel takes of it for a client that does not read (a 4 MiB send buffer at most, `tcp_wmem`).
        static let items = 10_000
        /// Connections that send `list` 30 times and read nothing.
        static let hogs = 8

        @Test("8 connections that each send list 30 times without reading, read at the same moment: the server holds at most its 12 MiB ceiling, all but one get closing memory_limit, and a reading client's ping, add and watch are served")
        func simultaneousLists() async throws {
            var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
            let ceiling = 12 << 20
            configuration.maxMemoryBytes = ceiling
            // The least budget: each connection that does not read holds one reply (its first) and waits.
            configuration.maxOutboundBytes = 4096
            try await withTestServer(configuration: configuration, seconds: 120) { server in
                // 900-byte titles: each item is about 1,050 bytes of JSON, each reply about 10.5 MB: one fits, and it
                // still holds over 6 MB once the kernel has taken what it takes, so a second never fits beside it.
                let title = String(repeating: "t", count: 900)
                for _ in 0..<Self.items { _ = await server.list.submit(.add(title: title)) }
                let watcher = try await server.connect()
                defer { watcher.close() }
                #expect(try await watcher.call(#"{"id":1,"method":"watch"}"#).integer("result", "revision") == Self.items)
                let bystander = try await server.connect()
                defer { bystander.close() }
                #expect(try await bystander.call(#"{"id":1,"method":"ping"}"#).member("result") == "pong")

                var hogs: [LineConnection] = []
                defer { for hog in hogs { hog.close() } }
                for _ in 0..<Self.hogs {
                    let hog = try await server.connect()
                    try hog.connection.shrinkReceiveBuffer()
                    hogs.append(hog)
                    // Answered: its session runs, and reads as soon as the loop is free again.
                    #expect(try await hog.call(#"{"id":0,"method":"ping"}"#).member("result") == "pong")
                }
                // Every hog's 30 requests arrive while the event loop is held, so that its readers all read them in
                // one round, as the attack run's did: the same moment, deterministically.
                let requests = Array(String(repeating: #"{"id":1,"method":"list"}"# + "\n", count: 30).utf8)
                try await Self.whileTheLoopIsHeld {
                    for hog in hogs {
                        let sent = try hog.connection.writeNow(requests[...])
                        #expect(sent == requests.count)
                    }
                }

                // Each hog now gets either the start of its first reply, or the closing line.
                let replyStart = Array(#"{"jsonrpc":"2.0","id":1,"result":{"revision":10000,"items":["#.utf8)
                let closingStart = Array(#"{"jsonrpc":"2.0","method":"closing","params":{"reason":"memory_limit","#.utf8)
                var served = 0
                var closed = 0
                for hog in hogs {
                    let start = try await hog.connection.readPrefix(closingStart.count)
                    if start == closingStart {
                        closed += 1
                    } else {
                        #expect(start.starts(with: replyStart), "\(String(decoding: start, as: UTF8.self))")
                        served += 1
                    }
                }
                let memory = server.server.memory
                #expect(memory.peakBytes <= ceiling, "held \(memory.peakBytes) bytes at most, the ceiling is \(ceiling)")
                #expect(memory.heldBytes <= ceiling)
                #expect(served == 1 && closed == Self.hogs - 1, "\(served) hogs served, \(closed) closed")

                // A client that reads is served meanwhile: a ping, a change, and the watcher's notification of it.
                #expect(try await bystander.call(#"{"id":2,"method":"ping"}"#).member("result") == "pong")
                let added = try await bystander.call(#"{"id":3,"method":"add","params":{"title":"Dune"}}"#)
                #expect(added.integer("result", "revision") == Self.items + 1)
                let changed = try await watcher.readJSON()
                #expect(changed.member("method") == "changed" && changed.integer("params", "revision") == Self.items + 1)
            }
        }

        /// Runs `body` while a timer's action holds the event loop's thread: nothing the loop serves runs meanwhile
        /// (the test's own connections are written to directly, `writeNow`).
        static func whileTheLoopIsHeld(_ body: () throws -> Void) async throws {
            let release = DispatchSemaphore(value: 0)
            await withCheckedContinuation { (held: CheckedContinuation<Void, Never>) in
                _ = Reactor.shared.executor.schedule(after: .zero) {
                    held.resume()
                    release.wait()
                }
            }
            defer { release.signal() }
            try body()
        }
    }
}

extension TCPConnection {
    /// Caps this socket's kernel receive buffer at 4 KiB (`SO_RCVBUF`, which turns its autotuning off), as a client
    /// that reads nothing with a small buffer: the server's replies to it stay in the server.
    func shrinkReceiveBuffer() throws {
        var size: Int32 = 4096
        let rc = try handle.withDescriptor { fd in
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if rc != 0 { throw SocketError.lastError("setsockopt") }
    }

    /// The first `count` bytes the server sends (fewer only at the end of the stream), read without reading more.
    func readPrefix(_ count: Int) async throws -> [UInt8] {
        var collected: [UInt8] = []
        while collected.count < count {
            let chunk = try await read(maxBytes: count - collected.count)
            if chunk.isEmpty { break }
            collected += chunk
        }
        return collected
    }
}

import Foundation
import Testing

/// Running out of file descriptors never stops `shelfd`: it caps its connections below the open-file limit (keeping
/// 32 descriptors free), refuses the rest with code 7 without spinning, and serves new ones once others close.
/// (Letting accept hit EMFILE crashed the process: libdispatch traps when it cannot open /proc files.)
@Suite struct DescriptorLimitTests {
    static let limit = 64
    static let connections = 150

    @Test(
        "with ulimit -n 64 and 150 connections: 32 are served, the rest refused with code 7, nothing spins, and new ones are served later")
    func acceptBacksOffWhenOutOfDescriptors() async throws {
        try await Sandbox.with { sandbox in
            let child = try Self.launchShelfd(in: sandbox)
            do {
                try await check(child)
            } catch {
                // A reset or a vanished process usually means shelfd died: say so, with how.
                if let ended = await child.waitForExit(timeout: .milliseconds(200)) {
                    let how = ended.signaled ? "killed by signal \(ended.status)" : "exited with status \(ended.status)"
                    Issue.record("shelfd \(how) while out of descriptors; stderr ends: \(ended.stderr.suffix(300))")
                }
                await child.terminate(grace: .seconds(2))
                throw error
            }
            let stopped = try #require(await child.terminate(), "shelfd did not stop")
            #expect(stopped.status == 0 && !stopped.signaled, "exit status \(stopped.status), stderr: \(stopped.stderr.suffix(2000))")
        }
    }

    /// Found by review: each refusal ran as a task that first went back to the server's actor, so under a flood
    /// they piled up holding descriptors, and accept hit EMFILE (about 190 times for 8,000 connections, 20 s).
    @Test("with ulimit -n 64, 32 connections held and 8 threads making 2,000 more: no accept hits EMFILE, and the held ones are served")
    func refusalFloodHoldsNoDescriptors() async throws {
        try await Sandbox.with { sandbox in
            let child = try Self.launchShelfd(in: sandbox)
            let prefix = "shelfd listening on "
            let line = try #require(await child.waitForLine(startingWith: prefix, timeout: .seconds(10)), "shelfd did not start: \(child.stderrSoFar)")
            let port = try #require(UInt16(line.split(separator: ":").last ?? ""))
            let outcome = await onOwnThread { () -> Result<String?, LineSocketError> in
                Result {
                    let held = try (0..<(Self.limit - 32)).map { index -> BlockingLineSocket in
                        let socket = try BlockingLineSocket.connect(port: port)
                        try socket.sendLine(#"{"id":\#(index),"method":"ping"}"#)
                        guard try socket.readLine(timeout: .seconds(5))?.contains("pong") == true else {
                            throw LineSocketError.timedOut("held connection \(index) was not served")
                        }
                        return socket
                    }
                    defer { held.forEach { $0.close() } }
                    let group = DispatchGroup()
                    for _ in 0..<8 {
                        group.enter()
                        Thread.detachNewThread {
                            for _ in 0..<250 {
                                if let socket = try? BlockingLineSocket.connect(port: port) {
                                    try? socket.sendLine(#"{"id":1,"method":"ping"}"#)
                                    socket.close()
                                }
                            }
                            group.leave()
                        }
                    }
                    group.wait()
                    try held[0].sendLine(#"{"id":"after","method":"ping"}"#)
                    return try held[0].readLine(timeout: .seconds(10))
                }.mapError { $0 as? LineSocketError ?? .timedOut("\($0)") }
            }
            let stopped = await child.terminate(grace: .seconds(5))
            #expect(try outcome.get() == #"{"jsonrpc":"2.0","id":"after","result":"pong"}"#)
            let stderr = stopped?.stderr ?? child.stderrSoFar
            #expect(!stderr.contains("accept() failed"), "\(stderr.split(separator: "\n").filter { $0.contains("failed") }.prefix(3))")
            #expect(stopped?.status == 0 && stopped?.signaled == false, "\(String(describing: stopped))")
        }
    }

    /// The open-file limit lowered under a running `shelfd` (`prlimit --pid PID --nofile=64:64`), then 120
    /// connections: accept ran into EMFILE, and 2-11 s later libdispatch's worker-pool monitor, which could not open
    /// `/proc/TID/stat`, killed the process with SIGILL (`*** Signal 4 ***`), dropping every connection.
    @Test("with the limit lowered to 64 under a running shelfd and 120 connections: it stays up, serves the ones it has, refuses the rest, and serves new ones once they close")
    func limitLoweredUnderARunningServer() async throws {
        try await Sandbox.with { sandbox in
            let child = try ChildProcess.launch(
                try Executables.url("shelfd"), ["--listen", "127.0.0.1:0", "--store", "memory"], environment: sandbox.environment)
            let prefix = "shelfd listening on "
            let line = try #require(await child.waitForLine(startingWith: prefix, timeout: .seconds(10)), "shelfd did not start: \(child.stderrSoFar)")
            let port = try #require(UInt16(line.split(separator: ":").last ?? ""))
            // prlimit(2) is not in Swift's Glibc module (it needs _GNU_SOURCE): util-linux's prlimit calls it.
            let pid = child.pid
            let status = await onOwnThread { () -> Int32? in
                let prlimit = try? Process.run(
                    URL(filePath: "/usr/bin/prlimit"), arguments: ["--pid", "\(pid)", "--nofile=\(Self.limit):\(Self.limit)"])
                prlimit?.waitUntilExit()
                return prlimit?.terminationStatus
            }
            try #require(status == 0, "prlimit failed: \(String(describing: status))")
            let outcome = await onOwnThread { () -> Result<(served: Int, refused: Int, rounds: Int), LineSocketError> in
                Result {
                    let sockets = try (0..<120).map { index -> BlockingLineSocket in
                        let socket = try BlockingLineSocket.connect(port: port)
                        try socket.sendLine(#"{"id":\#(index),"method":"ping"}"#)
                        return socket
                    }
                    defer { sockets.forEach { $0.close() } }
                    var served: [BlockingLineSocket] = []
                    var refused = 0
                    for (index, socket) in sockets.enumerated() {
                        let reply = try socket.readLine(timeout: .seconds(10))
                        if reply == #"{"jsonrpc":"2.0","id":\#(index),"result":"pong"}"# {
                            served.append(socket)
                        } else if reply?.contains(#""code":7,"#) == true {
                            refused += 1
                        } else {
                            throw LineSocketError.timedOut("odd reply \(reply ?? "none") on connection \(index)")
                        }
                    }
                    // The monitor looks every second: keep the served connections busy for 5 s, out of descriptors.
                    let until = ContinuousClock.now + .seconds(5)
                    var rounds = 0
                    while ContinuousClock.now < until {
                        for socket in served {
                            try socket.sendLine(#"{"id":"again","method":"ping"}"#)
                            guard try socket.readLine(timeout: .seconds(10)) == #"{"jsonrpc":"2.0","id":"again","result":"pong"}"# else {
                                throw LineSocketError.timedOut("a served connection stopped answering in round \(rounds)")
                            }
                        }
                        rounds += 1
                    }
                    return (served.count, refused, rounds)
                }.mapError { $0 as? LineSocketError ?? .timedOut("\($0)") }
            }
            if let ended = await child.waitForExit(timeout: .milliseconds(100)) {
                Issue.record("shelfd ended (signal: \(ended.signaled), status \(ended.status)); stderr: \(ended.stderr.suffix(500))")
                return
            }
            let counts = try outcome.get()
            #expect(counts.served > 0 && counts.served + counts.refused == 120, "\(counts)")
            #expect(child.stderrSoFar.contains("serving at most \(Self.limit - 32) connections, not 1024: the open-file limit is now \(Self.limit)"))
            // Every connection is closed now: once shelfd has seen the closes, a new one is served.
            #expect(try await Self.freshPing(port: port).get() == #"{"jsonrpc":"2.0","id":"fresh","result":"pong"}"#)
            let stopped = await child.terminate(grace: .seconds(5))
            #expect(stopped?.status == 0 && stopped?.signaled == false, "\(String(describing: stopped)); stderr: \(stopped?.stderr.suffix(500) ?? "")")
            print("descriptors lowered to \(Self.limit) under a running shelfd: \(counts.served) served, \(counts.refused) refused, \(counts.rounds) rounds of pings over 5 s")
        }
    }

    /// `shelfd --listen 127.0.0.1:0 --store memory` under `ulimit -n 64`.
    private static func launchShelfd(in sandbox: Sandbox) throws -> ChildProcess {
        let shelfd = try Executables.url("shelfd")
        return try ChildProcess.launch(
            URL(filePath: "/bin/sh"),
            ["-c", "ulimit -n \(limit) && exec \"$0\" \"$@\"", shelfd.path, "--listen", "127.0.0.1:0", "--store", "memory"],
            environment: sandbox.environment)
    }

    private func check(_ child: ChildProcess) async throws {
        let prefix = "shelfd listening on "
        let line = try #require(await child.waitForLine(startingWith: prefix, timeout: .seconds(10)), "shelfd did not start: \(child.stderrSoFar)")
        let port = try #require(UInt16(line.split(separator: ":").last ?? ""))
        let pid = child.pid

        // More connections than descriptors: the kernel completes them all (backlog 511); shelfd accepts until
        // EMFILE. Each gets a ping; only the ones shelfd accepted are answered.
        let sockets = await onOwnThread { () -> Result<[BlockingLineSocket], LineSocketError> in
            Result {
                try (0..<Self.connections).map { index in
                    let socket = try BlockingLineSocket.connect(port: port)
                    try socket.sendLine(#"{"id":\#(index),"method":"ping"}"#)
                    return socket
                }
            }.mapError { $0 as? LineSocketError ?? .timedOut("\($0)") }
        }
        let open = try sockets.get()
        defer { open.forEach { $0.close() } }

        // Every connection gets an answer: a pong from the ones served, one too_many_connections error from the
        // rest — shelfd caps its connections below the descriptor limit instead of running into EMFILE.
        let answers = await onOwnThread { () -> Result<(served: Int, refused: Int), LineSocketError> in
            Result {
                var served = 0, refused = 0
                for (index, socket) in open.enumerated() {
                    let reply = try socket.readLine(timeout: .seconds(5))
                    if reply == #"{"jsonrpc":"2.0","id":\#(index),"result":"pong"}"# {
                        try socket.sendLine(#"{"id":"again","method":"ping"}"#)
                        guard try socket.readLine(timeout: .seconds(5)) == #"{"jsonrpc":"2.0","id":"again","result":"pong"}"# else {
                            throw LineSocketError.timedOut("second ping on connection \(index)")
                        }
                        served += 1
                    } else if reply?.contains(#""code":7,"#) == true {
                        refused += 1
                    } else {
                        throw LineSocketError.timedOut("odd reply \(reply ?? "none") on connection \(index)")
                    }
                }
                return (served, refused)
            }.mapError { $0 as? LineSocketError ?? .timedOut("\($0)") }
        }
        let (served, refused) = try answers.get()
        #expect(served == Self.limit - 32, "served \(served); the cap is the limit less 32 kept free")
        #expect(served + refused == Self.connections)
        #expect(Self.openDescriptors(pid) < Self.limit, "shelfd ran out of descriptors")
        #expect(child.stderrSoFar.contains("serving at most \(Self.limit - 32) connections"))

        // Meanwhile little CPU: nothing spins.
        let cpuBefore = try #require(Self.cpuTicks(pid), "shelfd is gone: \(child.stderrSoFar.suffix(500))")
        let window = Duration.seconds(1)
        // The window is a wait for an event that must not come: shelfd ending while full. Over it, shelfd must
        // also burn little CPU.
        let ended = await child.waitForExit(timeout: window)
        #expect(ended == nil, "shelfd ended while out of descriptors: \(ended?.stderr.suffix(300) ?? "")")
        let cpuAfter = try #require(Self.cpuTicks(pid))
        let used = Double(cpuAfter - cpuBefore) / Double(Int(sysconf(Int32(_SC_CLK_TCK))))
        #expect(used < 0.3, "shelfd used \(used) s of CPU in \(window) while full: it spins")

        // Once the clients close, descriptors free up and a new connection is served.
        open.forEach { $0.close() }
        #expect(try await Self.freshPing(port: port).get() == #"{"jsonrpc":"2.0","id":"fresh","result":"pong"}"#)
        print("descriptors: limit \(Self.limit), \(Self.connections) connections, \(served) served, \(refused) refused, CPU \(used) s in \(window)")
    }

    /// The reply to a ping on a new connection, once the server stops refusing them. The server notices closes
    /// asynchronously: until it has, a new connection is still refused (code 7), so try again — each refusal is
    /// itself the event waited for — for at most 10 s.
    static func freshPing(port: UInt16) async -> Result<String?, LineSocketError> {
        await onOwnThread {
            Result {
                let deadline = ContinuousClock.now + .seconds(10)
                while true {
                    let socket = try BlockingLineSocket.connect(port: port)
                    defer { socket.close() }
                    try socket.sendLine(#"{"id":"fresh","method":"ping"}"#)
                    let reply = try socket.readLine(timeout: .seconds(10))
                    if reply?.contains(#""code":7,"#) != true || ContinuousClock.now > deadline { return reply }
                    _ = try? socket.readLine(timeout: .seconds(1))
                }
            }.mapError { $0 as? LineSocketError ?? .timedOut("\($0)") }
        }
    }

    /// How many descriptors process `pid` has open.
    static func openDescriptors(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// The CPU time process `pid` has used, user plus system, in clock ticks (`/proc/PID/stat` fields 14 and 15).
    static func cpuTicks(_ pid: Int32) -> Int? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
            case let stat = String(decoding: data, as: UTF8.self), let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name start at field 3.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }
}

import Foundation
import Testing

/// `shelf-bench` (the load generator behind scripts/bench) against a real `shelfd`. These check that it drives the
/// protocol correctly and reports what it saw; they assert no timing: the figures belong to scripts/bench.
@Suite struct BenchToolTests {
    static let add = #"{"id":{n},"method":"add","params":{"title":"Book {n}"}}"#

    @Test("a counted run sends every counter value exactly once, across connections, and counts every reply")
    func countedRun() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                let outcome = try await run(
                    "shelf-bench",
                    ["--server", shelfd.address, "--connections", "3", "--pipeline", "4", "--requests", "50",
                     "--template", Self.add],
                    environment: sandbox.environment, timeout: .seconds(30))
                #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
                let result = Self.fields(outcome.stdout)
                #expect(result["mode"] == "load")
                #expect(result["ops"] == "50")
                #expect(result["replies"] == "50")
                #expect(result["errors"] == "0")
                #expect(result["failed_connections"] == "0")

                let listed = try await shelfd.shelf("list")
                #expect(listed.status == 0)
                let titles = listed.stdout.split(separator: "\n").compactMap { row in
                    row.range(of: "] ").map { String(row[$0.upperBound...]) }
                }
                #expect(titles.sorted() == (1...50).map { "Book \($0)" }.sorted())
            }
        }
    }

    @Test("error replies are counted as errors, and a timed run reports latency percentiles")
    func errorsAndPercentiles() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                let outcome = try await run(
                    "shelf-bench",
                    ["--server", shelfd.address, "--connections", "2", "--duration", "0.3", "--warmup", "0.1",
                     "--template", #"{"id":{n},"method":"no-such-method"}"#],
                    environment: sandbox.environment, timeout: .seconds(30))
                #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
                let result = Self.fields(outcome.stdout)
                let replies = Int(result["replies"] ?? "") ?? 0
                #expect(replies > 0)
                #expect(result["errors"] == result["replies"])
                for key in ["ops_per_s", "p50_us", "p99_us", "p999_us"] {
                    #expect(Double(result[key] ?? "") != nil, "\(key) missing from \(outcome.stdout)")
                }
                #expect(outcome.stderr.contains("ops/s; latency p50 "))
            }
        }
    }

    @Test("every watcher receives every acknowledged change, in order")
    func watchers() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                let outcome = try await run(
                    "shelf-bench",
                    ["--server", shelfd.address, "--watchers", "3", "--connections", "1", "--pipeline", "4",
                     "--duration", "0.3", "--template", Self.add],
                    environment: sandbox.environment, timeout: .seconds(60))
                #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
                let result = Self.fields(outcome.stdout)
                #expect(result["mode"] == "watch")
                #expect(result["complete"] == "3")
                #expect(result["gaps"] == "0")
                #expect(result["stopped"] == "0")
                #expect((Int(result["acked"] ?? "") ?? 0) > 0)
                #expect(result["min_received"] == result["acked"])
                #expect(result["max_received"] == result["acked"])
            }
        }
    }

    @Test("--hold opens the connections, waits for each probe's reply, reports them and exits after --duration")
    func hold() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                let outcome = try await run(
                    "shelf-bench",
                    ["--server", shelfd.address, "--hold", "20", "--duration", "0.2",
                     "--template", #"{"id":1,"method":"ping"}"#],
                    environment: sandbox.environment, timeout: .seconds(30))
                #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
                let result = Self.fields(outcome.stdout)
                #expect(result["mode"] == "hold")
                #expect(result["held"] == "20")
                #expect(result["failed"] == "0")
            }
        }
    }

    @Test("bad usage exits 64, and a server off loopback is refused before any connection")
    func usage() async throws {
        try await Sandbox.with { sandbox in
            let unknown = try await run("shelf-bench", ["--conections", "2"], environment: sandbox.environment)
            #expect(unknown.status == 64)
            #expect(unknown.stderr.hasPrefix("shelf-bench: error: unknown option --conections\n"))
            #expect(unknown.stderr.contains("usage: shelf-bench "))

            let remote = try await run("shelf-bench", ["--server", "192.0.2.10:7453"], environment: sandbox.environment)
            #expect(remote.status == 64)
            #expect(remote.stderr.hasPrefix("shelf-bench: error: --server must be a loopback address"))

            let help = try await run("shelf-bench", ["--help"], environment: sandbox.environment)
            #expect(help.status == 0)
            #expect(help.stdout.hasPrefix("usage: shelf-bench "))
        }
    }

    @Test("a server that is not there makes it exit 1 with the reason")
    func nothingListening() async throws {
        try await Sandbox.with { sandbox in
            // A port that was free a moment ago: bind it, read it, close it.
            let port = try Self.freePort()
            let outcome = try await run(
                "shelf-bench", ["--server", "127.0.0.1:\(port)", "--requests", "1"], environment: sandbox.environment,
                timeout: .seconds(30))
            #expect(outcome.status == 1)
            #expect(outcome.stderr.contains("cannot connect to 127.0.0.1:\(port)"))
        }
    }

    /// The `key=value` pairs of the result line.
    static func fields(_ stdout: String) -> [String: String] {
        let line = stdout.split(separator: "\n").first { $0.hasPrefix("mode=") } ?? ""
        var fields: [String: String] = [:]
        for pair in line.split(separator: " ") {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            fields[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        return fields
    }

    struct NoPort: Error {}

    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw NoPort() }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else { throw NoPort() }
        return UInt16(bigEndian: address.sin_port)
    }
}

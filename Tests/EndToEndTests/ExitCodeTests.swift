import Foundation
import Glibc
import Testing

@Suite struct ExitCodeTests {
    @Test("shelf exits 69 with one clear line when nothing listens on the port")
    func nothingListening() async throws {
        try await Sandbox.with { sandbox in
            // A bound socket that never listens: the port is ours (no other test can take it) and refuses connections.
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            try #require(fd >= 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
                }
            }
            try #require(bound)
            let port = UInt16(bigEndian: address.sin_port)

            let outcome = try await run("shelf", ["--server", "127.0.0.1:\(port)", "list"], environment: sandbox.environment)
            #expect(outcome.status == 69)
            #expect(outcome.stdout == "")
            #expect(outcome.stderr == "shelf: cannot connect to 127.0.0.1:\(port): Connection refused — is shelfd running?\n")
        }
    }

    @Test("an unknown command exits 64 with error: and the usage on stderr")
    func unknownCommand() async throws {
        try await Sandbox.with { sandbox in
            let outcome = try await run("shelf", ["frobnicate"], environment: sandbox.environment)
            #expect(outcome.status == 64)
            #expect(outcome.stdout == "")
            #expect(outcome.stderr.hasPrefix("shelf: error: unknown command \"frobnicate\"\n"))
            #expect(outcome.stderr.contains("usage: shelf "))
        }
    }

    @Test("a refused request exits 1: a blank title, an unknown id prefix; an ID that cannot be one is bad usage, 64")
    func refusedRequests() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                let blank = try await shelfd.shelf("add", "   ")
                #expect(blank.status == 1)
                #expect(blank.stdout == "")
                #expect(blank.stderr.contains("Enter a title"))

                let unknown = try await shelfd.shelf("read", "abcd")
                #expect(unknown.status == 1)
                #expect(unknown.stderr == "shelf: no item has an id starting with abcd\n")

                let malformed = try await shelfd.shelf("rm", "xyz")
                #expect(malformed.status == 64)
                #expect(malformed.stderr == "shelf: \"xyz\" is not an id: give a full id or at least 4 hex digits of one\n")

                let notHex = try await shelfd.shelf("read", "zzzz")
                #expect(notHex.status == 64)
                #expect(notHex.stderr.contains("is not an id"))
            }
        }
    }

    @Test("shelf --help exits 0 with the usage on stdout")
    func help() async throws {
        try await Sandbox.with { sandbox in
            let outcome = try await run("shelf", ["--help"], environment: sandbox.environment)
            #expect(outcome.status == 0)
            #expect(outcome.stdout.hasPrefix("usage: shelf "))
            #expect(outcome.stderr == "")
        }
    }

    @Test("shelf --version and shelfd --version exit 0 and print one version line", arguments: ["shelf", "shelfd"])
    func version(program: String) async throws {
        try await Sandbox.with { sandbox in
            let outcome = try await run(program, ["--version"], environment: sandbox.environment)
            #expect(outcome.status == 0)
            #expect(outcome.stdout.hasPrefix("\(program) ") && outcome.stdout.contains("(protocol "))
            #expect(outcome.stdout.filter { $0 == "\n" }.count == 1)
            #expect(outcome.stderr == "")
        }
    }
}

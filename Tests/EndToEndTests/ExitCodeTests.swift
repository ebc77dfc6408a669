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

    @Test("a usage error exits 64 with error: and a pointer to help on stderr: the command's usage line when the command is known")
    func unknownCommand() async throws {
        try await Sandbox.with { sandbox in
            let outcome = try await run("shelf", ["frobnicate"], environment: sandbox.environment)
            #expect(outcome.status == 64)
            #expect(outcome.stdout == "")
            #expect(outcome.stderr == "shelf: error: unknown command \"frobnicate\"\nrun 'shelf help' for the commands and options\n")
            let dashed = try await run("shelf", ["add", "Catch", "-22"], environment: sandbox.environment)
            #expect(dashed.status == 64)
            #expect(dashed.stderr == "shelf: error: unknown option -22 (put -- before a title with a word that starts with -)\n"
                + "usage: shelf add [--author A] [--url U] [--tag T]... [--note TEXT] [--expect REVISION] [--] TITLE...\n"
                + "run 'shelf help add' for more\n")
        }
    }

    @Test("a full server (7 too_many_connections) exits 69, as an unreachable one does: trying again later may work")
    func fullServer() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory", "--max-connections", "1"], environment: sandbox.environment) { shelfd in
                let holder = try BlockingLineSocket.connect(port: try #require(UInt16(shelfd.port)))
                defer { holder.close() }
                try holder.sendLine(#"{"id":1,"method":"ping"}"#)
                #expect(try holder.readLine() == #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#, "the one connection is taken")
                let refused = try await shelfd.shelf("ping")
                #expect(refused.status == 69)
                #expect(refused.stdout == "")
                #expect(refused.stderr == "shelf: Too many connections (the limit is 1); try again later\n")
            }
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

                // A full id no item has: the same kind of message as a prefix, naming the id (it used to be the
                // server's "no longer available", about an id that may never have existed).
                let missing = "00000000-0000-0000-0000-000000000000"
                let unknownFull = try await shelfd.shelf("read", missing)
                #expect(unknownFull.status == 1)
                #expect(unknownFull.stderr == "shelf: no item has the id \(missing)\n")
            }
        }
    }

    @Test("rm names what it removed, given a full id as given a prefix")
    func removeByFullID() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                let added = try await shelfd.shelf("--json", "add", "Dune")
                let words = added.stdout.components(separatedBy: "\"")
                let id = try #require(words.first { $0.count == 36 && UUID(uuidString: $0) != nil })
                let removed = try await shelfd.shelf("rm", id)
                #expect(removed.status == 0)
                #expect(removed.stdout == "removed \(id.prefix(8)) Dune (revision 2)\n")
            }
        }
    }

    @Test("a server that takes the connection but never answers: exit 69 after --timeout, saying a change may have been made")
    func timeout() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                shelfd.child.send(SIGSTOP)
                defer { shelfd.child.send(SIGCONT) }
                let list = try await shelfd.shelf("--timeout", "1", "list")
                #expect(list.status == 69)
                #expect(list.stderr == "shelf: no reply from \(shelfd.address) within 1 s (--timeout; is shelfd stopped or overloaded?)\n")
                let add = try await shelfd.shelf("--timeout", "1", "add", "Dune")
                #expect(add.status == 69)
                #expect(add.stderr.hasSuffix("within 1 s (--timeout; is shelfd stopped or overloaded?); the change may or may not have been made (shelf list shows)\n"), "\(add.stderr)")
                // The prefix lookup timed out before any change was sent: nothing to be unsure of.
                let read = try await shelfd.shelf("--timeout", "1", "read", "abcd")
                #expect(read.status == 69)
                #expect(read.stderr == "shelf: no reply from \(shelfd.address) within 1 s (--timeout; is shelfd stopped or overloaded?)\n")
            }
        }
    }

    @Test("5 unauthorized is said in shelf's terms: which token was refused, or how to give one")
    func unauthorized() async throws {
        try await Sandbox.with { sandbox in
            let tokenFile = sandbox.directory.appending(path: "token").path
            let wrongFile = sandbox.directory.appending(path: "wrong").path
            try writePrivateFile(tokenFile, "s3cret\n")
            try writePrivateFile(wrongFile, "guess\n")
            try await withShelfd(["--store", "memory", "--token-file", tokenFile], environment: sandbox.environment) { shelfd in
                let none = try await shelfd.shelf("list")
                #expect(none.status == 1)
                let defaultPath = sandbox.directory.appending(path: "home/.config/shelf/token").path
                #expect(none.stderr == "shelf: this server requires a token: pass --token-file PATH, set SHELF_TOKEN, or put it in \(defaultPath)\n")
                let wrong = try await shelfd.shelf("--token-file", wrongFile, "list")
                #expect(wrong.status == 1)
                #expect(wrong.stderr == "shelf: the server refused the token in \(wrongFile)\n")
                let right = try await shelfd.shelf("--token-file", tokenFile, "list")
                #expect(right.status == 0)
                #expect(right.stdout == "0 items, 0 read (revision 0)\n")
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

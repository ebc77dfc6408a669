import Foundation
import Testing

@Suite struct ShelfdStartupTests {
    @Test("a bad flag exits 64 with error: and where the flags are on stderr, not the whole help")
    func badFlag() async throws {
        try await Sandbox.with { sandbox in
            let outcome = try await run("shelfd", ["--lisen", "127.0.0.1:0"], environment: sandbox.environment)
            #expect(outcome.status == 64)
            #expect(outcome.stdout == "")
            #expect(outcome.stderr == "shelfd: error: unknown option --lisen\nrun 'shelfd --help' for the flags\n")
        }
    }

    @Test("a port already in use exits 1 with one clear line, and the first shelfd keeps serving")
    func portInUse() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { first in
                let second = try await run(
                    "shelfd", ["--listen", first.address, "--store", "memory"], environment: sandbox.environment)
                #expect(second.status == 1)
                #expect(second.stdout == "")
                #expect(StampedLog.untimedText(second.stderr) == "shelfd: cannot listen on \(first.address): Address already in use (errno 98)"
                    + " — is another shelfd (or other server) running there? Stop it, or pick another port with --listen\n")
                #expect(try await first.shelf("ping").stdout == "pong\n")
            }
        }
    }

    @Test("a second shelfd on the same store file exits 1 saying it is in use, and the first keeps serving")
    func storeInUse() async throws {
        try await Sandbox.with { sandbox in
            let store = "file:\(sandbox.storePath)"
            try await withShelfd(["--store", store], environment: sandbox.environment) { first in
                #expect(try await first.shelf("add", "Dune").status == 0)
                let second = try await run(
                    "shelfd", ["--listen", "127.0.0.1:0", "--store", store], environment: sandbox.environment)
                #expect(second.status == 1)
                #expect(second.stdout == "")
                #expect(StampedLog.untimedText(second.stderr) == "shelfd: cannot open the store: \(sandbox.storePath) is in use by another shelfd; stop that one first, or pass a different --store\n")
                #expect(try await first.shelf("list").stdout.hasSuffix("1 item, 0 read (revision 1)\n"))
            }
        }
    }

    @Test(
        "a store file it cannot trust exits 1, names the file and leaves it byte for byte as it was",
        arguments: [
            ("corrupt", "{not json"),
            ("duplicate ids", """
                {"format":1,"revision":2,"items":[\
                {"id":"3fa2b1c4-0000-4000-8000-000000000001","title":"Dune","isRead":false,"addedAt":"2026-01-01T00:00:00.000Z","revision":1},\
                {"id":"3fa2b1c4-0000-4000-8000-000000000001","title":"Dune again","isRead":false,"addedAt":"2026-01-01T00:00:00.000Z","revision":2}]}

                """),
            ("unknown format", #"{"format":99,"items":[],"revision":0}"#),
        ])
    func untrustedStore(kind: String, contents: String) async throws {
        try await Sandbox.with { sandbox in
            let bytes = Data(contents.utf8)
            try bytes.write(to: URL(filePath: sandbox.storePath))
            let before = try FileManager.default.contentsOfDirectory(atPath: sandbox.directory.path).sorted()

            let outcome = try await run(
                "shelfd", ["--listen", "127.0.0.1:0", "--store", "file:\(sandbox.storePath)"], environment: sandbox.environment)
            #expect(outcome.status == 1, "\(kind)")
            #expect(outcome.stdout == "", "never listened")
            #expect(outcome.stderr.contains(sandbox.storePath), "\(kind): \(outcome.stderr)")
            #expect(outcome.stderr.filter { $0 == "\n" }.count == 1, "one line: \(outcome.stderr)")
            switch kind {
            case "duplicate ids": #expect(outcome.stderr.contains("3fa2b1c4-0000-4000-8000-000000000001 twice"))
            case "unknown format": #expect(outcome.stderr.contains("format 99"))
            default: #expect(outcome.stderr.contains("not a valid Shelf list"))
            }
            #expect(try Data(contentsOf: URL(filePath: sandbox.storePath)) == bytes, "the file is untouched")
            #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.directory.path).sorted() == before)
        }
    }

    @Test("shelfd logs each connection only with --verbose", arguments: [false, true])
    func connectionLog(verbose: Bool) async throws {
        try await Sandbox.with { sandbox in
            let daemon = try await RunningShelfd.start(["--store", "memory"] + (verbose ? ["--verbose"] : []), environment: sandbox.environment)
            #expect(try await daemon.shelf("ping").status == 0)
            let stopped = try #require(await daemon.stop())
            let lines = StampedLog.untimedText(stopped.stderr).split(separator: "\n")
            let opened = lines.filter { $0.hasPrefix("shelfd: connection ") && $0.contains(" from 127.0.0.1:") && $0.hasSuffix(" opened") }
            let closed = lines.filter { $0.hasPrefix("shelfd: connection ") && $0.hasSuffix(" closed") }
            let expected = verbose ? 1 : 0
            #expect(opened.count == expected && closed.count == expected, "\(lines)")
        }
    }
}

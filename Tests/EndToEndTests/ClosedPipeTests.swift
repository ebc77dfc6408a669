import Foundation
import Glibc
import Testing

/// Output to a reader that went away (`shelf list | head -1`, `shelfd 2>&1 | head`) never crashes a process (both
/// ignore SIGPIPE, and Foundation's `FileHandle.write` traps on the `EPIPE` that follows): `shelf` then ends as if
/// by SIGPIPE, `shelfd` drops the log lines and serves on.
@Suite struct ClosedPipeTests {
    @Test("shelf list and shelf watch into a pipe nobody reads end by SIGPIPE, as Unix commands do: no trap, no endless watch",
          arguments: [["list"], ["watch"]])
    func shelfIntoClosedPipe(command: [String]) async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                for n in 1...3 { #expect(try await shelfd.shelf("add", "Book \(n)").status == 0) }
                let outcome = try await run(
                    "shelf", ["--server", shelfd.address] + command, environment: sandbox.environment, abandoning: .output)
                #expect(outcome.signaled)
                #expect(outcome.status == SIGPIPE)
            }
        }
    }

    @Test("shelfd whose standard error nobody reads keeps serving and logging connections, then stops cleanly")
    func shelfdLoggingIntoClosedPipe() async throws {
        try await Sandbox.with { sandbox in
            let shelfd = try await RunningShelfd.start(["--store", "memory", "--verbose"], environment: sandbox.environment, abandoning: .error)
            // Each connection logs two lines ("opened", "closed") into the dead pipe.
            for n in 1...5 {
                let outcome = try await shelfd.shelf("add", "Book \(n)")
                #expect(outcome.status == 0, "add \(n): \(outcome.stderr)")
            }
            #expect(try await shelfd.shelf("ping").status == 0)
            let stopped = await shelfd.stop()
            #expect(stopped?.status == 0)
            #expect(stopped?.signaled == false)
        }
    }
}

import Foundation
import Glibc
import Synchronization
import Testing

/// Output to a reader that went away (`shelf list | head -1`, `shelfd 2>&1 | head`) never crashes a process (both
/// ignore SIGPIPE, and Foundation's `FileHandle.write` traps on the `EPIPE` that follows): `shelf` then ends as if
/// by SIGPIPE, `shelfd` drops the log lines and serves on.
@Suite struct ClosedPipeTests {
    /// Runs `executable` with stdout (or stderr, `closing: .error`) going to a pipe whose reading end is already
    /// closed; the other stream goes to /dev/null. Returns how it ended.
    private static func runIntoClosedPipe(
        _ name: String, _ arguments: [String], closing stream: KeyPath<Process, Any?>
    ) async throws -> (reason: Process.TerminationReason, status: Int32) {
        let process = Process()
        process.executableURL = try Executables.url(name)
        process.arguments = arguments
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        process.standardOutput = stream == \Process.standardOutput ? pipe : FileHandle.nullDevice
        process.standardError = stream == \Process.standardError ? pipe : FileHandle.nullDevice
        let ended = Ended()
        process.terminationHandler = { ended.fire($0.terminationReason, $0.terminationStatus) }
        try process.run()
        try pipe.fileHandleForWriting.close()
        return try await ended.value(within: .seconds(20)) {
            process.terminate()
        }
    }

    @Test("shelf list and shelf watch into a pipe nobody reads end by SIGPIPE, as Unix commands do: no trap, no endless watch",
          arguments: [["list"], ["watch"]])
    func shelfIntoClosedPipe(command: [String]) async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                for n in 1...3 { #expect(try await shelfd.shelf("add", "Book \(n)").status == 0) }
                let (reason, status) = try await Self.runIntoClosedPipe(
                    "shelf", ["--server", shelfd.address] + command, closing: \Process.standardOutput)
                #expect(reason == .uncaughtSignal)
                #expect(status == SIGPIPE)
            }
        }
    }

    @Test("shelfd whose standard error nobody reads keeps serving and logging connections, then stops cleanly")
    func shelfdLoggingIntoClosedPipe() async throws {
        try await Sandbox.with { sandbox in
            let shelfd = try await RunningShelfd.start(["--store", "memory"], environment: sandbox.environment, abandoningStderr: true)
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

/// A process's end, reported by its termination handler.
private final class Ended: Sendable {
    private let state = Mutex<(outcome: (Process.TerminationReason, Int32)?, waiter: CheckedContinuation<(Process.TerminationReason, Int32), Never>?)>((nil, nil))

    func fire(_ reason: Process.TerminationReason, _ status: Int32) {
        let waiter = state.withLock { state -> CheckedContinuation<(Process.TerminationReason, Int32), Never>? in
            state.outcome = (reason, status)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: (reason, status))
    }

    /// The end, or `onTimeout` is called (it should make the process end) after `limit`.
    func value(within limit: Duration, onTimeout: @escaping @Sendable () -> Void) async throws -> (reason: Process.TerminationReason, status: Int32) {
        let timer = Task {
            try await Task.sleep(for: limit)
            onTimeout()
        }
        defer { timer.cancel() }
        let (reason, status) = await withCheckedContinuation { continuation in
            let now = state.withLock { state -> (Process.TerminationReason, Int32)? in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
        return (reason, status)
    }
}

import Foundation
import Testing

/// Why an end-to-end step could not go on (the details are also recorded as a test issue).
struct EndToEndFailure: Error, CustomStringConvertible {
    let description: String
}

/// A scratch directory for one test, and an environment for the processes it runs that holds nothing from the
/// developer's shell but `PATH` (no `SHELF_SERVER`, no `SHELF_DATA_DIR`; `HOME` points inside the directory).
struct Sandbox: Sendable {
    let directory: URL

    /// `<directory>/reading-list.json`, the default file name.
    var storePath: String { directory.appending(path: "reading-list.json").path }

    var environment: [String: String] {
        ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": directory.appending(path: "home").path]
    }

    /// Runs `body` with a new sandbox and removes its directory afterwards, however `body` ends.
    static func with<T>(_ body: (Sandbox) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appending(path: "shelf-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(Sandbox(directory: directory))
    }
}

/// Runs `shelf` or `shelfd` until it exits by itself.
/// - Throws: `EndToEndFailure` (after killing it) when it is still running after `timeout`.
func run(
    _ name: String, _ arguments: [String], environment: [String: String], timeout: Duration = .seconds(10),
    abandoning: ChildProcess.Stream? = nil, sourceLocation: SourceLocation = #_sourceLocation
) async throws -> ChildProcess.Outcome {
    let child = try ChildProcess.launch(try Executables.url(name), arguments, environment: environment, abandoning: abandoning)
    if let outcome = await child.waitForExit(timeout: timeout) { return outcome }
    let last = await child.terminate(grace: .seconds(1))
    let failure = EndToEndFailure(
        description: "`\(child.commandLine)` did not exit within \(timeout); stdout: \(last?.stdout ?? child.stdoutSoFar) stderr: \(last?.stderr ?? child.stderrSoFar)")
    Issue.record(Comment(rawValue: failure.description), sourceLocation: sourceLocation)
    throw failure
}

/// A `shelfd` started by a test, listening on a port the system picked.
struct RunningShelfd: Sendable {
    let child: ChildProcess
    /// `127.0.0.1:PORT`, as `shelfd listening on` printed it.
    let address: String
    let environment: [String: String]

    /// The port it listens on.
    var port: String { String(address.split(separator: ":").last ?? "") }

    /// Starts `shelfd --listen 127.0.0.1:0 <arguments>` and waits (at most 10 s) for its `listening` line.
    /// - Throws: `EndToEndFailure` (after terminating it) if the line does not come.
    static func start(
        _ arguments: [String], environment: [String: String], abandoning: ChildProcess.Stream? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> RunningShelfd {
        let child = try ChildProcess.launch(
            try Executables.url("shelfd"), ["--listen", "127.0.0.1:0"] + arguments, environment: environment,
            abandoning: abandoning)
        let prefix = "shelfd listening on "
        guard let line = await child.waitForLine(startingWith: prefix, timeout: .seconds(10)) else {
            let last = await child.terminate(grace: .seconds(2))
            let failure = EndToEndFailure(
                description: "shelfd did not report listening within 10 s: \(String(describing: last))")
            Issue.record(Comment(rawValue: failure.description), sourceLocation: sourceLocation)
            throw failure
        }
        return RunningShelfd(child: child, address: String(line.dropFirst(prefix.count)), environment: environment)
    }

    /// Runs `shelf --server <address> <arguments>` to completion.
    func shelf(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) async throws -> ChildProcess.Outcome {
        try await run("shelf", ["--server", address] + arguments, environment: environment, sourceLocation: sourceLocation)
    }

    /// Sends SIGTERM and waits up to `timeout` for it to exit (SIGKILL after that, and `nil`).
    func stop(timeout: Duration = .seconds(5)) async -> ChildProcess.Outcome? {
        child.send(SIGTERM)
        if let outcome = await child.waitForExit(timeout: timeout) { return outcome }
        await child.terminate(grace: .zero)
        return nil
    }
}

/// Starts a `shelfd`, runs `body` with it, and terminates that `shelfd` however `body` ends.
func withShelfd<T>(
    _ arguments: [String], environment: [String: String], sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (RunningShelfd) async throws -> T
) async throws -> T {
    let daemon = try await RunningShelfd.start(arguments, environment: environment, sourceLocation: sourceLocation)
    do {
        let result = try await body(daemon)
        await daemon.child.terminate()
        return result
    } catch {
        await daemon.child.terminate()
        throw error
    }
}

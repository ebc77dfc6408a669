import Foundation
import Glibc
import Testing

/// `shelf ui` run in a pseudo-terminal against a real `shelfd`: keys typed, the screen read back.
@Suite struct LiveViewTests {
    /// Starts `shelf --server ADDRESS ui` with the pseudo-terminal as its standard input, output and error.
    private static func launch(_ terminal: PseudoTerminal, server: String, environment: [String: String]) throws -> Process {
        let process = Process()
        process.executableURL = try Executables.url("shelf")
        process.arguments = ["--server", server, "ui"]
        process.environment = environment.merging(["TERM": "xterm-256color"]) { $1 }
        let handle = FileHandle(fileDescriptor: terminal.slave, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return process
    }

    /// Waits for `process` to exit (a deadline, then SIGKILL).
    private static func exitStatus(_ process: Process, timeout: Duration = .seconds(10)) async -> Int32? {
        let (ended, sink) = AsyncStream.makeStream(of: Int32?.self)
        process.terminationHandler = { @Sendable ended in sink.yield(ended.terminationStatus) }
        if !process.isRunning { return process.terminationStatus }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            sink.yield(nil)
        }
        defer { timer.cancel() }
        var first = ended.makeAsyncIterator()
        guard let status = await first.next() ?? nil else {
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        return status
    }

    @Test("add with Enter, toggle, filter, a refused save that keeps the input, another client's change unprompted, and the terminal restored after q")
    func liveView() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory", "--insecure-no-auth"], environment: sandbox.environment) { shelfd in
                _ = try await shelfd.shelf("add", "Dune")
                let terminal = try PseudoTerminal()
                defer { terminal.close() }
                let before = terminal.settings
                let process = try Self.launch(terminal, server: shelfd.address, environment: sandbox.environment)

                #expect(await terminal.waitForScreen { $0.contains(" [ ] Dune") && $0.contains { $0.contains("revision 1 · live") } },
                        "\(terminal.rows)")

                terminal.type("a")
                terminal.type("Solaris\r")
                #expect(await terminal.waitForScreen { $0.contains(" [ ] Solaris") && $0.contains { $0.contains("revision 2 · live") } },
                        "\(terminal.rows)")

                terminal.type("x")
                #expect(await terminal.waitForScreen { $0.contains(" [x] Solaris") }, "\(terminal.rows)")

                terminal.type("/dun")
                #expect(await terminal.waitForScreen { $0.contains(" [ ] Dune") && !$0.contains(" [x] Solaris") }, "\(terminal.rows)")
                terminal.type("\u{1b}")
                #expect(await terminal.waitForScreen { $0.contains(" [x] Solaris") }, "\(terminal.rows)")

                // A title over 1,000 characters, pasted: the server refuses it, the line keeps it.
                terminal.type("a\u{1b}[200~" + String(repeating: "z", count: 1001) + "\u{1b}[201~\r")
                #expect(await terminal.waitForScreen { rows in
                    rows.contains { $0.hasPrefix("not saved:") } && rows.contains { $0.hasPrefix("add: zzzz") }
                }, "\(terminal.rows)")
                terminal.type("\u{1b}")

                _ = try await shelfd.shelf("add", "from another terminal")
                #expect(await terminal.waitForScreen { $0.contains(" [ ] from another terminal") && $0.contains { $0.contains("revision 4 · live") } },
                        "\(terminal.rows)")

                terminal.type("q")
                #expect(await Self.exitStatus(process) == 0)
                #expect(terminal.settings == before)
                let output = String(decoding: terminal.output, as: UTF8.self)
                #expect(output.hasPrefix("\u{1b}[?1049h"))
                #expect(output.hasSuffix("\u{1b}[?1049l"))
            }
        }
    }

    @Test("SIGTERM restores the terminal and exits 0")
    func sigtermRestores() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory", "--insecure-no-auth"], environment: sandbox.environment) { shelfd in
                let terminal = try PseudoTerminal()
                defer { terminal.close() }
                let before = terminal.settings
                let process = try Self.launch(terminal, server: shelfd.address, environment: sandbox.environment)
                #expect(await terminal.waitForScreen { $0.contains { $0.contains("revision 0 · live") } }, "\(terminal.rows)")
                #expect(terminal.settings != before)
                kill(process.processIdentifier, SIGTERM)
                #expect(await Self.exitStatus(process) == 0)
                #expect(terminal.settings == before)
            }
        }
    }
}

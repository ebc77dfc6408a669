import Foundation
import Glibc
import ShelfTestSupport
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
        let exited = try? await result(within: timeout) { () -> Int32? in
            var first = ended.makeAsyncIterator()
            return await first.next() ?? nil
        }
        guard let status = exited ?? nil else {
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        return status
    }

    @Test("add with Enter, toggle, filter, a refused save that keeps the input, another client's change unprompted, and the terminal restored after q")
    func liveView() async throws {
        try await Self.withView(titles: ["Dune"]) { terminal, process, shelfd, before in
            #expect(await terminal.waitForScreen { $0.contains(" [ ] Dune") }, "\(terminal.rows)")

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
            #expect(String(decoding: terminal.output, as: UTF8.self).hasPrefix("\u{1b}[?1049h"))
            #expect(await terminal.waitForOutput { String(decoding: $0, as: UTF8.self).hasSuffix("\u{1b}[?1049l") })
        }
    }

    /// Waits (on a thread of its own: `waitid` blocks) until `pid` is stopped, leaving it to be waited for.
    private static func waitUntilStopped(_ pid: Int32, timeout: Duration = .seconds(10)) async -> Bool {
        let (stops, sink) = AsyncStream.makeStream(of: Bool.self)
        Thread.detachNewThread {
            var info = siginfo_t()
            while true {
                if waitid(P_PID, id_t(pid), &info, WSTOPPED | WNOWAIT) == 0 {
                    sink.yield(true)
                    return
                }
                if errno != EINTR {
                    sink.yield(false)
                    return
                }
            }
        }
        let stopped = try? await result(within: timeout) { () -> Bool in
            var first = stops.makeAsyncIterator()
            return await first.next() ?? false
        }
        return stopped ?? false
    }

    private static func count(_ needle: String, in bytes: [UInt8]) -> Int {
        String(decoding: bytes, as: UTF8.self).components(separatedBy: needle).count - 1
    }

    @Test("Ctrl-Z restores the terminal, then stops; continued, the view is raw and drawn again; q restores it")
    func suspendAndContinue() async throws {
        try await Self.withView(titles: ["Dune"]) { terminal, process, _, before in
            let raw = terminal.settings
            terminal.type("\u{1a}")
            #expect(await Self.waitUntilStopped(process.processIdentifier))
            #expect(terminal.settings == before)
            #expect(await terminal.waitForOutput { String(decoding: $0, as: UTF8.self).hasSuffix("\u{1b}[?1049l") })

            kill(process.processIdentifier, SIGCONT)
            #expect(await terminal.waitForOutput { Self.count("\u{1b}[?1049h", in: $0) >= 2 && Self.count(" [ ] Dune", in: $0) >= 2 })
            #expect(await terminal.waitForScreen { $0.contains(" [ ] Dune") }, "\(terminal.rows)")
            #expect(terminal.settings == raw)

            terminal.type("q")
            #expect(await Self.exitStatus(process) == 0)
            #expect(terminal.settings == before)
        }
    }

    @Test("SIGWINCH redraws the whole view at the new size")
    func resizeRedraws() async throws {
        try await Self.withView(titles: ["Dune"]) { terminal, process, _, before in
            terminal.resize(width: 50, height: 10)
            kill(process.processIdentifier, SIGWINCH)
            #expect(await terminal.waitForScreen { rows in
                rows[1] == " [ ] Dune" && rows[8].hasPrefix(" revision 1 · live") && rows[8].hasSuffix("? keys")
                    && rows[8].count == 49
            }, "\(terminal.rows)")
            terminal.type("q")
            #expect(await Self.exitStatus(process) == 0)
            #expect(terminal.settings == before)
        }
    }

    /// Runs `body` with `shelf ui` on a pseudo-terminal, against a `shelfd` holding `titles`, once its list is
    /// on screen; `before` is the terminal's settings before it started.
    private static func withView(
        environment extra: [String: String] = [:], titles: [String] = [],
        _ body: (_ terminal: PseudoTerminal, _ process: Process, _ shelfd: RunningShelfd, _ before: [UInt8]) async throws -> Void
    ) async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory", "--insecure-no-auth"], environment: sandbox.environment) { shelfd in
                for title in titles { _ = try await shelfd.shelf("add", title) }
                let terminal = try PseudoTerminal()
                defer { terminal.close() }
                let before = terminal.settings
                let process = try launch(terminal, server: shelfd.address, environment: sandbox.environment.merging(extra) { $1 })
                let live = "revision \(titles.count) · live"
                #expect(await terminal.waitForScreen { $0.contains { $0.contains(live) } }, "\(terminal.rows)")
                #expect(terminal.settings != before)
                try await body(terminal, process, shelfd, before)
            }
        }
    }

    @Test("SIGTERM restores the terminal and exits 0; a fault (SIGSEGV) restores it before the process dies of it",
          arguments: [SIGTERM, SIGSEGV])
    func signalRestores(_ number: Int32) async throws {
        // No backtrace: it would take seconds to symbolicate, and this crash is sent on purpose.
        try await Self.withView(environment: ["SWIFT_BACKTRACE": "enable=no"]) { terminal, process, _, before in
            kill(process.processIdentifier, number)
            let status = await Self.exitStatus(process)
            if number == SIGTERM {
                #expect(status == 0)
            } else {
                #expect(process.terminationReason == .uncaughtSignal)
                #expect(status == SIGSEGV)
            }
            #expect(terminal.settings == before)
        }
    }
}

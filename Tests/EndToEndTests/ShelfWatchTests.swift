import Foundation
import Testing

/// `shelf watch` against a real `shelfd`, all three as processes: watchers print every change once, in order,
/// stop cleanly on SIGINT, and survive a server restart (README, "shelf watch"; protocol/PROTOCOL.md §6).
@Suite struct ShelfWatchTests {
    @Test("two shelf watch processes print the same change lines in the same order while a third shelf edits, and exit 0 on SIGINT")
    func twoWatchersAgree() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                let emma = try shortID(in: try await shelfd.shelf("add", "Emma").stdout, after: "added ")
                let watchers = try (0..<2).map { _ in
                    try ChildProcess.launch(try Executables.url("shelf"), ["--server", shelfd.address, "watch"], environment: sandbox.environment)
                }
                do {
                    // Each watcher has listed and is watching once it printed the summary line.
                    for watcher in watchers {
                        let summary = await watcher.waitForLine(startingWith: "1 item, 0 read (revision 1)", timeout: .seconds(10))
                        try #require(summary != nil, "no summary line from `shelf watch`: \(watcher.stdoutSoFar) \(watcher.stderrSoFar)")
                    }
                    let added = try await shelfd.shelf("add", "Dune")
                    #expect(added.status == 0)
                    let dune = try shortID(in: added.stdout, after: "added ")
                    let duneArgument = uniquePrefix(of: dune, among: [emma])
                    for arguments in [["read", duneArgument], ["rename", duneArgument, "Dune", "Messiah"], ["unread", duneArgument], ["rm", duneArgument], ["rm", uniquePrefix(of: emma, among: [dune])]] {
                        let edited = try await run("shelf", ["--server", shelfd.address] + arguments, environment: sandbox.environment)
                        #expect(edited.status == 0, "shelf \(arguments.joined(separator: " ")): \(edited.stderr)")
                    }
                    for watcher in watchers {
                        let last = await watcher.waitForLine(startingWith: "- \(emma) Emma", timeout: .seconds(10))
                        try #require(last != nil, "the last change did not show: \(watcher.stdoutSoFar) \(watcher.stderrSoFar)")
                    }
                    for watcher in watchers { watcher.send(SIGINT) }
                    let expected = """
                        \(emma) [ ] Emma
                        1 item, 0 read (revision 1)
                        + \(dune) Dune
                        ~ \(dune) read: Dune
                        ~ \(dune) title: Dune -> Dune Messiah
                        ~ \(dune) unread: Dune Messiah
                        - \(dune) Dune Messiah
                        - \(emma) Emma

                        """
                    for watcher in watchers {
                        let ended = try #require(await watcher.waitForExit(timeout: .seconds(10)), "shelf watch did not stop on SIGINT")
                        #expect(ended == .init(status: 0, signaled: false, stdout: expected, stderr: ""))
                    }
                } catch {
                    for watcher in watchers { await watcher.terminate(grace: .seconds(1)) }
                    throw error
                }
            }
        }
    }

    @Test("shelf watch says a SIGTERMed server is shutting down, reconnects to it restarted on the same port and file, resumes without listing again (the same stored list, though a new run), then prints the new change")
    func watcherSurvivesServerRestart() async throws {
        try await Sandbox.with { sandbox in
            let store = "file:\(sandbox.storePath)"
            try await Self.withWatcher(["--store", store], sandbox: sandbox) { first, watcher, second in
                try #require(await watcher.waitForLine(startingWith: "0 items, 0 read (revision 0)", timeout: .seconds(10)) != nil,
                             "no summary line: \(watcher.stderrSoFar)")
                let dune = try shortID(in: try await first.shelf("add", "Dune").stdout, after: "added ")
                try #require(await watcher.waitForLine(startingWith: "+ \(dune) Dune", timeout: .seconds(10)) != nil)

                let stopped = try #require(await first.stop(), "shelfd did not stop on SIGTERM")
                #expect(stopped.status == 0 && !stopped.signaled)
                // The same port (a later --listen wins over the helper's port 0) and the same file.
                second = try await RunningShelfd.start(["--listen", first.address, "--store", store], environment: sandbox.environment)
                let restarted = try #require(second)
                #expect(restarted.address == first.address)
                // Another run of shelfd, but the same stored list (hello's "list"): the watcher resumes from revision 1.
                try #require(await watcher.waitForLine(startingWith: "shelf: reconnected to", in: .error, timeout: .seconds(15)) != nil,
                             "no reconnection: \(watcher.stdoutSoFar) \(watcher.stderrSoFar)")
                let emma = try shortID(in: try await restarted.shelf("add", "Emma").stdout, after: "added ")
                try #require(await watcher.waitForLine(startingWith: "+ \(emma) Emma", timeout: .seconds(15)) != nil,
                             "the change after the restart did not show: \(watcher.stdoutSoFar) \(watcher.stderrSoFar)")

                watcher.send(SIGINT)
                let ended = try #require(await watcher.waitForExit(timeout: .seconds(10)), "shelf watch did not stop on SIGINT")
                #expect(ended.status == 0 && !ended.signaled)
                #expect(ended.stdout == "0 items, 0 read (revision 0)\n+ \(dune) Dune\n+ \(emma) Emma\n", "listed once: \(ended.stdout)")
                // A planned stop is told apart from a crash (closing with reason shutdown).
                #expect(ended.stderr.contains("shelf: shelfd at \(first.address) is shutting down; reconnecting when it is back\n"), "\(ended.stderr)")
                #expect(!ended.stderr.contains("lost the connection"), "\(ended.stderr)")
                #expect(ended.stderr.hasSuffix(
                    "shelf: reconnected to \(first.address)\n"), "\(ended.stderr)")
                let lastStop = try #require(await restarted.stop())
                #expect(lastStop.status == 0)
            }
        }
    }

    /// Found by a newcomer's run: a `--store memory` server restarted and given two adds was at revision 2, past the
    /// watcher's 1, so the watcher resumed from revision 1 of another list: it printed only the second add and kept
    /// showing an item that no longer existed.
    @Test("shelf watch lists again when a --store memory server comes back with another list past its revision")
    func watcherListsAgainAfterMemoryRestart() async throws {
        try await Sandbox.with { sandbox in
            try await Self.withWatcher(["--store", "memory"], sandbox: sandbox) { first, watcher, second in
                // Listed, then Alpha shown as a change: the watch is set up (its list line comes before the `watch`
                // call, so stopping it after a listed Alpha could catch it half set up).
                try #require(await watcher.waitForLine(startingWith: "0 items, 0 read (revision 0)", timeout: .seconds(10)) != nil)
                let alpha = try shortID(in: try await first.shelf("add", "Alpha").stdout, after: "added ")
                let seen = await watcher.waitForLine(startingWith: "+ \(alpha) Alpha", timeout: .seconds(10))
                try #require(seen != nil, "Alpha did not show: \(watcher.stdoutSoFar) \(watcher.stderrSoFar)")
                // Held still while the server restarts and takes two adds, so it reconnects only after them: to a
                // list at revision 2, past its 1 (without this, it may come back at revision 0 and be refused).
                watcher.send(SIGSTOP)
                #expect(await first.stop()?.status == 0)
                second = try await RunningShelfd.start(["--listen", first.address, "--store", "memory"], environment: sandbox.environment)
                let restarted = try #require(second)
                let xeno = try shortID(in: try await restarted.shelf("add", "Xeno").stdout, after: "added ")
                let yara = try shortID(in: try await restarted.shelf("add", "Yara").stdout, after: "added ")
                watcher.send(SIGCONT)
                let shown = await watcher.waitForLine(timeout: .seconds(15)) { $0.contains("\(yara)") }
                try #require(shown != nil, "Yara did not show: \(watcher.stdoutSoFar) \(watcher.stderrSoFar)")

                watcher.send(SIGINT)
                let ended = try #require(await watcher.waitForExit(timeout: .seconds(10)))
                #expect(ended.status == 0 && !ended.signaled)
                #expect(ended.stderr.contains("shelf: \(first.address) restarted since revision 1; listing again\n"), "\(ended.stderr)")
                let followed = "0 items, 0 read (revision 0)\n+ \(alpha) Alpha\n"
                #expect(ended.stdout.hasPrefix(followed), "\(ended.stdout)")
                let afterRestart = String(ended.stdout.dropFirst(followed.count))
                // Before the fix: "+ \(yara) Yara\n" alone, Alpha still shown and Xeno never.
                #expect(afterRestart == "\(xeno) [ ] Xeno\n\(yara) [ ] Yara\n2 items, 0 read (revision 2)\n", "\(ended.stdout)")
                #expect(await restarted.stop()?.status == 0)
            }
        }
    }

    /// Found by a newcomer's run: the error says "try again later", but `shelf watch` exited 1 on it.
    @Test("shelf watch retries a server that is full (7 too_many_connections) and starts once a connection is free")
    func watcherWaitsForAFreeConnection() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory", "--max-connections", "1"], environment: sandbox.environment) { shelfd in
                let port = try #require(UInt16(shelfd.port))
                let holder = try BlockingLineSocket.connect(port: port)
                try holder.sendLine(#"{"id":1,"method":"ping"}"#)
                #expect(try holder.readLine() == #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#, "the one connection is taken")
                let watcher = try ChildProcess.launch(
                    try Executables.url("shelf"), ["--server", shelfd.address, "watch"], environment: sandbox.environment)
                let refused = await watcher.waitForLine(startingWith: "shelf: the server is full (Too many connections", in: .error, timeout: .seconds(10))
                #expect(refused?.hasSuffix("); retrying") == true, "\(refused ?? watcher.stderrSoFar)")
                holder.close()
                let summary = await watcher.waitForLine(startingWith: "0 items, 0 read (revision 0)", timeout: .seconds(15))
                #expect(summary != nil, "it did not get in once the connection was free: \(watcher.stderrSoFar)")
                watcher.send(SIGINT)
                let ended = await watcher.waitForExit(timeout: .seconds(10))
                if ended == nil { await watcher.terminate(grace: .zero) }
                #expect(ended?.status == 0)
                // Never connected before: "connected", not "reconnected".
                #expect(ended?.stderr.hasSuffix("shelf: connected to \(shelfd.address)\n") == true, "\(ended?.stderr ?? "")")
            }
        }
    }

    /// Found by review: a watch waiting on a server that took the connection but never answered could not be
    /// stopped (Ctrl-C waited for the watch, whose call no cancellation reaches), and never retried.
    @Test("shelf watch on a server that never answers retries after --timeout, and SIGINT ends it at once")
    func watcherOnAStoppedServer() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                shelfd.child.send(SIGSTOP)
                defer { shelfd.child.send(SIGCONT) }
                let watcher = try ChildProcess.launch(
                    try Executables.url("shelf"), ["--server", shelfd.address, "--timeout", "3", "watch"], environment: sandbox.environment)
                let retrying = await watcher.waitForLine(startingWith: "shelf: no reply from", in: .error, timeout: .seconds(15))
                #expect(retrying == "shelf: no reply from \(shelfd.address) within 3 s (--timeout; is shelfd stopped or overloaded?) (retrying)",
                        "\(watcher.stderrSoFar)")
                // Now waiting on its second try, for up to 3 s more.
                let signalled = ContinuousClock.now
                watcher.send(SIGINT)
                let ended = await watcher.waitForExit(timeout: .seconds(10))
                let took = ContinuousClock.now - signalled
                if ended == nil { await watcher.terminate(grace: .zero) }
                #expect(ended?.status == 0 && ended?.signaled == false)
                #expect(took < .seconds(2), "SIGINT took \(took)")
            }
        }
    }

    /// Found by review: once set up, a watch only read, so a server that stopped answering (or a peer gone without
    /// a word) was waited on for ever.
    @Test("a watch that is set up pings every --timeout: a server that stops answering is left, and rejoined once it answers")
    func watcherNoticesAServerThatStopsAnswering() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                let watcher = try ChildProcess.launch(
                    try Executables.url("shelf"), ["--server", shelfd.address, "--timeout", "1", "watch"], environment: sandbox.environment)
                defer { watcher.send(SIGKILL) }
                try #require(await watcher.waitForLine(startingWith: "0 items, 0 read (revision 0)", timeout: .seconds(10)) != nil)
                // The summary comes before the `watch` call: a change shown proves the watch is set up.
                let emma = try shortID(in: try await shelfd.shelf("add", "Emma").stdout, after: "added ")
                try #require(await watcher.waitForLine(startingWith: "+ \(emma) Emma", timeout: .seconds(10)) != nil)
                shelfd.child.send(SIGSTOP)
                let lost = await watcher.waitForLine(startingWith: "shelf: no reply from", in: .error, timeout: .seconds(10))
                shelfd.child.send(SIGCONT)
                #expect(lost == "shelf: no reply from \(shelfd.address) to a ping within 1 s; reconnecting", "\(watcher.stderrSoFar)")
                let back = await watcher.waitForLine(startingWith: "shelf: reconnected", in: .error, timeout: .seconds(15))
                #expect(back != nil, "\(watcher.stderrSoFar)")
                let dune = try shortID(in: try await shelfd.shelf("add", "Dune").stdout, after: "added ")
                #expect(await watcher.waitForLine(startingWith: "+ \(dune) Dune", timeout: .seconds(10)) != nil, "\(watcher.stdoutSoFar)")
                watcher.send(SIGINT)
                #expect(await watcher.waitForExit(timeout: .seconds(5))?.status == 0)
            }
        }
    }

    /// Runs `body` with a `shelfd` started with `arguments` and a `shelf watch` on it, and the slot for a second
    /// `shelfd` that `body` may start; when `body` throws, all of them are ended.
    static func withWatcher(
        _ arguments: [String], sandbox: Sandbox,
        _ body: (RunningShelfd, ChildProcess, inout RunningShelfd?) async throws -> Void
    ) async throws {
        let first = try await RunningShelfd.start(arguments, environment: sandbox.environment)
        var second: RunningShelfd?
        let watcher: ChildProcess
        do {
            watcher = try ChildProcess.launch(
                try Executables.url("shelf"), ["--server", first.address, "watch"], environment: sandbox.environment)
        } catch {
            await first.child.terminate()
            throw error
        }
        do {
            try await body(first, watcher, &second)
        } catch {
            await watcher.terminate(grace: .seconds(1))
            await first.child.terminate()
            await second?.child.terminate()
            throw error
        }
    }
}

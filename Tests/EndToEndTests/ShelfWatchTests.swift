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
                        ~ \(dune) [x] Dune
                        ~ \(dune) [x] Dune Messiah
                        ~ \(dune) [ ] Dune Messiah
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

    @Test("shelf watch says the server went away, reconnects to it restarted on the same port and file, and prints only the new change")
    func watcherSurvivesServerRestart() async throws {
        try await Sandbox.with { sandbox in
            let store = "file:\(sandbox.storePath)"
            let first = try await RunningShelfd.start(["--store", store], environment: sandbox.environment)
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
                let emma = try shortID(in: try await restarted.shelf("add", "Emma").stdout, after: "added ")
                try #require(await watcher.waitForLine(startingWith: "+ \(emma) Emma", timeout: .seconds(15)) != nil,
                             "the change after the restart did not show: \(watcher.stdoutSoFar) \(watcher.stderrSoFar)")

                watcher.send(SIGINT)
                let ended = try #require(await watcher.waitForExit(timeout: .seconds(10)), "shelf watch did not stop on SIGINT")
                #expect(ended.status == 0 && !ended.signaled)
                // Dune is not printed again after the reconnection: it resumed from revision 1.
                #expect(ended.stdout == "0 items, 0 read (revision 0)\n+ \(dune) Dune\n+ \(emma) Emma\n")
                #expect(ended.stderr.contains("shelf: lost the connection to \(first.address); reconnecting\n"), "\(ended.stderr)")
                #expect(ended.stderr.hasSuffix("shelf: reconnected to \(first.address)\n"), "\(ended.stderr)")
                let lastStop = try #require(await restarted.stop())
                #expect(lastStop.status == 0)
            } catch {
                await watcher.terminate(grace: .seconds(1))
                await first.child.terminate()
                await second?.child.terminate()
                throw error
            }
        }
    }
}

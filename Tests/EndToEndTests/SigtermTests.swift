import Foundation
import Synchronization
import ShelfTestSupport
import Testing

/// SIGTERM (and SIGINT) while clients are writing (README, "shelfd"; PROTOCOL.md §3, "Shutdown"): `shelfd` finishes
/// the saves in flight and the replies it owes, exits 0 within 5 s, and every add it acknowledged is in the file.
@Suite struct SigtermTests {
    /// What one writer connection saw.
    struct WriterReport: Sendable {
        var sent: [String] = []
        /// Titles whose `add` got a successful reply, with the revision it carried.
        var acknowledged: [(title: String, revision: Int)] = []
        var problems: [String] = []
        var ending = ""
    }

    static let writers = 4
    static let window = 16

    @Test("a signal while 4 clients pipeline adds: exit 0 within 5 s, and after a restart every acknowledged add is there exactly once", arguments: [SIGTERM, SIGINT])
    func signalDuringWrites(_ signal: Int32) async throws {
        try await Sandbox.with { sandbox in
            let store = ["--store", "file:\(sandbox.storePath)"]
            let daemon = try await RunningShelfd.start(store, environment: sandbox.environment)
            let port = try #require(UInt16(daemon.port))
            let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
            let reports = Task {
                await withTaskGroup(of: WriterReport.self) { group in
                    for writer in 0..<Self.writers {
                        group.addTask {
                            await onOwnThread { Self.write(port: port, writer: writer) { startedContinuation.yield() } }
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
            }

            // Signal only once every writer has had 200 adds acknowledged: all of them are mid-stream.
            let allStarted = await Self.finishes(within: .seconds(30)) {
                var count = 0
                for await _ in started {
                    count += 1
                    if count == Self.writers { break }
                }
            }
            let signalledAt = ContinuousClock.now
            daemon.child.send(signal)
            let outcome = await daemon.child.waitForExit(timeout: .seconds(5))
            let elapsed = ContinuousClock.now - signalledAt
            if outcome == nil { await daemon.child.terminate(grace: .zero) }
            let writerReports = await reports.value
            startedContinuation.finish()
            #expect(allStarted, "the writers did not all get going within 30 s: \(writerReports.map(\.ending))")

            let stopped = try #require(outcome, "shelfd did not exit within 5 s of signal \(signal)")
            #expect(stopped.status == 0 && !stopped.signaled, "exit status \(stopped.status), stderr: \(stopped.stderr)")
            #expect(elapsed < .seconds(5))
            for report in writerReports {
                #expect(report.problems.isEmpty, "\(report.problems.prefix(5))")
            }

            // Restarted on the same file: every acknowledged add is there exactly once.
            let restarted = try await RunningShelfd.start(store, environment: sandbox.environment)
            let restartPort = try #require(UInt16(restarted.port))
            let listed = await onOwnThread { Self.list(port: restartPort) }
            _ = await restarted.stop()
            let (revision, titles) = try listed.get()
            let counts = titles.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
            let sent = Set(writerReports.flatMap(\.sent))
            let acknowledged = writerReports.flatMap(\.acknowledged)
            let missing = acknowledged.filter { counts[$0.title] == nil }.map(\.title)
            #expect(missing.isEmpty, "\(missing.count) acknowledged adds are missing, e.g. \(missing.prefix(5))")
            #expect(counts.filter { $0.value > 1 }.isEmpty, "titles stored twice: \(counts.filter { $0.value > 1 }.keys.prefix(5))")
            #expect(titles.allSatisfy(sent.contains), "titles nobody sent: \(titles.filter { !sent.contains($0) }.prefix(5))")
            #expect(revision == titles.count, "only adds were made on a new store, so the revision counts the items")
            #expect(revision >= acknowledged.map(\.revision).max() ?? 0)
            #expect(Set(acknowledged.map(\.revision)).count == acknowledged.count, "each acknowledged add has its own revision")
            print("signal \(signal): \(acknowledged.count) adds acknowledged of \(sent.count) sent, \(titles.count) stored; exit \(stopped.status) after \(elapsed)")
        }
    }

    @Test(
        "SIGTERM sent the moment shelfd prints its listening line still stops it (20 starts)")
    func signalRightAfterListening() async throws {
        try await Sandbox.with { sandbox in
            var lost = 0
            for _ in 0..<20 {
                let daemon = try await RunningShelfd.start(["--store", "memory"], environment: sandbox.environment)
                daemon.child.send(SIGTERM)
                if let outcome = await daemon.child.waitForExit(timeout: .seconds(3)) {
                    #expect(outcome.status == 0 && !outcome.signaled, "exit \(outcome.status), stderr: \(outcome.stderr)")
                } else {
                    lost += 1
                    await daemon.child.terminate(grace: .zero)
                }
            }
            #expect(lost == 0, "\(lost) of 20 SIGTERMs sent right after the listening line were ignored for 3 s")
        }
    }

    /// Pipelines `add`s (at most `window` unanswered) until the connection ends, checking each reply; calls `started`
    /// once 200 have been acknowledged. Blocking: run it on a thread of its own.
    static func write(port: UInt16, writer: Int, started: @Sendable () -> Void) -> WriterReport {
        var report = WriterReport()
        let socket: BlockingLineSocket
        do {
            socket = try BlockingLineSocket.connect(port: port)
        } catch {
            report.problems.append("connect: \(error)")
            return report
        }
        defer { socket.close() }
        var inFlight: [(id: Int, title: String)] = []
        var canSend = true
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if canSend, inFlight.count < window {
                var lines = ""
                while inFlight.count < window {
                    let title = "w\(writer)-\(report.sent.count)"
                    lines += #"{"id":\#(report.sent.count),"method":"add","params":{"title":"\#(title)"}}"# + "\n"
                    inFlight.append((report.sent.count, title))
                    report.sent.append(title)
                }
                do {
                    try socket.send(Array(lines.utf8))
                } catch {
                    // The server stopped reading and closed: the replies it sent before are still to be read.
                    canSend = false
                }
            }
            let line: String?
            do {
                line = try socket.readLine(timeout: .seconds(10))
            } catch {
                report.ending = "\(error)"
                return report
            }
            guard let line else {
                report.ending = "end of stream"
                return report
            }
            // The last line of a shutdown, after every reply owed; requests sent after it began get none.
            if line.hasPrefix(#"{"jsonrpc":"2.0","method":"closing","params":{"reason":"shutdown""#) {
                report.ending = "closing (shutdown)"
                return report
            }
            guard let expected = inFlight.first else {
                report.problems.append("a reply nobody asked for: \(line)")
                continue
            }
            inFlight.removeFirst()
            let reply = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            let result = reply?["result"] as? [String: Any]
            let item = result?["item"] as? [String: Any]
            guard reply?["id"] as? Int == expected.id, item?["title"] as? String == expected.title,
                let revision = result?["revision"] as? Int
            else {
                report.problems.append("add \(expected.title) got \(line)")
                continue
            }
            report.acknowledged.append((expected.title, revision))
            if report.acknowledged.count == 200 { started() }
        }
        report.problems.append("still writing after 60 s")
        return report
    }

    /// The list's revision and titles, read with one `list` request. Blocking: run it on a thread of its own.
    static func list(port: UInt16) -> Result<(revision: Int, titles: [String]), LineSocketError> {
        do {
            let socket = try BlockingLineSocket.connect(port: port)
            defer { socket.close() }
            try socket.sendLine(#"{"id":"list","method":"list"}"#)
            guard let line = try socket.readLine(timeout: .seconds(20)),
                let reply = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                let result = reply["result"] as? [String: Any], let revision = result["revision"] as? Int,
                let items = result["items"] as? [[String: Any]]
            else { return .failure(.timedOut("reading a list reply")) }
            return .success((revision, items.compactMap { $0["title"] as? String }))
        } catch let error as LineSocketError {
            return .failure(error)
        } catch {
            return .failure(.timedOut("\(error)"))
        }
    }

    /// Whether `operation` finishes within `timeout` (it is cancelled otherwise).
    static func finishes(within timeout: Duration, _ operation: @escaping @Sendable () async -> Void) async -> Bool {
        (try? await result(within: timeout) { await operation() }) != nil
    }
}

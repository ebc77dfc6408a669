import Foundation
import ShelfTestSupport
import Testing

/// A compaction that fails fails no change, so the log is the only place an operator hears of it (README, "shelfd";
/// protocol/STORAGE.md, "Compaction"): `shelfd` logs the failure once, logs the first success after it, and the
/// list loses nothing.
@Suite struct CompactionFailureLogTests {
    /// 1,000 characters (the title limit): a journal record of about 1.2 KB, so ~900 adds pass the 1 MiB at which
    /// `shelfd`'s journal is first compacted.
    static let title = String(repeating: "c", count: 1000)

    @Test("a directory at the snapshot's temp path fails a compaction: one log line, no change lost; once it is gone the next compaction succeeds and says so")
    func failedThenRecovered() async throws {
        try await Sandbox.with { sandbox in
            let store = ["--store", "file:\(sandbox.storePath)"]
            let daemon = try await RunningShelfd.start(store, environment: sandbox.environment)
            let port = try #require(UInt16(daemon.port))
            // Made after the start, which refuses such a directory (STORAGE.md, "Loading", step 7).
            let blocker = sandbox.directory.appending(path: ".reading-list.json.tmp")
            try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)

            let first = await onOwnThread { Self.add(1000, from: 0, port: port) }
            #expect(first == nil, "\(first ?? "")")
            let failed = await daemon.child.waitForLogLine(
                startingWith: "shelfd: a compaction failed", timeout: .seconds(20))
            #expect(failed?.contains("\(blocker.path): Is a directory") == true, "\(failed ?? daemon.child.stderrSoFar)")
            #expect(failed?.hasSuffix("if the disk is full, free some space, or saves will fail next") == true, "\(failed ?? "")")

            try FileManager.default.removeItem(at: blocker)
            // The next try comes once the journal has doubled.
            let second = await onOwnThread { Self.add(1000, from: 1000, port: port) }
            #expect(second == nil, "\(second ?? "")")
            let recovered = await daemon.child.waitForLogLine(
                startingWith: "shelfd: a compaction succeeded after 1 failure:", timeout: .seconds(20))
            #expect(recovered != nil, "\(daemon.child.stderrSoFar)")

            let stopped = await daemon.stop()
            #expect(stopped?.status == 0)
            let failures = stopped?.stderr.components(separatedBy: "a compaction failed").count ?? 0
            #expect(failures == 2, "exactly one failure line: \(stopped?.stderr ?? "")")
            let snapshot = try Data(contentsOf: URL(fileURLWithPath: sandbox.storePath))
            #expect(snapshot.starts(with: Array(#"{"format":3,"revision":"#.utf8)), "the snapshot was written")

            let restarted = try await RunningShelfd.start(store, environment: sandbox.environment)
            let info = try await restarted.shelf("info")
            _ = await restarted.stop()
            #expect(info.stdout.contains("revision 2000"), "\(info.stdout)")
        }
    }

    /// Pipelines `count` adds of `title` with ids from `first` on, 100 in flight, and reads every reply.
    /// - Returns: `nil`, or what went wrong. Blocking: run it on a thread of its own.
    static func add(_ count: Int, from first: Int, port: UInt16) -> String? {
        do {
            let socket = try BlockingLineSocket.connect(port: port)
            defer { socket.close() }
            for start in stride(from: first, to: first + count, by: 100) {
                let lines = (start..<start + 100).map { #"{"id":\#($0),"method":"add","params":{"title":"\#(title)"}}"# }
                try socket.send(Array((lines.joined(separator: "\n") + "\n").utf8))
                for id in start..<start + 100 {
                    guard let reply = try socket.readLine(), reply.hasPrefix(#"{"jsonrpc":"2.0","id":\#(id),"result""#) else {
                        return "add \(id) was not acknowledged"
                    }
                }
            }
            return nil
        } catch {
            return "\(error)"
        }
    }
}

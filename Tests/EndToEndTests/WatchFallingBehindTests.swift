import Foundation
import Synchronization
import Testing

/// `shelf watch` whose standard output is not read (a pager nobody scrolls, a stalled pipe): it stops reading its
/// socket instead of growing, and when it fell behind the server's `--history` it lists again by itself and goes on
/// watching (README, "shelf watch"; protocol/PROTOCOL.md §6).
@Suite struct WatchFallingBehindTests {
    /// Sends `lines` (each a request with an id) in one write on one thread and reads their replies on another.
    /// - Parameter onReply: called with the count of replies read so far, every `every` replies.
    /// - Returns: the replies, in order.
    static func pipeline(
        _ lines: [String], port: UInt16, every: Int = .max, onReply: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws -> [String] {
        let socket = try BlockingLineSocket.connect(port: port)
        defer { socket.close() }
        let payload = Array(lines.map { $0 + "\n" }.joined().utf8)
        let sending = Task { await onOwnThread { Result { try socket.send(payload, timeout: .seconds(120)) } } }
        let count = lines.count
        let read = await onOwnThread { () -> Result<[String], any Error> in
            Result {
                var replies: [String] = []
                replies.reserveCapacity(count)
                while replies.count < count {
                    guard let line = try socket.readLine(timeout: .seconds(60)) else { throw LineSocketError.timedOut("end of stream") }
                    replies.append(line)
                    if replies.count % every == 0 { onReply(replies.count) }
                }
                return replies
            }
        }
        try await sending.value.get()
        return try read.get()
    }

    /// Found by an attack run: a watcher held while it printed its first list exited 1 with the server's advice
    /// ("Changes after revision 8000 are no longer kept …; list again and watch from there") instead of doing so.
    @Test("more than --history changes while shelf watch prints its first list (its output blocked): it lists again, says it fell behind, and goes on watching")
    func listsAgainWhenItFellBehindWhileListing() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory", "--history", "100"], environment: sandbox.environment) { shelfd in
                let port = try #require(UInt16(shelfd.port))
                // 8,000 rows of about 70 bytes: far more than the pipe (64 KiB), what the watcher holds unwritten
                // (64 KiB) and the reads the test makes before its pause takes effect.
                let title = String(repeating: "t", count: 50)
                let adds = (1...8_000).map { #"{"id":\#($0),"method":"add","params":{"title":"\#(title) \#($0)"}}"# }
                _ = try await Self.pipeline(adds, port: port)
                // Its first row shown: it has its list (revision 8000) and is printing it, before its `watch` call.
                let firstRow: @Sendable (Substring) -> Bool = { $0.hasSuffix(" \(title) 1") }
                let watcher = try ChildProcess.launch(
                    try Executables.url("shelf"), ["--server", shelfd.address, "watch"], environment: sandbox.environment,
                    pausingOutputAfter: firstRow)
                defer { watcher.send(SIGKILL) }
                try #require(await watcher.waitForLine(timeout: .seconds(20), where: firstRow) != nil, "no first row: \(watcher.stderrSoFar)")
                let more = (1...200).map { #"{"id":\#($0),"method":"add","params":{"title":"more \#($0)"}}"# }
                _ = try await Self.pipeline(more, port: port)
                watcher.resumeReading(.output)
                let relisted = await watcher.waitForLine(startingWith: "8200 items, 0 read (revision 8200)", timeout: .seconds(60))
                try #require(relisted != nil, "no second list: \(watcher.stderrSoFar)")
                let zeta = try shortID(in: try await shelfd.shelf("add", "Zeta").stdout, after: "added ")
                let shown = await watcher.waitForLine(startingWith: "+ \(zeta) Zeta", timeout: .seconds(20))
                #expect(shown != nil, "the change after the second list did not show: \(watcher.stderrSoFar)")
                watcher.send(SIGINT)
                let ended = try #require(await watcher.waitForExit(timeout: .seconds(10)))
                #expect(ended.status == 0 && !ended.signaled, "\(ended.stderr)")
                #expect(ended.stderr == "shelf: fell behind: the server no longer keeps the changes after revision 8000 for this watch; listing again\n")
                #expect(ended.stdout.components(separatedBy: "8000 items, 0 read (revision 8000)\n").count == 2)
            }
        }
    }

    /// Found by an attack run: the client read its socket into an unbounded buffer while its output was blocked
    /// (21.9 MB to 299 MB over 400,000 changes), so the server's slow-consumer limit never applied.
    @Test("a shelf watch whose output is not read while 80,000 changes are made stays under 64 MiB, is cut off, and once read again lists what the server has")
    func memoryStaysBoundedWhileOutputIsBlocked() async throws {
        try await Sandbox.with { sandbox in
            let arguments = ["--store", "memory", "--history", "1000", "--max-outbound-bytes", "1048576"]
            try await withShelfd(arguments, environment: sandbox.environment) { shelfd in
                let port = try #require(UInt16(shelfd.port))
                // Its output is not read from the first change it shows on: the watch is set up by then.
                let watcher = try ChildProcess.launch(
                    try Executables.url("shelf"), ["--server", shelfd.address, "watch"], environment: sandbox.environment,
                    pausingOutputAfter: { $0.hasPrefix("+ ") })
                defer { watcher.send(SIGKILL) }
                try #require(await watcher.waitForLine(startingWith: "0 items, 0 read (revision 0)", timeout: .seconds(20)) != nil)
                // Each change's notification carries the 1,000-character title: about 1.1 KB a line.
                let title = String(repeating: "w", count: 1_000)
                let added = try await Self.pipeline([#"{"id":0,"method":"add","params":{"title":"\#(title)"}}"#], port: port)
                let reply = try #require(added.first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any])
                let item = try #require((reply["result"] as? [String: Any])?["item"] as? [String: Any])
                let id = try #require(item["id"] as? String)
                try #require(await watcher.waitForLine(startingWith: "+ \(id.prefix(8)) w", timeout: .seconds(20)) != nil)
                let before = try #require(watcher.residentKiB, "no /proc/PID/status")
                let largest = LargestValue(before)
                let toggles = 80_000
                _ = try await Self.pipeline(
                    (1...toggles).map { #"{"id":\#($0),"method":"toggle","params":{"id":"\#(id)"}}"# }, port: port, every: 2_000
                ) { _ in largest.record(watcher.residentKiB) }
                largest.record(watcher.residentKiB)
                print("shelf watch with its output blocked: \(before) KiB resident before \(toggles) changes, at most \(largest.value) KiB during them")
                // Unbounded, it held every notification: 90 MiB for 40,000 of these changes.
                #expect(largest.value < 64 * 1024, "resident \(before) KiB before, up to \(largest.value) KiB while its output was blocked")

                watcher.resumeReading(.output)
                let summary = "1 item, 0 read (revision \(toggles + 1))"
                let caughtUp = await watcher.waitForLine(startingWith: summary, timeout: .seconds(60))
                try #require(caughtUp != nil, "did not catch up: \(watcher.stderrSoFar)")
                let listed = try await shelfd.shelf("list")
                watcher.send(SIGINT)
                let ended = try #require(await watcher.waitForExit(timeout: .seconds(10)))
                #expect(ended.status == 0 && !ended.signaled, "\(ended.stderr)")
                // What it shows last is the server's list, and nothing after it.
                #expect(ended.stdout.hasSuffix("\n" + listed.stdout), "\(ended.stdout.suffix(300)) vs \(listed.stdout)")
                #expect(ended.stderr.contains("; listing again\n"), "\(ended.stderr)")
                #expect(ended.stderr.contains("shelf: fell behind: the server no longer keeps the changes after revision "), "\(ended.stderr)")
            }
        }
    }
}

/// The largest of the values recorded (from the thread that reads the replies).
private final class LargestValue: Sendable {
    private let largest: Mutex<Int>

    init(_ first: Int) {
        largest = Mutex(first)
    }

    func record(_ value: Int?) {
        guard let value else { return }
        largest.withLock { $0 = max($0, value) }
    }

    var value: Int { largest.withLock { $0 } }
}

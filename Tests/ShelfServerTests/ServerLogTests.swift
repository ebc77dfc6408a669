import Foundation
import ShelfServer
import Synchronization
import Testing

/// `ServerLog.queued`: each line is stamped with the wall clock's time when it is logged, in RFC 3339 UTC with
/// milliseconds; counts in log lines take the singular for 1.
struct ServerLogTests {
    @Test("a queued log stamps each line with the clock's time when it is logged: 2026-12-01T20:15:03.123Z shelfd: …")
    func stampedLines() async {
        let now = Mutex(Date(timeIntervalSince1970: 1_796_156_103.123))
        let lines = Mutex<[String]>([])
        let log = ServerLog.queued(now: { now.withLock { $0 } }) { line in lines.withLock { $0.append(line) } }
        log("store memory (nothing is saved): revision 0, 0 items")
        now.withLock { $0 = Date(timeIntervalSince1970: 1_796_156_164.007) }
        log("stopped")
        await log.flush()
        #expect(lines.withLock { $0 } == [
            "2026-12-01T20:15:03.123Z shelfd: store memory (nothing is saved): revision 0, 0 items",
            "2026-12-01T20:16:04.007Z shelfd: stopped",
        ])
    }

    @Test("counts are singular for 1 and plural otherwise", arguments: [(0, "0 connections"), (1, "1 connection"), (2, "2 connections")])
    func counts(count: Int, text: String) {
        #expect(ServerLog.count(count, "connection") == text)
    }
}

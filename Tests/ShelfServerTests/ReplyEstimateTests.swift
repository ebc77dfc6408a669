import Foundation
import ShelfCore
import ShelfJSON
import ShelfWire
@testable import ShelfServer
import Testing

/// `Session.estimatedReplyBytes`: what a change's reply is counted as in a batch, before the writer makes it.
@Suite struct ReplyEstimateTests {
    private static func outcome(title: String) -> Result<MutationResult, ReadingListError> {
        let item = Item(id: UUID(), title: title, isRead: false, addedAt: Date(timeIntervalSince1970: 0), revision: 1)
        return .success(MutationResult(unchanged: item, revision: 1))
    }

    /// Found by review: `"` and `\` are written as two bytes each, and were counted as one; and only the title was
    /// counted, so a batch of updates carrying 64 KiB notes passed its reply budget uncounted.
    @Test("a change's reply counts its item as JSON, every member and escape included, and 128 bytes for the rest")
    func itemAsJSON() {
        for title in ["Dune", #"a"b\c"#, "Café"] {
            let outcome = Self.outcome(title: title)
            let item = (try? outcome.get())?.item
            #expect(Session.estimatedReplyBytes(outcome) == 128 + (item?.jsonByteCount ?? 0))
        }
        let note = String(repeating: "\"", count: 10_000)
        let item = Item(
            id: UUID(), title: "x", isRead: false, addedAt: Date(timeIntervalSince1970: 0), revision: 1, note: note)
        let outcome = Result<MutationResult, ReadingListError>.success(MutationResult(unchanged: item, revision: 1))
        var reply: [UInt8] = []
        Session.appendResponse(id: .number(JSONNumber(1)), mutation: outcome, to: &reply)
        #expect(Session.estimatedReplyBytes(outcome) >= reply.count && reply.count > 20_000)
        #expect(Session.estimatedReplyBytes(.failure(.conflict(current: 3))) == 256)
        #expect(Session.estimatedReplyBytes(nil) == 256)
    }

    @Test("a backlog's estimate is never more than its changed lines take: a watch is refused for size only when it would not fit")
    func backlogEstimateIsLow() {
        let item = { (title: String, n: UInt64) in
            Item(id: UUID(), title: title, isRead: n % 2 == 0, addedAt: Date(timeIntervalSince1970: 0), revision: n)
        }
        let changes = [
            RevisionedChange(revision: 1, change: .added(item("D", 1))),
            RevisionedChange(revision: 2, change: .updated(item(#"a"b\c"#, 2))),
            RevisionedChange(revision: 3, change: .updated(item(String(repeating: "é", count: 1000), 3))),
            RevisionedChange(revision: 18_446_744_073_709_551_614, change: .removed(UUID())),
            // The shortest lines there are (found by review: a removal was counted 150 bytes and takes 133, so a
            // backlog that fitted was refused).
            RevisionedChange(revision: 1, change: .removed(UUID())),
            RevisionedChange(revision: 1, change: .added(item("D", 1))),
            RevisionedChange(revision: 9, change: .updated(Item(
                id: UUID(), title: "N", isRead: false, addedAt: Date(timeIntervalSince1970: 0), revision: 9,
                author: "A", tags: ["t"], note: String(repeating: "\n", count: 5_000)))),
        ]
        for change in changes {
            let line = ServerNotification.changed(change).line
            #expect(Session.estimatedBytes([change]) <= line.count, "\(change.change): estimated \(Session.estimatedBytes([change])), takes \(line.count)")
            #expect(Session.estimatedBytes([change]) * 2 > line.count, "a low estimate, but not a useless one")
        }
    }

    /// Found by a hostile-input run: replies waiting for the writer keep their ids, uncounted, so a client that
    /// pipelined a thousand toggles with 1 MB ids and did not read held a gigabyte.
    @Test("an id of 1 KiB or more counts against the reply budget with its bytes; a smaller one not at all")
    func idBytes() throws {
        #expect(Session.heldIDBytes(nil) == 0)
        #expect(Session.heldIDBytes(.null) == 0)
        #expect(Session.heldIDBytes(.string("abc")) == 0)
        #expect(Session.heldIDBytes(.string(String(repeating: "a", count: 1021))) == 0)
        #expect(Session.heldIDBytes(.string(String(repeating: "a", count: 1022))) == 1024)
        let digits = String(repeating: "9", count: 2000)
        let number = try #require(try JSONParser.parse(Array(digits.utf8)).numberValue)
        #expect(Session.heldIDBytes(.number(number)) == 2000)
    }
}

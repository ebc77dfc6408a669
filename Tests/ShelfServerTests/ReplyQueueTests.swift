import Foundation
import ShelfCore
@testable import ShelfServer
import ShelfJSON
import ShelfWire
import Testing

/// `ReplyQueue` and `ChangeNotificationQueue` as state machines, without sockets: what a connection's flush writes, in
/// which order.
struct ReplyQueueTests {
    private static func json(_ text: String, _ revision: Revision? = nil) -> ReplyQueue.Reply {
        .json(Array(text.utf8), revision: revision)
    }

    private static func note(_ text: String) -> [UInt8] {
        Array((text + "\n").utf8)
    }

    /// What one flush writes now, as text.
    private static func written(_ replies: inout ReplyQueue, _ notes: inout ChangeNotificationQueue, limit: Int = .max) -> String {
        var out: [UInt8] = []
        replies.write(into: &out, after: &notes, upTo: limit)
        return String(decoding: out, as: UTF8.self)
    }

    @Test("slots filled out of order are written in request order, each once the ones before it are in")
    func requestOrder() {
        var replies = ReplyQueue()
        var notes = ChangeNotificationQueue(maxBytes: 1000)
        let a = replies.append()
        let b = replies.append()
        replies.append(Self.json("c"))
        replies.fill(b, with: Self.json("b"))
        #expect(Self.written(&replies, &notes) == "")
        #expect(replies.awaitingCount == 1)
        replies.fill(a, with: Self.json("a"))
        replies.fill(a, with: Self.json("a again"))
        #expect(Self.written(&replies, &notes) == "a\nb\nc\n")
        #expect(replies.isEmpty && replies.awaitingCount == 0 && replies.heldBytes == 0)
    }

    @Test("notifications go out before a reply up to its revision, the rest after it; with a reply owed, none overtake it")
    func notificationsByRevision() {
        var replies = ReplyQueue()
        var notes = ChangeNotificationQueue(maxBytes: 1000)
        let read = replies.append()
        let done1 = notes.append(revision: 1, line: Self.note("n1"))
        #expect(done1)
        let done2 = notes.append(revision: 2, line: Self.note("n2"))
        #expect(done2)
        let done3 = notes.append(revision: 3, line: Self.note("n3"))
        #expect(done3)
        #expect(Self.written(&replies, &notes) == "")
        replies.fill(read, with: Self.json("list at 2", 2))
        let ping = replies.append()
        #expect(Self.written(&replies, &notes) == "n1\nn2\nlist at 2\n")
        replies.fill(ping, with: Self.json("pong"))
        #expect(Self.written(&replies, &notes) == "pong\nn3\n")
        #expect(notes.isEmpty && notes.bytes == 0)
    }

    @Test("a mutation's answer is encoded when written, after the notifications up to its revision; a notification's is nothing")
    func mutationAnswers() {
        var replies = ReplyQueue()
        var notes = ChangeNotificationQueue(maxBytes: 1000)
        let first = replies.append()
        let second = replies.append()
        let done4 = notes.append(revision: 4, line: Self.note("n4"))
        #expect(done4)
        replies.fill(second, with: .nothing)
        replies.fill(first, with: .mutation(.number(JSONNumber(7)), .failure(.conflict(current: 4))))
        let text = Self.written(&replies, &notes)
        #expect(text.hasPrefix("n4\n{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":3,"))
        #expect(text.hasSuffix("}\n") && text.components(separatedBy: "\n").count == 3)
    }

    @Test("a batch is one line once every part is in and it is sealed; parts not carried out are left out; all notifications: no line")
    func batches() {
        var replies = ReplyQueue()
        var notes = ChangeNotificationQueue(maxBytes: 1000)
        let batch = replies.appendBatch(count: 3)
        replies.fill(batch, part: 1, with: Self.json("b", 5))
        replies.fill(batch, part: 0, with: Self.json("a", 3))
        #expect(Self.written(&replies, &notes) == "")
        let done5 = notes.append(revision: 5, line: Self.note("n5"))
        #expect(done5)
        replies.seal(batch, leavingOutFrom: 2)
        #expect(replies.awaitingCount == 0)
        #expect(Self.written(&replies, &notes) == "n5\n[a,b]\n")

        let quiet = replies.appendBatch(count: 2)
        replies.fill(quiet, part: 0, with: .nothing)
        replies.fill(quiet, part: 1, with: .nothing)
        replies.seal(quiet, leavingOutFrom: 2)
        let after = replies.append()
        replies.fill(after, with: Self.json("after"))
        #expect(Self.written(&replies, &notes) == "after\n")

        let dropped = replies.appendBatch(count: 2)
        replies.fill(dropped, part: 0, with: Self.json("x"))
        replies.discard(dropped)
        replies.fill(dropped, part: 1, with: Self.json("late"))
        #expect(Self.written(&replies, &notes) == "" && replies.isEmpty && replies.heldBytes == 0)
    }

    @Test("held bytes count encoded replies and reserved ids until written; a write stops at its limit")
    func heldBytesAndLimit() {
        var replies = ReplyQueue()
        var notes = ChangeNotificationQueue(maxBytes: 1000)
        let big = replies.append(reserving: 2000)
        #expect(replies.heldBytes == 2000)
        replies.fill(big, with: Self.json(String(repeating: "x", count: 10)))
        replies.append(Self.json("yy"))
        #expect(replies.heldBytes == 12)
        #expect(Self.written(&replies, &notes, limit: 5) == String(repeating: "x", count: 10) + "\n")
        #expect(replies.heldBytes == 2)
        #expect(Self.written(&replies, &notes) == "yy\n" && replies.heldBytes == 0)
    }

    @Test("a live change past the budget overflows the queue for good; the memory ceiling's refusal does too")
    func overflow() {
        var notes = ChangeNotificationQueue(maxBytes: 10)
        let done6 = notes.append(revision: 1, line: Array("12345".utf8))
        #expect(done6)
        let done7 = !notes.append(revision: 2, line: Array("1234567".utf8))
        #expect(done7)
        #expect(notes.overflowed && notes.isEmpty && notes.bytes == 0)
        let done8 = !notes.append(revision: 3, line: Array("1".utf8))
        #expect(done8)
        var refused = ChangeNotificationQueue(maxBytes: 10)
        let done9 = !refused.append(revision: 1, line: Array("1".utf8), admitted: false)
        #expect(done9 && refused.overflowed)
    }

    @Test("a backlog goes in ahead of live changes queued meanwhile, by revision; its room is half the budget")
    func backlog() {
        var notes = ChangeNotificationQueue(maxBytes: 20)
        #expect(notes.backlogRoom == 10)
        let done10 = notes.append(revision: 9, line: Self.note("n9"))
        #expect(done10)
        let done11 = notes.insertBacklog([(Revision(7), Self.note("n7")), (Revision(8), Self.note("n8"))])
        #expect(done11)
        #expect(notes.lastQueuedRevision == 9 && notes.backlogRoom == 1)
        var replies = ReplyQueue()
        #expect(Self.written(&replies, &notes) == "n7\nn8\nn9\n")
        let done12 = !notes.insertBacklog([(Revision(10), Array(repeating: 0x61, count: 21))])
        #expect(done12)
        // Encoded, a backlog past half the budget is refused too, though it would fit in the whole (the caller's
        // estimate before encoding is a low one).
        var empty = ChangeNotificationQueue(maxBytes: 20)
        let over = !empty.insertBacklog([(Revision(1), Array(repeating: 0x61, count: 11))])
        #expect(over && empty.isEmpty)
        let half = empty.insertBacklog([(Revision(1), Array(repeating: 0x61, count: 10))])
        #expect(half && empty.bytes == 10)
    }
}

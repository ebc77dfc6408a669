@testable import ShelfServer
import Testing

/// `Outbox` as a state machine, without sockets: what the writer is handed, in which order.
struct OutboxTests {
    /// The next item as text, for comparing; runs a job.
    private func next(_ outbox: Outbox) async -> String {
        switch await outbox.next() {
        case .job(let job)?:
            guard let reply = await job() else { return "job: nothing" }
            return "job: " + String(decoding: reply.line, as: UTF8.self)
        case .notifications(let bytes)?: return "notifications: " + String(decoding: bytes, as: UTF8.self)
        case .unsent(let bytes)?: return "unsent: " + String(decoding: bytes, as: UTF8.self)
        case .overflow?: return "overflow"
        case .closing(let last)?: return "closing: " + String(decoding: last.line, as: UTF8.self)
        case nil: return "end"
        }
    }

    @Test("the rest of a partly sent direct write goes out before a slow-consumer overflow that came meanwhile")
    func unsentRestBeforeOverflow() async {
        let outbox = Outbox(maxBytes: 10)
        #expect(outbox.beginDirectWrite())
        // During the direct write, other sessions' changes overflow this connection's notification queue.
        #expect(outbox.notify(revision: 1, line: Array("0123456789ab".utf8)) == .overflowed)
        outbox.endDirectWrite(unsent: Array("rest of the reply\n".utf8)[...])
        outbox.finish()
        #expect(await next(outbox) == "unsent: rest of the reply\n")
        #expect(await next(outbox) == "overflow")
        #expect(await next(outbox) == "end")
    }

    @Test("the rest of a partly sent direct write goes out before jobs queued meanwhile")
    func unsentRestBeforeQueuedJobs() async {
        let outbox = Outbox(maxBytes: 1000)
        #expect(outbox.beginDirectWrite())
        outbox.push { Outbox.Reply(line: Array("later reply\n".utf8), revision: nil, held: 0) }
        outbox.endDirectWrite(unsent: Array("rest\n".utf8)[...])
        outbox.finish()
        #expect(await next(outbox) == "unsent: rest\n")
        #expect(await next(outbox) == "job: later reply\n")
        #expect(await next(outbox) == "end")
    }

    @Test("a notification to an idle outbox hands the caller a direct write; later ones join it; with a reply queued, none are taken")
    func notificationDirectWrite() async {
        let outbox = Outbox(maxBytes: 1000)
        #expect(outbox.notify(revision: 1, line: Array("n1\n".utf8)) == .directWrite)
        #expect(outbox.notify(revision: 2, line: Array("n2\n".utf8)) == .queued)
        #expect(!outbox.beginDirectWrite())
        #expect(outbox.takeNotificationsForDirectWrite() == Array("n1\nn2\n".utf8))
        outbox.endDirectWrite()

        #expect(outbox.notify(revision: 3, line: Array("n3\n".utf8)) == .directWrite)
        outbox.push { Outbox.Reply(line: Array("reply at 2\n".utf8), revision: 2, held: 0) }
        #expect(outbox.notify(revision: 4, line: Array("n4\n".utf8)) == .queued)
        #expect(outbox.takeNotificationsForDirectWrite().isEmpty)
        outbox.endDirectWrite()
        outbox.finish()
        #expect(await next(outbox) == "job: reply at 2\n")
        #expect(await next(outbox) == "notifications: n3\nn4\n")
        #expect(await next(outbox) == "end")
    }
}

@testable import ShelfClient
import ShelfServer
import ShelfWire
import Testing
import ShelfTestSupport

/// `ShelfClient.notifications` has one consumer at a time: one cancelled while it waits gets `nil`, and a second one
/// asking while another waits is refused with `nil` rather than taking the first one's place.
@Suite struct ClientNotificationConsumerTests {
    /// Found by review: the continuation of a waiting consumer was resumed only by a notification or the
    /// connection's end, so a cancelled `for await` over `notifications` never finished.
    @Test("a consumer cancelled while it waits for a notification gets nil at once, and so does one cancelled before it asks")
    func cancelledConsumerGetsNil() async throws {
        try await withTestServer { server in
            let client = try await ShelfClient.connect(to: server.address)
            _ = try await client.call(.watch(since: nil))
            let (waiting, signal) = AsyncStream.makeStream(of: Void.self)
            let waiter = Task { await client.nextNotification(whenWaiting: { signal.yield() }) }
            for await _ in waiting { break }
            waiter.cancel()
            #expect(await waiter.value == nil)

            let early = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                var iterator = client.notifications.makeAsyncIterator()
                return await iterator.next()
            }
            #expect(await early.value == nil)

            // The client goes on: a later consumer gets the next change.
            let writer = try await ShelfClient.connect(to: server.address)
            _ = try await writer.apply(.add(title: "Dune"))
            var iterator = client.notifications.makeAsyncIterator()
            #expect(await iterator.next()?.method == "changed")
            await writer.close()
            await client.close()
        }
    }

    /// Found by review: a second consumer overwrote the first one's continuation, which then leaked and its task hung.
    @Test("a second consumer asking while one waits gets nil at once, and the change then goes to the first")
    func secondConsumerIsRefused() async throws {
        try await withTestServer { server in
            let client = try await ShelfClient.connect(to: server.address)
            _ = try await client.call(.watch(since: nil))
            let (waiting, signal) = AsyncStream.makeStream(of: Void.self)
            let first = Task { await client.nextNotification(whenWaiting: { signal.yield() }) }
            for await _ in waiting { break }
            var second = client.notifications.makeAsyncIterator()
            #expect(await second.next() == nil)

            let writer = try await ShelfClient.connect(to: server.address)
            _ = try await writer.apply(.add(title: "Dune"))
            let taken = await first.value
            #expect(taken?.method == "changed")
            #expect(taken.flatMap { ServerNotification.change(fromParams: $0.params) }?.revision == 1)
            await writer.close()
            await client.close()
        }
    }
}

@testable import ShelfClient
import ShelfWire
import Testing

/// `NotificationBuffer`, the client's queue of notifications not yet taken, without sockets.
struct NotificationBufferTests {
    private static func note(_ n: Int) -> RPCRequest {
        RPCRequest(id: nil, method: "changed\(n)")
    }

    @Test("notifications come out oldest first, and the bytes held go down as they are taken")
    func order() {
        var buffer = NotificationBuffer()
        buffer.append(Self.note(1), bytes: 10)
        buffer.append(Self.note(2), bytes: 20)
        #expect(buffer.bytes == 30)
        #expect(buffer.removeFirst()?.method == "changed1")
        #expect(buffer.bytes == 20)
        #expect(buffer.removeFirst()?.method == "changed2")
        #expect(buffer.removeFirst() == nil)
        #expect(buffer.isEmpty && buffer.bytes == 0)
    }

    @Test("a consumer that stays one behind for 10,000 notifications does not keep the ones it took")
    func takenOnesAreDropped() {
        var buffer = NotificationBuffer()
        buffer.append(Self.note(0), bytes: 1)
        for n in 1...10_000 {
            buffer.append(Self.note(n), bytes: 1)
            #expect(buffer.removeFirst()?.method == "changed\(n - 1)")
        }
        #expect(buffer.count == 1)
        #expect(buffer.storedCount < 200, "\(buffer.storedCount) kept")
    }
}

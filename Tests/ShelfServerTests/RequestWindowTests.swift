@testable import ShelfServer
import ShelfTestSupport
import Testing

/// `RequestWindow`: the per-connection limit on requests read but not yet answered.
struct RequestWindowTests {
    @Test("a full window parks the next reader; giving back three slots at once wakes it and leaves two free")
    func releaseSeveralWakesTheWaiter() async throws {
        let window = RequestWindow(size: 3)
        for _ in 0..<3 { await window.acquire() }
        #expect(!window.tryAcquire(1))
        let waiter = Task { await window.acquire() }
        try await withDeadline { try await waitUntil { window.hasWaiter } }
        window.release(3)
        try await withDeadline { await waiter.value }
        #expect(!window.hasWaiter)
        #expect(window.tryAcquire(2))
        #expect(!window.tryAcquire(1))
    }

    @Test("slots given back with no reader waiting are all free again")
    func releaseWithoutWaiter() async {
        let window = RequestWindow(size: 4)
        #expect(window.tryAcquire(4))
        window.release(3)
        window.release()
        #expect(window.tryAcquire(4))
        window.release(0)
        #expect(!window.tryAcquire(1))
    }
}

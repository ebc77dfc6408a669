@testable import ShelfSockets
import Testing
import ShelfTestSupport

/// The wakeup protocol without any sockets.
struct ReadinessGateTests {
    @Test func aSignalBeforeWaitingIsNotLost() async throws {
        let gate = ReadinessGate(direction: "read")
        gate.signal()
        try await withDeadline { try await gate.wait() }
        #expect(!gate.isReady)
    }

    @Test func aSignalResumesAParkedWaiter() async throws {
        let gate = ReadinessGate(direction: "read")
        try await withDeadline {
            async let waited: Void = gate.wait()
            try await waitUntil { gate.hasWaiter }
            gate.signal()
            try await waited
        }
        #expect(!gate.hasWaiter)
        #expect(!gate.isReady)
    }

    @Test func closingWakesAParkedWaiterAndEveryLaterOne() async throws {
        let gate = ReadinessGate(direction: "write")
        let waiter = Task { try await gate.wait() }
        try await withDeadline { try await waitUntil { gate.hasWaiter } }
        gate.close()
        await #expect(throws: SocketError.closed) { try await waiter.value }
        gate.signal()
        await #expect(throws: SocketError.closed) { try await gate.wait() }
    }

    @Test func cancellingAParkedWaiterResumesItOnce() async throws {
        let gate = ReadinessGate(direction: "read")
        let waiter = Task { try await gate.wait() }
        try await withDeadline { try await waitUntil { gate.hasWaiter } }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        // The cancelled waiter is gone: a later signal is remembered, not delivered to it.
        gate.signal()
        #expect(gate.isReady)
    }

    @Test func anAlreadyCancelledTaskDoesNotPark() async throws {
        let gate = ReadinessGate(direction: "read")
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await gate.wait()
        }
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(!gate.hasWaiter)
    }

    @Test func recordedReadinessWinsOverCancellation() async throws {
        let gate = ReadinessGate(direction: "read")
        gate.signal()
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await gate.wait()
        }
        try await waiter.value
    }
}

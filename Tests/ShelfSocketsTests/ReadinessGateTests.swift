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

    @Test func oneCoveringHandlerWakesWhicheverWaitIsParked() async throws {
        let gate = ReadinessGate(direction: "read")
        let waits = Task { () -> [String] in
            await gate.coveringCancellation {
                var outcomes: [String] = []
                // Two waits resumed by signals, then one parked until the task is cancelled, then one after that.
                for _ in 0..<4 {
                    do {
                        try await gate.wait()
                        outcomes.append("ready")
                    } catch {
                        outcomes.append(error is CancellationError ? "cancelled" : "\(error)")
                    }
                }
                return outcomes
            }
        }
        try await withDeadline {
            try await waitUntil { gate.hasWaiter }
            gate.signal()
            try await waitUntil { gate.hasWaiter }
            gate.signal()
            try await waitUntil { gate.hasWaiter }
        }
        waits.cancel()
        let outcomes = try await withDeadline { await waits.value }
        #expect(outcomes == ["ready", "ready", "cancelled", "cancelled"])
        #expect(!gate.hasWaiter)
    }

    @Test func afterTheCoveringScopeAWaitHasItsOwnHandlerAgain() async throws {
        let gate = ReadinessGate(direction: "read")
        gate.signal()
        let covered = await gate.coveringCancellation { () async -> Bool in
            do { try await gate.wait(); return true } catch { return false }
        }
        #expect(covered)
        let waiter = Task { try await gate.wait() }
        try await withDeadline { try await waitUntil { gate.hasWaiter } }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
    }

    @Test func anotherTasksWaitInsideTheScopeKeepsItsOwnHandler() async throws {
        let gate = ReadinessGate(direction: "read")
        let cancelled = await gate.coveringCancellation { () async -> Bool in
            // A child task of the covering task: cancelling it alone must still wake its wait.
            let child = Task { () async -> Bool in
                do { try await gate.wait(); return false } catch { return error is CancellationError }
            }
            do {
                try await withDeadline { try await waitUntil { gate.hasWaiter } }
            } catch {
                return false
            }
            child.cancel()
            return (try? await withDeadline { await child.value }) ?? false
        }
        #expect(cancelled)
        #expect(!gate.hasWaiter)
    }
}

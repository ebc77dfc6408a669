import Foundation
import ShelfTestSupport
import Synchronization
import Testing

@testable import ShelfCLI

/// `LinePrinter`: text written in order on a thread of its own; `print` waits while too much is unwritten.
@Suite struct LinePrinterTests {
    /// A writer that blocks until opened, as a standard output nobody reads does, and records what it wrote.
    private final class GatedWriter: Sendable {
        private let gate = DispatchSemaphore(value: 0)
        private let written = Mutex<[String]>([])
        func write(_ text: String) {
            gate.wait()
            gate.signal()
            written.withLock { $0.append(text) }
        }
        func open() { gate.signal() }
        var text: String { written.withLock { $0.joined() } }
    }

    @Test("print returns at once under the limit and waits over it until the blocked writer takes the text; all of it comes in order")
    func backpressure() async throws {
        let writer = GatedWriter()
        let printer = LinePrinter(maxBytes: 10) { writer.write($0) }
        defer { printer.close() }
        await printer.print("12345\n")
        let returned = Mutex(false)
        let over = Task {
            await printer.print("6789012345\n")
            returned.withLock { $0 = true }
        }
        try await withDeadline { try await waitUntil { printer.waitingForRoom == 1 } }
        #expect(!returned.withLock { $0 }, "print returned while the writer was blocked")
        writer.open()
        try await withDeadline { await over.value }
        try await withDeadline { await printer.drained() }
        #expect(writer.text == "12345\n6789012345\n")
    }
}

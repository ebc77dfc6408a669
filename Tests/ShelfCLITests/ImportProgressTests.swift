import ShelfCommandLine
import Synchronization
import Testing

@testable import ShelfCLI

/// The progress line of a long import (`ImportProgress`).
@Suite struct ImportProgressTests {
    @Test("the line gives the count, the total, the rate and the seconds left")
    func text() {
        #expect(ImportProgress.text(done: 12_000, total: 100_000, elapsed: .seconds(2))
            == "importing 12,000 of 100,000 (6,000/s, about 15 s left)")
        #expect(ImportProgress.text(done: 0, total: 5, elapsed: .zero) == "importing 0 of 5 (0/s, about 0 s left)")
    }

    @Test("nothing is written when standard error is not a terminal; on one, the line is drawn and erased at the end")
    func shownOnlyOnTerminal() {
        let written = Mutex<[String]>([])
        let output = Output(out: { _ in }, err: { text in written.withLock { $0.append(text) } })
        var quiet = ImportProgress(total: 3, shown: false)
        for _ in 0..<3 { quiet.step(output) }
        quiet.finish(output)
        #expect(written.withLock { $0 }.isEmpty)
        var shown = ImportProgress(total: 3, shown: true)
        for _ in 0..<3 { shown.step(output) }
        shown.finish(output)
        let lines = written.withLock { $0 }
        #expect(lines.first?.hasPrefix("\r\u{1B}[Kimporting 1 of 3 (") == true)
        #expect(lines.last == "\r\u{1B}[K")
    }
}

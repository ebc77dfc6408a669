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

    @Test("nothing is written when standard error is not a terminal; on one, at most five lines a second, the first after 0.2 s, erased at the end")
    func shownOnlyOnTerminal() {
        let written = Mutex<[String]>([])
        let output = Output(out: { _ in }, err: { text in written.withLock { $0.append(text) } })
        let start = ContinuousClock.now
        var quiet = ImportProgress(total: 3, shown: false, start: start)
        for n in 1...3 { quiet.step(output, now: start + .seconds(n)) }
        quiet.finish(output)
        #expect(written.withLock { $0 }.isEmpty)
        var shown = ImportProgress(total: 4, shown: true, start: start)
        shown.step(output, now: start + .milliseconds(100))
        #expect(written.withLock { $0 }.isEmpty)
        shown.step(output, now: start + .seconds(1))
        shown.step(output, now: start + .milliseconds(1100))
        shown.step(output, now: start + .seconds(2))
        shown.finish(output)
        let lines = written.withLock { $0 }
        #expect(lines == [
            "\r\u{1B}[Kimporting 2 of 4 (2/s, about 1 s left)", "\r\u{1B}[Kimporting 4 of 4 (2/s, about 0 s left)",
            "\r\u{1B}[K",
        ])
    }
}

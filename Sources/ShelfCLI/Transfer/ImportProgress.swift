import ShelfCommandLine

/// The progress line of a long import on standard error, when that is a terminal: count, rate and an estimate of
/// the time left, redrawn in place (CR, then erase to the end of the line) at most five times a second.
struct ImportProgress {
    let total: Int
    let shown: Bool
    private var done = 0
    private let start: ContinuousClock.Instant
    private var lastDrawn: ContinuousClock.Instant
    private var drew = false

    /// Progress from `start` on; the first line is drawn a fifth of a second later, when the rate means something.
    init(total: Int, shown: Bool, start: ContinuousClock.Instant = .now) {
        self.total = total
        self.shown = shown
        self.start = start
        lastDrawn = start
    }

    /// One more row answered, at `now`.
    mutating func step(_ output: Output, now: ContinuousClock.Instant = .now) {
        done += 1
        guard shown, now - lastDrawn >= .milliseconds(200) else { return }
        lastDrawn = now
        output.err("\r\u{1B}[K" + Self.text(done: done, total: total, elapsed: now - start))
        drew = true
    }

    /// Erases the line, so the summary starts on a clean one.
    func finish(_ output: Output) {
        if drew { output.err("\r\u{1B}[K") }
    }

    /// `importing 12,000 of 100,000 (8,000/s, about 11 s left)`.
    static func text(done: Int, total: Int, elapsed: Duration) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(done) / seconds : 0
        let left = rate > 0 ? Int((Double(total - done) / rate).rounded(.up)) : 0
        return "importing \(grouped(done)) of \(grouped(total)) (\(grouped(Int(rate)))/s, about \(left) s left)"
    }

    static func grouped(_ value: Int) -> String {
        let digits = String(value)
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }
}

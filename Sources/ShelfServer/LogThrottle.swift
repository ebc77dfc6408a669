/// At most one log line per `interval` for an event that can repeat hundreds of times a second (a full disk failing
/// every save, `accept` failing while out of descriptors): the operator needs to see that it happens and why, not
/// each occurrence. Occurrences within `interval` of a line are counted and reported with the next line.
struct LogThrottle: Sendable {
    /// The least time between two lines.
    let interval: Duration
    private var lastLine: ContinuousClock.Instant?
    private var suppressed = 0

    init(interval: Duration) {
        self.interval = interval
    }

    /// Records one occurrence at `now`.
    /// - Returns: nil when no line may go out for it; else how many occurrences went unlogged since the last line.
    mutating func admit(now: ContinuousClock.Instant) -> Int? {
        if let lastLine, now - lastLine < interval {
            suppressed += 1
            return nil
        }
        defer {
            lastLine = now
            suppressed = 0
        }
        return suppressed
    }
}

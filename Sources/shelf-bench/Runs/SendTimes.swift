/// The send times of the requests in flight on one connection, oldest first (replies come back in order).
/// A ring of fixed capacity: the pipeline depth.
struct SendTimes {
    private var times: [ContinuousClock.Instant]
    private var head = 0
    private(set) var count = 0

    init(capacity: Int, now: ContinuousClock.Instant) {
        times = Array(repeating: now, count: capacity)
    }

    mutating func push(_ time: ContinuousClock.Instant) {
        precondition(count < times.count, "more requests in flight than the pipeline allows")
        times[(head + count) % times.count] = time
        count += 1
    }

    /// The oldest send time, removed.
    mutating func pop() -> ContinuousClock.Instant {
        precondition(count > 0, "a reply with no request in flight")
        let time = times[head]
        head = (head + 1) % times.count
        count -= 1
        return time
    }
}

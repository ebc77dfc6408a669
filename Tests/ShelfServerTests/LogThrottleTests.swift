@testable import ShelfServer
import Testing

/// `LogThrottle`: one line per interval; what falls within it is counted into the next line.
@Suite struct LogThrottleTests {
    @Test("the first occurrence is logged; those within the interval are counted and reported with the next line")
    func throttles() {
        var throttle = LogThrottle(interval: .seconds(10))
        let start = ContinuousClock.now
        #expect(throttle.admit(now: start) == 0)
        #expect(throttle.admit(now: start + .milliseconds(100)) == nil)
        #expect(throttle.admit(now: start + .seconds(9)) == nil)
        #expect(throttle.admit(now: start + .seconds(10)) == 2)
        #expect(throttle.admit(now: start + .seconds(15)) == nil)
        #expect(throttle.admit(now: start + .seconds(30)) == 1)
        #expect(throttle.admit(now: start + .seconds(60)) == 0)
    }
}

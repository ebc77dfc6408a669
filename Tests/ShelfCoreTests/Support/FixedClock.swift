import Foundation
import Synchronization

/// A clock that reads `now` until told otherwise.
final class FixedClock: Sendable {
    /// 2026-11-29T13:14:15.123Z plus 456 µs, so truncation to milliseconds is visible.
    static let start = Date(timeIntervalSince1970: 1_795_958_055.123_456)
    /// `start` truncated to milliseconds.
    static let startText = "2026-11-29T13:14:15.123Z"

    private let current: Mutex<Date>

    init(_ date: Date = FixedClock.start) {
        current = Mutex(date)
    }

    var now: Date {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// The clock to inject into `ReadingList`.
    var reader: @Sendable () -> Date {
        { [self] in now }
    }
}

import ShelfCore
import Synchronization

/// Logs failed saves (`ReadingList.onStorageFailure`), at most one line a second (`LogThrottle`): a full disk fails
/// every round of commits, hundreds a second, and each client already gets `storage_failed`.
final class StorageFailureLog: Sendable {
    private let log: ServerLog
    private let throttle = Mutex(LogThrottle(interval: StorageFailureLog.interval))

    /// The least time between two lines: 1 s.
    static let interval: Duration = .seconds(1)

    init(log: ServerLog) {
        self.log = log
    }

    /// Records `failure` and logs it unless a line went out less than `interval` ago.
    func record(_ failure: ReadingList.StorageFailure, now: ContinuousClock.Instant = .now) {
        guard let unreported = throttle.withLock({ $0.admit(now: now) }) else { return }
        var line = failure.error == .revisionsExhausted
            ? "a change was refused (\(failure.error)): answered storage_failed"
            : "a save failed (\(failure.error)): its change and those decided after it were answered "
                + "storage_failed; the list is back at revision \(failure.revision)"
        if unreported > 0 {
            let more = unreported == 1 ? "failed save or refused change" : "failed saves or refused changes"
            line += " (\(unreported) more \(more) since the last such line)"
        }
        log(line)
    }
}

import ShelfCore
import Synchronization

/// Logs failed saves (`ReadingList.onStorageFailure`), at most one line a second: a full disk fails every round of
/// commits, hundreds a second, and each client already gets `storage_failed`; the operator needs to see that it
/// happens and why, not each one. Failures within the second after a line are counted and reported with the next
/// line.
final class StorageFailureLog: Sendable {
    private struct State {
        var lastLine: ContinuousClock.Instant?
        var unreportedSaves = 0
    }

    private let log: ServerLog
    private let state = Mutex(State())

    /// The least time between two lines: 1 s.
    static let interval: Duration = .seconds(1)

    init(log: ServerLog) {
        self.log = log
    }

    /// Records `failure` and logs it unless a line went out less than `interval` ago.
    func record(_ failure: ReadingList.StorageFailure, now: ContinuousClock.Instant = .now) {
        let unreported = state.withLock { state -> Int? in
            if let last = state.lastLine, now - last < Self.interval {
                state.unreportedSaves += 1
                return nil
            }
            defer { state = State(lastLine: now) }
            return state.unreportedSaves
        }
        guard let unreported else { return }
        var line = failure.error == .revisionsExhausted
            ? "a change was refused (\(failure.error)): answered storage_failed"
            : "a save failed (\(failure.error)): its change and those decided after it were answered "
                + "storage_failed; the list is back at revision \(failure.revision)"
        if unreported > 0 { line += " (\(unreported) more failed save(s) or refused change(s) since the last such line)" }
        log(line)
    }
}

@testable import ShelfCore
@testable import ShelfServer
import Synchronization
import Testing

/// `StorageFailureLog`: at most one line a second; what falls within the second is counted into the next line.
@Suite struct StorageFailureLogTests {
    @Test("three failures within a second give one line; the next, after it, reports the two left out")
    func rateLimited() {
        let lines = Mutex<[String]>([])
        let failures = StorageFailureLog(log: ServerLog { line in lines.withLock { $0.append(line) } })
        let start = ContinuousClock.now
        let failure = ReadingList.StorageFailure(error: .injected("disk full"), revision: 7)
        failures.record(failure, now: start)
        failures.record(failure, now: start + .milliseconds(300))
        failures.record(failure, now: start + .milliseconds(900))
        failures.record(failure, now: start + .milliseconds(1001))
        let logged = lines.withLock { $0 }
        #expect(logged.count == 2)
        #expect(logged.first == "a save failed (\(StorageError.injected("disk full"))): its change and those decided after it were answered storage_failed; the list is back at revision 7")
        #expect(logged.last?.hasSuffix("revision 7 (2 more failed saves or refused changes since the last such line)") == true, "\(logged)")
    }

    @Test("a change refused because the revision counter is exhausted is logged as refused, with what to do")
    func revisionsExhausted() {
        let lines = Mutex<[String]>([])
        let failures = StorageFailureLog(log: ServerLog { line in lines.withLock { $0.append(line) } })
        failures.record(ReadingList.StorageFailure(error: .revisionsExhausted, revision: .max - 1))
        #expect(lines.withLock { $0 } == [
            "a change was refused (the revision counter is exhausted (the list is at revision 2^64 − 2) — nothing more can be changed; list the items and start a new store with them): answered storage_failed",
        ])
    }
}

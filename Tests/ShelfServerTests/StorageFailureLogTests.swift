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
        #expect(logged.last?.hasSuffix("revision 7 (2 more failed save(s) since the last such line)") == true, "\(logged)")
    }
}

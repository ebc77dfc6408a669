import Foundation
import ShelfCore
import ShelfJSON
import Synchronization
import Testing

/// `unwatch` while another client saves at full speed through a store that completes later (protocol/PROTOCOL.md
/// §6: the reply comes after every notification owed up to its revision).
@Suite(.timeLimit(.minutes(1)))
struct UnwatchRaceTests {
    static let trials = 100
    /// Adds the writer sends at a time.
    static let batch = 200

    /// Found by a hostile-input run: the session stopped the feed, then read the revision in a later actor turn;
    /// a group of saves published in between was neither sent nor left out of the revision. The reply then claimed
    /// a revision 256 (one completion group) past the last notification in 18-21 of 50 trials.
    @Test("100 watch/unwatch cycles against a pipelining writer on a file store: each unwatch reply carries the last notified revision")
    func unwatchReplyMatchesTheLastNotification() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "shelf-unwatch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileListStore(path: directory.appending(path: "list.json").path)
        try await withTestServer(store: store, seconds: 50) { server in
            let writer = try await server.connect()
            defer { writer.close() }
            let stop = Atomic(false)
            let writing = Task {
                let batch = (0..<Self.batch).map { #"{"id":\#($0),"method":"add","params":{"title":"x"}}"# + "\n" }.joined()
                while !stop.load(ordering: .relaxed) {
                    try await writer.send(batch)
                    for _ in 0..<Self.batch { _ = try await writer.nextLine() }
                }
            }
            var mismatches: [String] = []
            for trial in 0..<Self.trials {
                let watcher = try await server.connect()
                defer { watcher.close() }
                var last = try #require(try await watcher.call(#"{"id":"w","method":"watch"}"#).integer("result", "revision"))
                for _ in 0..<20 {
                    let notification = try await watcher.readJSON()
                    #expect(notification.integer("params", "revision") == last + 1)
                    last += 1
                }
                try await watcher.send(#"{"id":"u","method":"unwatch"}"# + "\n")
                while true {
                    let line = try await watcher.readJSON()
                    if let revision = line.integer("params", "revision") {
                        #expect(revision == last + 1)
                        last += 1
                        continue
                    }
                    let replied = line.integer("result", "revision")
                    if replied != last { mismatches.append("trial \(trial): reply \(replied ?? -1), last notified \(last)") }
                    break
                }
            }
            stop.store(true, ordering: .relaxed)
            try await writing.value
            #expect(mismatches.isEmpty, "\(mismatches)")
        }
    }
}

import Foundation
import ShelfJSON
import ShelfTestSupport
import Testing

/// A `3 conflict` reply carries the list's revision in `data.revision`; a watcher must have been sent every change
/// up to it first, as for any reply that carries a revision (protocol/PROTOCOL.md §6). The attack that found it:
/// a watcher sending a stale toggle over and over while others add got "now at 402121" and then 402082…402121.
@Suite struct ConflictOrderTests {
    @Test("a watcher's conflict replies never come before the changes up to the revision they name")
    func conflictAfterChanges() async throws {
        try await withTestServer(seconds: 60) { server in
            let watcher = try await server.connect()
            defer { watcher.close() }
            _ = try await watcher.call(#"{"id":"w","method":"watch"}"#)
            let adds = 600
            let writer = Task {
                let connection = try await server.connect()
                defer { connection.close() }
                for n in 1...adds {
                    _ = try await connection.call(#"{"id":\#(n),"method":"add","params":{"title":"Book \#(n)"}}"#)
                }
            }
            let stale = #"{"id":"c","method":"toggle","params":{"id":"00000000-0000-4000-8000-000000000000","expect":0}}"#
            var notified = 0
            var conflicts = 0
            var inFlight = false
            // Keep one stale toggle in flight while the writer adds; read everything that comes.
            while notified < adds || inFlight {
                if !inFlight, notified < adds {
                    try await watcher.send(stale + "\n")
                    inFlight = true
                }
                guard case .object(let line) = try await watcher.readJSON() else { break }
                if case .object(let params)? = line["params"], case .number(let revision)? = params["revision"] {
                    notified = Int(revision.text) ?? notified
                } else if line["id"] == .string("c") {
                    inFlight = false
                    // At revision 0 the toggle is `2 not_found` instead (expect is met; the item is missing).
                    if case .object(let error)? = line["error"], case .object(let data)? = error["data"],
                       case .number(let revision)? = data["revision"], let current = Int(revision.text) {
                        conflicts += 1
                        #expect(current <= notified, "conflict at revision \(current) came before change \(notified + 1)")
                    }
                }
            }
            try await writer.value
            #expect(conflicts > 10)
        }
    }
}

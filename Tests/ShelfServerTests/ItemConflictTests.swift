import Foundation
import ShelfClient
import ShelfCore
import ShelfJSON
import ShelfServer
import ShelfTestSupport
import ShelfWire
import Testing

/// Per-item conditional writes (protocol/PROTOCOL.md §7, `expectItem`) between two clients at once: edits of
/// different items never conflict, and edits of one item have exactly one winner per item revision.
@Suite struct ItemConflictTests {
    /// Toggles `id` `times` times, each conditional on the item revision last seen; on a conflict, retries from the
    /// revision the conflict names. Returns the item revisions its successful toggles were based on, and how many
    /// conflicts it got.
    private static func toggle(
        _ id: UUID, times: Int, from revision: Revision, on client: ShelfClient
    ) async throws -> (bases: [Revision], conflicts: Int) {
        var seen = revision
        var bases: [Revision] = []
        var conflicts = 0
        while bases.count < times {
            do {
                let result = try await client.apply(.toggle(id: id), expectItem: seen)
                bases.append(seen)
                seen = try #require(result.item?.revision)
            } catch ClientError.server(let error) where error.knownCode == .conflict {
                conflicts += 1
                seen = try #require(error.data["itemRevision"]?.numberValue?.uint64)
            }
        }
        return (bases, conflicts)
    }

    @Test("two clients toggling different items 500 times each with expectItem get no conflict, while the list's revision moves under both")
    func differentItemsNeverConflict() async throws {
        try await withTestServer { server in
            let a = try await ShelfClient.connect(to: server.address)
            let b = try await ShelfClient.connect(to: server.address)
            let dune = try #require(try await a.apply(.add(title: "Dune")).item)
            let emma = try #require(try await b.apply(.add(title: "Emma")).item)
            async let first = Self.toggle(dune.id, times: 500, from: dune.revision, on: a)
            async let second = Self.toggle(emma.id, times: 500, from: emma.revision, on: b)
            let (x, y) = try await (first, second)
            #expect(x.conflicts == 0)
            #expect(y.conflicts == 0)
            #expect(try await a.hello().revision == 1002)
            await a.close()
            await b.close()
        }
    }

    @Test("two clients toggling the same item with expectItem: every item revision has exactly one winner")
    func oneItemOneWinnerPerRevision() async throws {
        try await withTestServer { server in
            let a = try await ShelfClient.connect(to: server.address)
            let b = try await ShelfClient.connect(to: server.address)
            let dune = try #require(try await a.apply(.add(title: "Dune")).item)
            async let first = Self.toggle(dune.id, times: 250, from: dune.revision, on: a)
            async let second = Self.toggle(dune.id, times: 250, from: dune.revision, on: b)
            let (x, y) = try await (first, second)
            let bases = x.bases + y.bases
            #expect(Set(bases).count == bases.count, "no item revision was won twice")
            // The winners' bases are exactly the item's revisions from its add to the one before the last toggle.
            #expect(Set(bases) == Set((1...Revision(500)).map { $0 }))
            #expect(try await a.get(dune.id).item.revision == 501)
            await a.close()
            await b.close()
        }
    }
}

import Foundation
import Testing

/// `shelf --expect` (a conditional change, PROTOCOL.md §7) and `shelf show`, against a real shelfd.
@Suite struct ShelfExpectAndShowTests {
    @Test("--expect with a stale revision exits 75 (EX_TEMPFAIL), says the list moved on and changes nothing; with the current one the change is made")
    func expectRevision() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                let added = try await shelfd.shelf("add", "Dune")
                let dune = try shortID(in: added.stdout, after: "added ")
                #expect(try await shelfd.shelf("add", "Emma").status == 0)

                let stale = try await shelfd.shelf("--expect", "1", "read", dune)
                #expect(stale.status == 75)
                #expect(stale.stdout == "")
                #expect(stale.stderr == "shelf: nothing was changed: the list is at revision 2, not 1 (--expect): something changed since; "
                    + "look again (shelf list, shelf show ID), then retry with --expect 2 if it still applies\n")
                let ahead = try await shelfd.shelf("--expect", "9", "toggle", dune)
                #expect(ahead.status == 75)
                #expect(ahead.stderr == "shelf: nothing was changed: the list is at revision 2, and has not reached 9 (--expect)\n")
                let staleAdd = try await shelfd.shelf("add", "--expect", "0", "Persuasion")
                #expect(staleAdd.status == 75)

                let unchanged = try await shelfd.shelf("list")
                #expect(unchanged.stdout.hasSuffix("2 items, 0 read (revision 2)\n"), "\(unchanged.stdout)")

                let current = try await shelfd.shelf("read", dune, "--expect", "2")
                #expect(current.status == 0)
                #expect(current.stdout == "read \(dune) [x] Dune (revision 3)\n")
                // Marking it read again writes nothing: the revision does not move, and shelf says so.
                let again = try await shelfd.shelf("read", dune, "--expect", "3")
                #expect(again.stdout == "unchanged \(dune) [x] Dune (revision 3)\n")
                let removed = try await shelfd.shelf("--expect=3", "rm", dune)
                #expect(removed.stdout == "removed \(dune) Dune (revision 4)\n")
                #expect(try await shelfd.shelf("info").stdout.hasSuffix("revision 4)\n"))
            }
        }
    }

    @Test("show prints the item's fields, by prefix or full id; --json prints the get result; an unknown id exits 1")
    func show() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                let added = try await shelfd.shelf("--json", "add", "Dune")
                let object = try #require(try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any])
                let item = try #require(object["item"] as? [String: Any])
                let id = try #require(item["id"] as? String)
                let addedAt = try #require(item["addedAt"] as? String)
                #expect(try await shelfd.shelf("read", String(id.prefix(8))).status == 0)

                let json = try await shelfd.shelf("show", id, "--json")
                let shown = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
                #expect(shown["revision"] as? Int == 2)
                #expect((shown["item"] as? [String: Any])?["isRead"] as? Bool == true)
                let readAt = try #require((shown["item"] as? [String: Any])?["readAt"] as? String)

                let expected = "id       \(id)\ntitle    Dune\nread     yes\nread at  \(readAt)\nadded    \(addedAt)\nchanged  at revision 2\nlist     at revision 2\n"
                let byPrefix = try await shelfd.shelf("show", String(id.prefix(6)))
                #expect(byPrefix == .init(status: 0, signaled: false, stdout: expected, stderr: ""))
                let byFullID = try await shelfd.shelf("get", id)
                #expect(byFullID.stdout == expected)

                let unknown = try await shelfd.shelf("show", "00000000-0000-4000-8000-000000000000")
                #expect(unknown.status == 1)
                #expect(unknown.stderr == "shelf: no item has the id 00000000-0000-4000-8000-000000000000\n")
            }
        }
    }
}

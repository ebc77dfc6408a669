import Foundation
import Testing

@Suite struct RoundTripTests {
    @Test("add, list, read, rm and --json list work against a real shelfd, and the list survives a restart")
    func fullRoundAndRestart() async throws {
        try await Sandbox.with { sandbox in
            let (textList, jsonList) = try await withShelfd(["--store", "file:\(sandbox.storePath)"], environment: sandbox.environment) { shelfd in
                let addedDune = try await shelfd.shelf("add", "Dune")
                #expect(addedDune.status == 0)
                let dune = try shortID(in: addedDune.stdout, after: "added ")
                #expect(addedDune.stdout == "added \(dune) [ ] Dune (revision 1)\n")

                let addedWords = try await shelfd.shelf("add", "The", "Left", "Hand", "of", "Darkness")
                #expect(addedWords.status == 0)
                let left = try shortID(in: addedWords.stdout, after: "added ")
                #expect(addedWords.stdout == "added \(left) [ ] The Left Hand of Darkness (revision 2)\n")

                let listed = try await shelfd.shelf("list")
                #expect(listed == .init(
                    status: 0, signaled: false,
                    stdout: "\(dune) [ ] Dune\n\(left) [ ] The Left Hand of Darkness\n2 items, 0 read (revision 2)\n",
                    stderr: ""))

                let marked = try await shelfd.shelf("read", uniquePrefix(of: dune, among: [left]))
                #expect(marked.status == 0)
                #expect(marked.stdout == "read \(dune) [x] Dune (revision 3)\n")

                let readOnly = try await shelfd.shelf("list", "--read")
                #expect(readOnly.status == 0)
                #expect(readOnly.stdout == "\(dune) [x] Dune\n1 read item (revision 3)\n")

                let removed = try await shelfd.shelf("rm", uniquePrefix(of: left, among: [dune]))
                #expect(removed.status == 0)
                #expect(removed.stdout == "removed \(left) The Left Hand of Darkness (revision 4)\n")

                let afterRemove = try await shelfd.shelf("list")
                #expect(afterRemove.stdout == "\(dune) [x] Dune\n1 item, 1 read (revision 4)\n")

                let json = try await shelfd.shelf("--json", "list")
                #expect(json.status == 0)
                let lines = json.stdout.split(separator: "\n", omittingEmptySubsequences: false)
                #expect(lines.count == 2 && lines.last == "", "--json prints exactly one line: \(json.stdout)")
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
                #expect(object["revision"] as? Int == 4)
                let items = try #require(object["items"] as? [[String: Any]])
                #expect(items.count == 1)
                #expect((items.first?["id"] as? String)?.hasPrefix(dune) == true)
                #expect(items.first?["title"] as? String == "Dune")
                #expect(items.first?["isRead"] as? Bool == true)

                let stopped = try #require(await shelfd.stop(timeout: .seconds(5)), "shelfd did not stop within 5 s of SIGTERM")
                #expect(stopped.status == 0 && !stopped.signaled)
                #expect(stopped.stderr.contains("SIGTERM received, stopping"))
                #expect(stopped.stderr.hasSuffix("shelfd: stopped\n"))
                #expect(stopped.stdout == "shelfd listening on \(shelfd.address)\n")
                return (afterRemove.stdout, json.stdout)
            }

            // Restarted without --store: $SHELF_DATA_DIR/reading-list.json is the same file.
            var environment = sandbox.environment
            environment["SHELF_DATA_DIR"] = sandbox.directory.path
            try await withShelfd([], environment: environment) { shelfd in
                let listed = try await shelfd.shelf("list")
                #expect(listed.status == 0)
                #expect(listed.stdout == textList)
                let json = try await shelfd.shelf("--json", "list")
                #expect(json.stdout == jsonList, "same ids, titles, read marks, dates and revision")
                let stopped = try #require(await shelfd.stop())
                #expect(stopped.status == 0)
                #expect(stopped.stderr.contains("store file \(sandbox.storePath): revision 4, 1 item\n"))
            }
        }
    }
}

/// The 8-digit short id printed right after `lead` at the start of `text` (`added 3fa2b1c4 [ ] Dune`).
func shortID(in text: String, after lead: String) throws -> String {
    try #require(text.hasPrefix(lead), "expected \"\(lead)…\", got \(text)")
    let id = String(text.dropFirst(lead.count).prefix(8))
    try #require(id.count == 8 && id.allSatisfy(\.isHexDigit), "no short id in \(text)")
    return id
}

/// The shortest prefix of `id`, at least 4 digits long, that no id in `others` starts with.
func uniquePrefix(of id: String, among others: [String]) -> String {
    for length in 4...id.count {
        let prefix = String(id.prefix(length))
        if !others.contains(where: { $0.hasPrefix(prefix) }) { return prefix }
    }
    return id
}

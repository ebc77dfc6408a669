import Foundation
import Testing

/// `shelf import` and `shelf export` with the built executables against a real `shelfd` (README, "Import and
/// export").
@Suite struct ImportExportTests {
    private static let memory = ["--store", "memory", "--insecure-no-auth"]

    private static var fixture: String {
        get throws { try RepositoryFiles.root().appending(path: "Tests/Fixtures/goodreads_library_export.csv").path }
    }

    private func write(_ text: String, _ name: String, in sandbox: Sandbox) throws -> String {
        let path = sandbox.directory.appending(path: name).path
        try Data(text.utf8).write(to: URL(filePath: path))
        return path
    }

    @Test("the synthetic Goodreads export imports, exports, and its export imports into an empty list with every member; again adds nothing")
    func goodreadsRoundTrip() async throws {
        try await Sandbox.with { sandbox in
            let fixture = try Self.fixture
            let store = ["--store", "file:\(sandbox.storePath)", "--insecure-no-auth"]
            let (jsonl, csv) = try await withShelfd(store, environment: sandbox.environment) { shelfd in
                let imported = try await shelfd.shelf("import", fixture)
                #expect(imported.stdout == "added 4, skipped 0 already present, refused 0 (revision 4)\n")
                #expect(imported.status == 0)
                let again = try await shelfd.shelf("import", fixture)
                #expect(again.stdout == "added 0, skipped 4 already present, refused 0 (revision 4)\n")
                let jsonl = try await shelfd.shelf("export")
                #expect(jsonl.stderr == "shelf: exported 4 items at revision 4\n")
                let csv = try await shelfd.shelf("export", "--format", "csv")
                let markdown = try await shelfd.shelf("export", "--format", "markdown", "--read")
                #expect(markdown.stdout == "- [x] The Glass Orchard (Orchard Cycle, #1) — Mara Quillfeather\n- [x] \"Quoted\" Title, With Comma — Lu Wen\n")
                let found = try await shelfd.shelf("export", "--format", "markdown", "glass", "--tag", "favorites")
                #expect(found.stdout == "- [x] The Glass Orchard (Orchard Cycle, #1) — Mara Quillfeather\n")
                return (jsonl.stdout, csv.stdout)
            }
            // Kept dates (a book read before it was added, as Goodreads often has it) load again after a restart.
            let restarted = try await withShelfd(store, environment: sandbox.environment) { try await $0.shelf("export").stdout }
            #expect(restarted == jsonl)
            let lines = jsonl.split(separator: "\n")
            #expect(lines.count == 4)
            #expect(lines.first?.contains(#""author":"Mara Quillfeather","tags":["favorites","sci-fi"],"note":"Borrowed from Ana & Tom.\nReturn by May.\nSecond line <3","readAt":"2023-04-17T00:00:00.000Z"}"#) == true)
            #expect(lines.first?.contains(#""isRead":true,"addedAt":"2022-12-01T00:00:00.000Z""#) == true)
            #expect(lines[2].contains(#""tags":["book-club","currently-reading"]"#))
            #expect(csv.hasPrefix("id,title,isRead,addedAt,revision,author,url,tags,note,readAt\r\n"))

            for (name, text) in [("export.jsonl", jsonl), ("export.csv", csv)] {
                let path = try write(text, name, in: sandbox)
                try await withShelfd(Self.memory, environment: sandbox.environment) { shelfd in
                    let imported = try await shelfd.shelf("import", path)
                    #expect(imported.stdout == "added 4, skipped 0 already present, refused 0 (revision 4)\n", "\(name)")
                    // Every member, ids, dates and read states included; an empty list gives the same revisions too.
                    #expect(try await shelfd.shelf("export").stdout == jsonl, "\(name)")
                    let again = try await shelfd.shelf("import", path)
                    #expect(again.stdout == "added 0, skipped 4 already present, refused 0 (revision 4)\n", "\(name)")
                }
            }
        }
    }

    @Test("bad rows are reported with their line and reason, the rest go in, and the exit status is 1")
    func badRows() async throws {
        try await Sandbox.with { sandbox in
            let long = String(repeating: "x", count: 1001)
            let path = try write("Dune\n\(long)\nSolaris\n", "titles.txt", in: sandbox)
            try await withShelfd(Self.memory, environment: sandbox.environment) { shelfd in
                let imported = try await shelfd.shelf("import", path)
                #expect(imported.status == 1)
                #expect(imported.stdout == "added 2, skipped 0 already present, refused 1 (revision 2)\n")
                #expect(imported.stderr == "shelf: line 2: refused: Title is too long: 1001 characters, the limit is 1000\n"
                    + "shelf: 1 row was refused (listed above); the others were imported\n")
            }
        }
    }

    @Test("--dry-run prints what it would add and skip and changes nothing; a binary file is refused before anything is sent")
    func dryRunAndBinary() async throws {
        try await Sandbox.with { sandbox in
            let path = try write("Dune\nSolaris\n", "titles.txt", in: sandbox)
            let binary = try write("Dune\u{0}\u{1}\u{2}", "image.bin", in: sandbox)
            try await withShelfd(Self.memory, environment: sandbox.environment) { shelfd in
                _ = try await shelfd.shelf("add", "dune")
                let dry = try await shelfd.shelf("import", "--dry-run", path)
                #expect(dry.status == 0)
                #expect(dry.stdout == "would skip  line 1: Dune (already on the list (same title and author))\n"
                    + "would add   line 2: Solaris\n"
                    + "would add 1, skip 1 already present, refuse 0; nothing was changed (revision 1)\n")
                let refused = try await shelfd.shelf("import", binary)
                #expect(refused.status == 1)
                #expect(refused.stderr == "shelf: \(binary) looks binary (a NUL byte at offset 4); nothing was imported\n")
                #expect(try await shelfd.shelf("info").stdout.hasSuffix("revision 1)\n"))
            }
        }
    }

    @Test("an import killed half-way and run again leaves every row on the list exactly once")
    func interrupted() async throws {
        let total = 40_000
        try await Sandbox.with { sandbox in
            let titles = (1...total).map { "Book \($0)" }
            let path = try write(titles.joined(separator: "\n") + "\n", "many.txt", in: sandbox)
            try await withShelfd(["--store", "file:\(sandbox.storePath)", "--insecure-no-auth"], environment: sandbox.environment) { shelfd in
                let port = UInt16(shelfd.port) ?? 0
                let watcher = try BlockingLineSocket.connect(port: port)
                defer { watcher.close() }
                try watcher.sendLine(#"{"id":1,"method":"watch"}"#)
                let importer = try ChildProcess.launch(
                    try Executables.url("shelf"), ["--server", shelfd.address, "import", path], environment: sandbox.environment)
                // The kill comes once half the rows are in, as the watcher sees their changes.
                let reached = await onOwnThread { () -> Bool in
                    while let line = try? watcher.readLine(timeout: .seconds(30)) {
                        if let revision = Self.changedRevision(line), revision >= UInt64(total / 2) { return true }
                    }
                    return false
                }
                #expect(reached)
                importer.send(SIGKILL)
                let killed = await importer.waitForExit(timeout: .seconds(10))
                #expect(killed?.signaled == true)
                let partial = try await shelfd.shelf("export").stdout.split(separator: "\n").count
                #expect(partial < total)

                let resumed = try await run("shelf", ["--server", shelfd.address, "import", path], environment: sandbox.environment, timeout: .seconds(120))
                #expect(resumed.status == 0)
                #expect(resumed.stdout == "added \(total - partial), skipped \(partial) already present, refused 0 (revision \(total))\n")
                let exported = try await shelfd.shelf("export").stdout.split(separator: "\n")
                let seen = exported.compactMap { line -> String? in
                    guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
                    return object["title"] as? String
                }
                #expect(seen.count == total)
                #expect(Set(seen) == Set(titles))
            }
        }
    }

    /// The revision of a `changed` notification line; `nil` for any other line.
    private static func changedRevision(_ line: String) -> UInt64? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              object["method"] as? String == "changed", let params = object["params"] as? [String: Any]
        else { return nil }
        return (params["revision"] as? NSNumber)?.uint64Value
    }
}

import Foundation
import Testing

/// `shelf`'s commands for item details (issue #20): add with members, edit, tag, untag, note, list's search, rows
/// with the author and tags cut to the width, show with every member, changes to several ids, `--expect-item` and
/// exit 75, `--json` errors — against a real shelfd, with exact outputs.
@Suite struct ShelfItemDetailsTests {
    /// Runs `shelf --server ADDRESS ARGUMENTS` with `extra` added to the sandbox's environment.
    private static func shelf(
        _ shelfd: RunningShelfd, _ arguments: [String], extra: [String: String], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ChildProcess.Outcome {
        try await run(
            "shelf", ["--server", shelfd.address] + arguments, environment: shelfd.environment.merging(extra) { $1 },
            sourceLocation: sourceLocation)
    }

    @Test("add takes the members and notes an item it repeats; edit, tag, untag and note change them; list finds, shows and cuts rows; show shows every member")
    func details() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                let added = try await shelfd.shelf(
                    "add", "Dune", "--author", "Frank Herbert", "--url", "https://example.org/dune", "--tag", "SciFi", "--tag", "classic",
                    "--note", "Read the appendices.")
                let dune = try shortID(in: added.stdout, after: "added ")
                #expect(added == .init(status: 0, signaled: false, stdout: "added \(dune) [ ] Dune — Frank Herbert #classic #scifi (revision 1)\n", stderr: ""))

                let again = try await shelfd.shelf("add", " dune ", "--author", "frank  HERBERT")
                let second = try shortID(in: again.stdout, after: "added ")
                #expect(again.status == 0)
                #expect(again.stdout == "added \(second) [ ] dune — frank  HERBERT (revision 2)\n")
                #expect(again.stderr == "shelf: note: already on the list: \(dune) [ ] Dune — Frank Herbert #classic #scifi; adding it again\n")
                // Another author is another book: no note.
                let other = try await shelfd.shelf("add", "Dune", "--author", "Someone Else")
                #expect(other.stderr == "")
                let third = try shortID(in: other.stdout, after: "added ")
                let emma = try shortID(in: try await shelfd.shelf("add", "Emma").stdout, after: "added ")

                let edited = try await shelfd.shelf("edit", second, "--title", "Dune Messiah", "--no-author", "--tag", "scifi")
                #expect(edited.stdout == "updated \(second) [ ] Dune Messiah #scifi (revision 5)\n")
                let unchanged = try await shelfd.shelf("tag", second, "SCIFI")
                #expect(unchanged.stdout == "unchanged \(second) [ ] Dune Messiah #scifi (revision 5)\n")
                #expect(try await shelfd.shelf("untag", dune, "classic").stdout == "updated \(dune) [ ] Dune — Frank Herbert #scifi (revision 6)\n")
                #expect(try await shelfd.shelf("note", emma, "Austen's", "best").stdout == "updated \(emma) [ ] Emma (revision 7)\n")
                #expect(try await shelfd.shelf("rm", third).status == 0)

                let all = try await shelfd.shelf("list")
                #expect(all.stdout == """
                    \(dune) [ ] Dune — Frank Herbert #scifi
                    \(second) [ ] Dune Messiah #scifi
                    \(emma) [ ] Emma
                    3 items, 0 read (revision 8)

                    """)
                let cut = try await Self.shelf(shelfd, ["list"], extra: ["COLUMNS": "24"])
                #expect(cut.stdout == """
                    \(dune) [ ] Dune — Fra…
                    \(second) [ ] Dune Messi…
                    \(emma) [ ] Emma
                    3 items, 0 read (revision 8)

                    """)
                #expect(try await shelfd.shelf("list", "austen").stdout == "\(emma) [ ] Emma\n1 item matches, 0 read (revision 8)\n")
                #expect(try await shelfd.shelf("list", "--tag", "SciFi", "--sort", "-title").stdout == """
                    \(second) [ ] Dune Messiah #scifi
                    \(dune) [ ] Dune — Frank Herbert #scifi
                    2 items match, 0 read (revision 8)

                    """)
                #expect(try await shelfd.shelf("ls", "--limit", "1").stdout == "\(dune) [ ] Dune — Frank Herbert #scifi\n1 item, 0 read (revision 8); more not shown (--limit 1)\n")

                #expect(try await shelfd.shelf("read", dune).status == 0)
                let json = try await shelfd.shelf("--json", "show", dune)
                let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
                let item = try #require(object["item"] as? [String: Any])
                let id = try #require(item["id"] as? String)
                let addedAt = try #require(item["addedAt"] as? String)
                let readAt = try #require(item["readAt"] as? String)
                #expect(try await shelfd.shelf("show", dune).stdout == """
                    id       \(id)
                    title    Dune
                    author   Frank Herbert
                    url      https://example.org/dune
                    tags     scifi
                    read     yes
                    read at  \(readAt)
                    added    \(addedAt)
                    note     Read the appendices.
                    changed  at revision 9
                    list     at revision 9

                    """)
                let bad = try await shelfd.shelf("edit", dune, "--url", "ftp://example.org")
                #expect(bad.status == 1)
                #expect(bad.stderr == "shelf: URL must start with http:// or https://, not ftp:\n")
            }
        }
    }

    @Test("read, unread, toggle and rm take several ids: one change each, one line each in the order given, the first failure's status")
    func severalIDs() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                var ids: [String] = []
                for title in ["Dune", "Emma", "Kindred"] {
                    ids.append(try shortID(in: try await shelfd.shelf("add", title).stdout, after: "added "))
                }
                let missing = ids.contains { $0.hasPrefix("ffff") } ? "eeee" : "ffff"
                let read = try await shelfd.shelf("read", ids[0], missing, ids[2], ids[0])
                #expect(read.status == 1)
                #expect(read.stdout == """
                    read \(ids[0]) [x] Dune (revision 4)
                    read \(ids[2]) [x] Kindred (revision 5)
                    unchanged \(ids[0]) [x] Dune (revision 5)

                    """)
                #expect(read.stderr == "shelf: no item has an id starting with \(missing)\n")

                let toggled = try await shelfd.shelf("toggle", ids[0], ids[1])
                #expect(toggled == .init(status: 0, signaled: false, stdout: "toggled \(ids[0]) [ ] Dune (revision 6)\ntoggled \(ids[1]) [x] Emma (revision 7)\n", stderr: ""))

                // An id that cannot be one stops the command before anything is sent.
                let malformed = try await shelfd.shelf("rm", ids[0], "zzzz")
                #expect(malformed.status == 64)
                #expect(malformed.stdout == "")

                let removed = try await shelfd.shelf("--json", "rm", ids[1], missing)
                #expect(removed.status == 1)
                #expect(removed.stdout == "{\"revision\":8,\"id\":\"\(try await Self.fullID(ids[1], removedFrom: removed.stdout))\"}\n")
                #expect(removed.stderr == #"{"code":null,"reason":"not_found","message":"no item has an id starting with \#(missing)","data":{}}"# + "\n")
                #expect(try await shelfd.shelf("list").stdout == "\(ids[0]) [ ] Dune\n\(ids[2]) [x] Kindred\n2 items, 1 read (revision 8)\n")
            }
        }
    }

    /// The full id that starts with `short` in a `remove` result line.
    private static func fullID(_ short: String, removedFrom line: String) async throws -> String {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let id = try #require(object["id"] as? String)
        try #require(id.hasPrefix(short))
        return id
    }

    @Test("--expect-item makes a change conditional on the item's revision: another item's change does not matter; a stale one exits 75 and, with --json, says so as one JSON line")
    func expectItem() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                let dune = try shortID(in: try await shelfd.shelf("add", "Dune").stdout, after: "added ")
                #expect(try await shelfd.shelf("add", "Emma").status == 0)
                // Dune is at revision 1, the list at 2: --expect-item 1 still holds.
                let read = try await shelfd.shelf("read", dune, "--expect-item", "1")
                #expect(read.stdout == "read \(dune) [x] Dune (revision 3)\n")

                let stale = try await shelfd.shelf("--expect-item", "1", "tag", dune, "scifi")
                #expect(stale.status == 75)
                #expect(stale.stdout == "")
                #expect(stale.stderr == "shelf: nothing was changed: the item is at revision 3, not 1 (--expect-item): it changed since; "
                    + "look again (shelf show ID), then retry with --expect-item 3 if it still applies\n")
                let json = try await shelfd.shelf("--json", "--expect-item", "1", "rm", dune)
                #expect(json.status == 75)
                #expect(json.stderr == #"{"code":3,"reason":"conflict","message":"nothing was changed: the item is at revision 3, not 1 (--expect-item): it changed since; look again (shelf show ID), then retry with --expect-item 3 if it still applies","data":{"reason":"conflict","revision":3,"itemRevision":3}}"# + "\n")
                let listConflict = try await shelfd.shelf("--json", "--expect", "1", "toggle", dune)
                #expect(listConflict.status == 75)
                #expect(listConflict.stderr.hasPrefix(#"{"code":3,"reason":"conflict","message":"nothing was changed: the list is at revision 3, not 1 (--expect)"#))
                #expect(listConflict.stderr.hasSuffix(#""data":{"reason":"conflict","revision":3}}"# + "\n"))

                let usage = try await shelfd.shelf("--json", "frobnicate")
                #expect(usage.status == 64)
                #expect(usage.stderr == #"{"code":null,"reason":"usage","message":"unknown command \"frobnicate\"","data":{}}"# + "\n")
                let unknown = try await shelfd.shelf("--json", "show", "00000000-0000-4000-8000-000000000000")
                #expect(unknown.stderr == #"{"code":null,"reason":"not_found","message":"no item has the id 00000000-0000-4000-8000-000000000000","data":{}}"# + "\n")

                let info = try await shelfd.shelf("--json", "info")
                let object = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
                #expect(object["revision"] as? Int == 3)
                #expect(info.stdout.contains(#""revision":3,"#))
            }
        }
    }

    @Test("note ID alone edits the note in $VISUAL, else $EDITOR: what it writes is saved; left empty or unchanged changes nothing and says so")
    func noteInEditor() async throws {
        try await Sandbox.with { sandbox in
            let writer = sandbox.directory.appending(path: "write-note").path
            try "#!/bin/sh\nprintf 'Line one\\nLine two\\n' > \"$1\"\n".write(toFile: writer, atomically: true, encoding: .utf8)
            let emptier = sandbox.directory.appending(path: "empty-note").path
            try "#!/bin/sh\n: > \"$1\"\n".write(toFile: emptier, atomically: true, encoding: .utf8)
            let failing = sandbox.directory.appending(path: "fail").path
            try "#!/bin/sh\nexit 3\n".write(toFile: failing, atomically: true, encoding: .utf8)
            for path in [writer, emptier, failing] { chmod(path, 0o700) }
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                let dune = try shortID(in: try await shelfd.shelf("add", "Dune", "--note", "Old").stdout, after: "added ")

                // The editor sees the current note: a copy of the file it was given shows it.
                let copier = sandbox.directory.appending(path: "copy-note").path
                let copy = sandbox.directory.appending(path: "seen").path
                try "#!/bin/sh\ncp \"$1\" '\(copy)'\n".write(toFile: copier, atomically: true, encoding: .utf8)
                chmod(copier, 0o700)
                let same = try await Self.shelf(shelfd, ["note", dune], extra: ["EDITOR": copier])
                #expect(same == .init(status: 0, signaled: false, stdout: "unchanged \(dune) [ ] Dune (revision 1): the note is as it was\n", stderr: ""))
                #expect(try String(contentsOfFile: copy, encoding: .utf8) == "Old\n")

                let written = try await Self.shelf(shelfd, ["note", dune], extra: ["VISUAL": writer, "EDITOR": emptier])
                #expect(written.stdout == "updated \(dune) [ ] Dune (revision 2)\n")
                #expect(try await shelfd.shelf("show", dune).stdout.contains("note     Line one\n         Line two\n"))

                let emptied = try await Self.shelf(shelfd, ["note", dune], extra: ["EDITOR": emptier])
                #expect(emptied.stdout == "unchanged \(dune) [ ] Dune (revision 2): the note was left empty (shelf edit ID --no-note removes it)\n")
                let failed = try await Self.shelf(shelfd, ["note", dune], extra: ["EDITOR": failing])
                #expect(failed.status == 1)
                #expect(failed.stderr == "shelf: the editor (\(failing)) exited with status 3; nothing was changed\n")
                #expect(try await shelfd.shelf("info").stdout.hasSuffix("revision 2)\n"))
            }
        }
    }

    @Test("a note whose item changed while it was edited is not saved: exit 75, and what was written is kept in its file; no connection is held while the editor runs")
    func noteConflict() async throws {
        try await Sandbox.with { sandbox in
            // One connection at a time: the editor's own shelf gets in only if note holds none while it edits.
            try await withShelfd(["--store", "memory", "--max-connections", "1"], environment: sandbox.environment) { shelfd in
                let dune = try shortID(in: try await shelfd.shelf("add", "Dune").stdout, after: "added ")
                // The editor changes the item itself (as someone else would meanwhile), then writes its note. Its
                // shelf may come before the server has seen note's connection close: each try is refused until then.
                let editor = sandbox.directory.appending(path: "meanwhile").path
                let shelf = try Executables.url("shelf").path
                try "#!/bin/sh\nfor try in 1 2 3 4 5 6 7 8 9 10; do '\(shelf)' --server \(shelfd.address) tag \(dune) elsewhere > /dev/null 2>&1 && break; done\nprintf 'Mine\\n' > \"$1\"\n"
                    .write(toFile: editor, atomically: true, encoding: .utf8)
                chmod(editor, 0o700)
                let outcome = try await Self.shelf(shelfd, ["note", dune], extra: ["EDITOR": editor, "TMPDIR": sandbox.directory.path])
                #expect(outcome.status == 75)
                #expect(outcome.stdout == "")
                let lines = outcome.stderr.split(separator: "\n").map(String.init)
                try #require(lines.count == 2, "\(outcome.stderr)")
                let kept = try #require(lines[0].split(separator: " ").last.map(String.init))
                #expect(lines[0] == "shelf: the note you wrote is kept in \(kept)")
                #expect(try String(contentsOfFile: kept, encoding: .utf8) == "Mine\n")
                #expect(lines[1] == "shelf: nothing was changed: the item was changed elsewhere while it was edited (it is now at "
                    + "revision 2); look again (shelf show ID) and edit it again")
                #expect(try await shelfd.shelf("list").stdout == "\(dune) [ ] Dune #elsewhere\n1 item, 0 read (revision 2)\n")
            }
        }
    }

    @Test("with --json, an error that ends shelf watch is one JSON line too, and a refused token still exits 1")
    func watchJSONError() async throws {
        try await Sandbox.with { sandbox in
            let home = sandbox.directory.appending(path: "home").path
            try writePrivateFile(home + "/.config/shelf/token", "owner-token-0123456789\n")
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                let refused = try await Self.shelf(shelfd, ["--json", "watch"], extra: ["SHELF_TOKEN": "wrong-token-0123456789"])
                #expect(refused.status == 1)
                #expect(refused.stdout == "")
                let object = try #require(try JSONSerialization.jsonObject(with: Data(refused.stderr.utf8)) as? [String: Any], "\(refused.stderr)")
                #expect(object["code"] as? Int == 5)
                #expect(object["reason"] as? String == "unauthorized")
                #expect(object["message"] as? String == "the server refused the token in $SHELF_TOKEN")
                #expect((object["data"] as? [String: Any])?["reason"] as? String == "unauthorized")
            }
        }
    }

    @Test("shelf watch says what each change did, one line per member, against the item as it showed it last")
    func watchSaysWhatChanged() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                let dune = try shortID(in: try await shelfd.shelf("add", "Dune", "--tag", "fantasy").stdout, after: "added ")
                let watcher = try ChildProcess.launch(
                    try Executables.url("shelf"), ["--server", shelfd.address, "watch"], environment: sandbox.environment)
                do {
                    try #require(await watcher.waitForLine(startingWith: "1 item, 0 read (revision 1)", timeout: .seconds(10)) != nil,
                                 "no summary line: \(watcher.stdoutSoFar) \(watcher.stderrSoFar)")
                    for arguments in [
                        ["edit", dune, "--tag", "scifi", "--untag", "fantasy"], ["edit", dune, "--author", "Frank Herbert", "--title", "Dune Messiah"],
                        ["note", dune, "Read", "it"], ["edit", dune, "--no-note", "--url", "https://example.org/dune"], ["read", dune],
                    ] {
                        let edited = try await Self.shelf(shelfd, arguments, extra: [:])
                        #expect(edited.status == 0, "shelf \(arguments.joined(separator: " ")): \(edited.stderr)")
                    }
                    try #require(await watcher.waitForLine(startingWith: "~ \(dune) read:", timeout: .seconds(10)) != nil,
                                 "the last change did not show: \(watcher.stdoutSoFar) \(watcher.stderrSoFar)")
                    watcher.send(SIGINT)
                    let ended = try #require(await watcher.waitForExit(timeout: .seconds(10)), "shelf watch did not stop on SIGINT")
                    #expect(ended == .init(status: 0, signaled: false, stdout: """
                        \(dune) [ ] Dune #fantasy
                        1 item, 0 read (revision 1)
                        ~ \(dune) tags: +scifi -fantasy
                        ~ \(dune) title: Dune -> Dune Messiah
                        ~ \(dune) author: (none) -> Frank Herbert
                        ~ \(dune) note added: Dune Messiah
                        ~ \(dune) url: (none) -> https://example.org/dune
                        ~ \(dune) note removed: Dune Messiah
                        ~ \(dune) read: Dune Messiah

                        """, stderr: ""))
                } catch {
                    await watcher.terminate(grace: .seconds(1))
                    throw error
                }
            }
        }
    }

    @Test("every command in the README's shelf table has help, and every option the README's shelf section names is in shelf's help")
    func readmeClaims() async throws {
        let readme = try RepositoryFiles.text("README.md")
        let start = try #require(readme.range(of: "\n## shelf\n"))
        let end = try #require(readme.range(of: "\n## Performance", range: start.upperBound..<readme.endIndex))
        let section = readme[start.upperBound..<end.lowerBound]
        var commands: [String] = []
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let cell = line.dropFirst(2).split(separator: " | ").first ?? ""
            for match in cell.matches(of: /`([a-z]+)[ `]/) { commands.append(String(match.1)) }
            for match in cell.matches(of: /\(or `([a-z]+)`\)/) { commands.append(String(match.1)) }
        }
        #expect(Set(commands).isSuperset(of: ["add", "list", "ls", "read", "unread", "toggle", "edit", "tag", "untag", "note", "rm", "remove", "show", "get", "watch"]))
        try await Sandbox.with { sandbox in
            var help = try await run("shelf", ["help"], environment: sandbox.environment).stdout
            for command in Set(commands) {
                let outcome = try await run("shelf", ["help", command], environment: sandbox.environment)
                #expect(outcome.status == 0, "shelf help \(command)")
                help += outcome.stdout
            }
            // git's --force-with-lease is named as a comparison, not as an option of shelf's.
            let options = Set(section.matches(of: /--[a-z][a-z-]+/).map { String($0.0) }).subtracting(["--force-with-lease"])
            #expect(options.contains("--expect-item") && options.contains("--no-author") && options.contains("--sort"))
            for option in options {
                #expect(help.contains(option), "\(option) is in the README's shelf section but in no help text")
            }
        }
    }
}

import ShelfCore
import ShelfSockets
import ShelfWire
import Testing

@testable import ShelfCLI
@testable import ShelfCommandLine

@Suite struct ShelfCommandTests {
    typealias Action = ShelfCommand.Action
    private static let defaultServer = HostPort(host: "127.0.0.1", port: 7453)

    private static func parse(_ arguments: [String], _ environment: [String: String] = [:]) throws(UsageError) -> ShelfCommand {
        try ShelfCommand.parse(arguments, environment: environment)
    }

    /// `arguments` parse to `action` with the default server and no `--json`.
    private static func expect(
        _ arguments: [String], parseTo action: Action, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(
            try parse(arguments) == ShelfCommand(server: defaultServer, json: false, action: action),
            sourceLocation: sourceLocation)
    }

    @Test("a bare command talks to 127.0.0.1:7453 and prints text")
    func defaults() throws {
        #expect(try Self.parse(["list"]) == ShelfCommand(server: Self.defaultServer, json: false, action: .list(.all)))
        #expect(Self.defaultServer.port == ProtocolInfo.defaultPort)
    }

    @Test(
        "each command takes its operands; add and rename join the title words",
        arguments: [
            (["add", "Dune"], .add(title: "Dune")),
            (["add", "The", "Left", "Hand", "of", "Darkness"], .add(title: "The Left Hand of Darkness")),
            (["add", "  spaced  "], .add(title: "  spaced  ")),
            (["add", "-"], .add(title: "-")),
            (["list"], .list(.all)),
            (["ls"], .list(.all)),
            (["list", "--read"], .list(.read)),
            (["list", "--unread"], .list(.unread)),
            (["--read", "list"], .list(.read)),
            (["read", "3fa2"], .setRead(ids: ["3fa2"], isRead: true)),
            (["unread", "3fa2"], .setRead(ids: ["3fa2"], isRead: false)),
            (["toggle", "3fa2"], .toggle(ids: ["3fa2"])),
            (["rename", "3fa2", "Dune", "Messiah"], .rename(id: "3fa2", title: "Dune Messiah")),
            (["rm", "3fa2"], .remove(ids: ["3fa2"])),
            (["remove", "3fa2"], .remove(ids: ["3fa2"])),
            (["show", "3fa2"], .show(id: "3fa2")),
            (["get", "3fa2"], .show(id: "3fa2")),
            (["info"], .info),
            (["ping"], .ping),
            (["help"], .help(topic: nil)),
            (["help", "add"], .help(topic: "add")),
            (["watch"], .watch),
            (["version"], .version),
            (["read", "3fa2", "9c0e"], .setRead(ids: ["3fa2", "9c0e"], isRead: true)),
            (["toggle", "3fa2", "9c0e", "4b5c"], .toggle(ids: ["3fa2", "9c0e", "4b5c"])),
            (["rm", "3fa2", "9c0e"], .remove(ids: ["3fa2", "9c0e"])),
            (["add", "Dune", "--author", "Frank Herbert", "--url", "https://example.org", "--tag", "scifi", "--tag=classic", "--note", "Read it"],
             .add(title: "Dune", details: ItemDetails(author: "Frank Herbert", url: "https://example.org", tags: ["scifi", "classic"], note: "Read it"))),
            (["edit", "3fa2", "--title", "Dune Messiah", "--no-author", "--url", "https://x.org", "--no-note", "--tag", "a", "--untag", "b"],
             .edit(id: "3fa2", ItemEdit(title: "Dune Messiah", author: .clear, url: .set("https://x.org"), note: .clear, tags: .adjust(add: ["a"], remove: ["b"])))),
            (["edit", "3fa2", "--author", "Lem"], .edit(id: "3fa2", ItemEdit(author: .set("Lem")))),
            (["tag", "3fa2", "scifi", "classic"], .edit(id: "3fa2", ItemEdit(tags: .adjust(add: ["scifi", "classic"], remove: [])))),
            (["untag", "3fa2", "scifi"], .edit(id: "3fa2", ItemEdit(tags: .adjust(add: [], remove: ["scifi"])))),
            (["note", "3fa2", "Read", "the", "appendices."], .edit(id: "3fa2", ItemEdit(note: .set("Read the appendices.")))),
            (["note", "3fa2"], .editNote(id: "3fa2")),
            (["list", "dune"], .list(ItemQuery(text: "dune"))),
            (["list", "dune", "--tag", "scifi", "--tag", "classic", "--unread", "--sort", "-title", "--limit", "5"],
             .list(ItemQuery(filter: .unread, text: "dune", tags: ["scifi", "classic"], sort: ItemQuery.Sort(.title, descending: true), limit: 5))),
            (["ls", "--sort=readAt"], .list(ItemQuery(sort: ItemQuery.Sort(.readAt)))),
        ] as [([String], Action)])
    func commands(arguments: [String], action: Action) throws {
        try Self.expect(arguments, parseTo: action)
    }

    @Test(
        "the ls alias takes --read and --unread like list")
    func lsWithFilter() throws {
        try Self.expect(["ls", "--read"], parseTo: .list(.read))
        try Self.expect(["ls", "--unread"], parseTo: .list(.unread))
    }

    @Test(
        "-- ends the options, so a title may start with -",
        arguments: [
            (["add", "--", "-3 dB"], .add(title: "-3 dB")),
            (["add", "--", "--json", "--help"], .add(title: "--json --help")),
            (["--", "add", "-x"], .add(title: "-x")),
            (["rename", "3fa2", "--", "--draft--"], .rename(id: "3fa2", title: "--draft--")),
            (["add", "a", "--", "--"], .add(title: "a --")),
        ] as [([String], Action)])
    func doubleDash(arguments: [String], action: Action) throws {
        try Self.expect(arguments, parseTo: action)
    }

    @Test(
        "-h and --help ask for help, with the command as the topic; --version asks for the version",
        arguments: [
            (["-h"], .help(topic: nil)),
            (["--help"], .help(topic: nil)),
            (["add", "--help"], .help(topic: "add")),
            (["ls", "-h"], .help(topic: "ls")),
            (["add", "-h", "--no-such-option"], .help(topic: "add")),
            (["--version"], .version),
            (["list", "--version"], .version),
        ] as [([String], Action)])
    func helpAndVersion(arguments: [String], action: Action) throws {
        try Self.expect(arguments, parseTo: action)
    }

    @Test("an error before -h or --version wins, as in getopt-based tools; the error names the command")
    func errorBeforeHelp() {
        #expect(throws: UsageError("--timeout takes whole seconds from 0 (no limit) to 86400, not \"x\"", command: "ping")) {
            try Self.parse(["--timeout", "x", "--bogus", "ping"])
        }
        #expect(throws: UsageError("unknown option --bogus (put -- before a title with a word that starts with -)", command: "add")) {
            try Self.parse(["add", "--bogus", "--timeout", "x", "Dune"])
        }
        #expect(throws: UsageError("version takes no arguments", command: "version")) { try Self.parse(["version", "extra"]) }
        #expect(throws: UsageError("unknown option --bogus", command: "list")) { try Self.parse(["--bogus", "-h", "list"]) }
        #expect(throws: UsageError("--timeout takes whole seconds from 0 (no limit) to 86400, not \"x\"", command: "ping")) {
            try Self.parse(["--timeout", "x", "--version", "ping"])
        }
    }

    @Test("--timeout takes whole seconds, 0 for no limit; the default is 10 s",
          arguments: [(["ping"], .seconds(10)), (["--timeout", "0", "ping"], nil), (["--timeout=86400", "ping"], .seconds(86_400)),
                      (["ping", "--timeout", "1"], .seconds(1))] as [([String], Duration?)])
    func timeout(arguments: [String], expected: Duration?) throws {
        #expect(try Self.parse(arguments).timeout == expected)
    }

    @Test("--timeout refuses anything but whole seconds from 0 to 86400", arguments: ["-1", "1.5", "86401", "", "ten"])
    func badTimeout(text: String) {
        #expect(throws: UsageError("--timeout takes whole seconds from 0 (no limit) to 86400, not \"\(text)\"", command: "ping")) {
            try Self.parse(["--timeout=\(text)", "ping"])
        }
    }

    @Test("--expect takes a revision, before or after a command that changes the list; without it there is none",
          arguments: [(["add", "Dune"], nil), (["--expect", "0", "add", "Dune"], 0), (["read", "3fa2", "--expect=7"], 7),
                      (["--expect", "18446744073709551615", "rm", "3fa2"], UInt64.max), (["toggle", "--expect", "3", "3fa2"], 3),
                      (["rename", "3fa2", "--expect", "12", "Dune"], 12), (["unread", "--expect", "007", "3fa2"], 7)]
                      as [([String], UInt64?)])
    func expectRevision(arguments: [String], expected: UInt64?) throws {
        #expect(try Self.parse(arguments).expect == expected)
    }

    @Test("--expect refuses anything but a whole number from 0 to 2^64-1",
          arguments: ["-1", "+3", "3.0", "1e3", "", " 3", "18446744073709551616", "three"])
    func badExpect(text: String) {
        #expect(throws: UsageError("--expect takes a revision (a whole number, as `shelf info` shows), not \"\(text)\"", command: "add")) {
            try Self.parse(["--expect=\(text)", "add", "Dune"])
        }
    }

    @Test("--expect goes only with a command that changes the list", arguments: [["list"], ["show", "3fa2"], ["info"], ["ping"], ["watch"]])
    func expectWithoutChange(arguments: [String]) {
        #expect(throws: UsageError(
            "--expect goes with a command that changes the list (add, read, unread, toggle, rename, edit, tag, untag, note, rm)", command: arguments[0]
        )) {
            try Self.parse(["--expect", "3"] + arguments)
        }
    }

    @Test("--server and --json work as --opt value and --opt=value, before or after the command")
    func globalOptions() throws {
        let elsewhere = HostPort(host: "10.0.0.2", port: 9000)
        let table: [[String]] = [
            ["--server", "10.0.0.2:9000", "--json", "list"],
            ["--server=10.0.0.2:9000", "--json", "list"],
            ["list", "--json", "--server", "10.0.0.2:9000"],
            ["--json", "list", "--server=10.0.0.2:9000"],
            ["--server", "127.0.0.1:1", "list", "--json", "--server", "10.0.0.2:9000"],
        ]
        for arguments in table {
            #expect(try Self.parse(arguments) == ShelfCommand(server: elsewhere, json: true, action: .list(.all)), "\(arguments)")
        }
        #expect(try Self.parse(["--server", "[::1]:7453", "ping"]).server == HostPort(host: "::1", port: 7453))
    }

    @Test("SHELF_SERVER is the default server; --server overrides it; an empty one counts as unset")
    func serverFromEnvironment() throws {
        let environment = ["SHELF_SERVER": "10.0.0.3:7000"]
        #expect(try Self.parse(["ping"], environment).server == HostPort(host: "10.0.0.3", port: 7000))
        #expect(try Self.parse(["ping", "--server", "10.0.0.4:1"], environment).server == HostPort(host: "10.0.0.4", port: 1))
        #expect(try Self.parse(["ping"], ["SHELF_SERVER": ""]).server == Self.defaultServer)
        #expect(throws: UsageError("the server address ($SHELF_SERVER) must be HOST:PORT (e.g. 127.0.0.1:7453), not \"nowhere\"")) {
            try Self.parse(["ping"], ["SHELF_SERVER": "nowhere"])
        }
        // A bad SHELF_SERVER does not matter when --server replaces it.
        #expect(try Self.parse(["ping", "--server", "10.0.0.4:1"], ["SHELF_SERVER": "nowhere"]).server.port == 1)
    }

    @Test(
        "a wrong command line is a usage error that says what is wrong",
        arguments: [
            ([], "no command given", nil),
            (["--json"], "no command given", nil),
            (["frobnicate"], "unknown command \"frobnicate\"", nil),
            (["LIST"], "unknown command \"LIST\"", nil),
            (["--verbose", "list"], "unknown option --verbose", "list"),
            (["list", "-v"], "unknown option -v", "list"),
            (["list", "--server"], "--server needs a value", "list"),
            (["add", "Dune", "--read"], "--read goes with the list command only", "add"),
            (["rm", "3fa2", "--unread"], "--unread goes with the list command only", "rm"),
            (["read", "--read", "3fa2"], "--read goes with the list command only", "read"),
            (["list", "--read", "--unread"], "use one of --read and --unread", "list"),
            (["add"], "add needs a TITLE", "add"),
            (["add", "--"], "add needs a TITLE", "add"),
            (["list", "dune", "extra"], "list takes at most one QUERY (quote a query of several words)", "list"),
            (["ls", "dune", "extra"], "ls takes at most one QUERY (quote a query of several words)", "ls"),
            (["read"], "read needs at least one ID", "read"),
            (["unread"], "unread needs at least one ID", "unread"),
            (["toggle"], "toggle needs at least one ID", "toggle"),
            (["rename"], "rename needs an ID and a TITLE", "rename"),
            (["rename", "3fa2"], "rename needs an ID and a TITLE", "rename"),
            (["rm"], "rm needs at least one ID", "rm"),
            (["info", "now"], "info takes no arguments", "info"),
            (["ping", "twice"], "ping takes no arguments", "ping"),
            (["watch", "3fa2"], "watch takes no arguments", "watch"),
            (["watch", "--read"], "--read goes with the list command only", "watch"),
            (["help", "add", "list"], "help takes at most one COMMAND", "help"),
            (["add", "Dune", "--title", "X"], "--title goes with edit only", "add"),
            (["read", "3fa2", "--tag", "x"], "--tag goes with add and edit and list only", "read"),
            (["edit", "3fa2", "--sort", "title"], "--sort goes with list only", "edit"),
            (["list", "--author", "Lem"], "--author goes with add and edit only", "list"),
            (["edit", "3fa2"], "edit needs something to change: --title, --author, --url, --note (or --no-author, --no-url, --no-note), --tag, --untag", "edit"),
            (["edit", "3fa2", "--author", "A", "--no-author"], "use one of --author and --no-author", "edit"),
            (["edit", "3fa2", "--author", "A", "--author", "B"], "--author given twice", "edit"),
            (["edit"], "edit needs exactly one ID", "edit"),
            (["tag", "3fa2"], "tag needs an ID and a TAG", "tag"),
            (["untag"], "untag needs an ID and a TAG", "untag"),
            (["note"], "note needs an ID", "note"),
            (["list", "--sort", "size"], "--sort takes one of added, title, author, readAt, with a leading - for descending, not \"size\"", "list"),
            (["list", "--limit", "0"], "--limit takes a whole number from 1 to 100000, not \"0\"", "list"),
            (["list", "--limit", "+5"], "--limit takes a whole number from 1 to 100000, not \"+5\"", "list"),
            (["read", "3fa2", "9c0e", "--expect", "4"], "--expect goes with one ID: each change moves the list's revision, so only the first could be made", "read"),
            (["rm", "3fa2", "9c0e", "--expect-item", "4"], "--expect-item goes with a change to one item (read, unread, toggle or rm with one ID; rename, edit, tag, untag, note)", "rm"),
            (["add", "Dune", "--expect-item", "4"], "--expect-item goes with a change to one item (read, unread, toggle or rm with one ID; rename, edit, tag, untag, note)", "add"),
            (["show", "3fa2", "--expect-item", "4"], "--expect-item goes with a change to one item (read, unread, toggle or rm with one ID; rename, edit, tag, untag, note)", "show"),
            (["read", "3fa2", "--expect-item", "x"], "--expect-item takes a revision (a whole number, as `shelf show` shows), not \"x\"", "read"),
        ] as [([String], String, String?)])
    func usageErrors(arguments: [String], message: String, command: String?) {
        #expect(throws: UsageError(message, command: command)) { try Self.parse(arguments) }
    }

    @Test("an unknown option after add or rename hints at --, since a title word may start with -")
    func dashInTitle() throws {
        let hint = " (put -- before a title with a word that starts with -)"
        #expect(throws: UsageError("unknown option -22" + hint, command: "add")) { try Self.parse(["add", "Catch", "-22"]) }
        #expect(throws: UsageError("unknown option -vs-" + hint, command: "rename")) {
            try Self.parse(["rename", "3fa2", "A", "-vs-", "B"])
        }
        #expect(throws: UsageError("unknown option -22", command: "list")) { try Self.parse(["list", "-22"]) }
        #expect(try Self.parse(["add", "--", "Catch", "-22"]).action == .add(title: "Catch -22"))
    }

    @Test(
        "--server refuses anything but HOST:PORT",
        arguments: ["localhost", "127.0.0.1", "127.0.0.1:", ":7453", "127.0.0.1:65536", "::1:7453", "[::1]", "", "host:port"])
    func badServerAddress(text: String) {
        #expect(throws: UsageError("the server address (--server) must be HOST:PORT (e.g. 127.0.0.1:7453), not \"\(text)\"")) {
            try Self.parse(["--server", text, "list"])
        }
    }

    @Test(
        "a flag given a value (--json=no) is a usage error, not silently the flag",
        arguments: [["--json=no", "list"], ["list", "--read=no"]])
    func flagWithValue(arguments: [String]) {
        #expect(throws: UsageError.self) { try Self.parse(arguments) }
    }

    @Test(
        "a single-dash word is a short option: -json is not --json, and errors quote it as typed")
    func singleDashLongName() {
        #expect(throws: UsageError("unknown option -rf", command: "list")) { try Self.parse(["list", "-rf"]) }
        #expect(throws: UsageError.self) { try Self.parse(["-json", "list"]) }
    }

    @Test("--expect-item takes the item's revision with a change to one item, before or after the command")
    func expectItem() throws {
        #expect(try Self.parse(["--expect-item", "7", "read", "3fa2"]).expectItem == 7)
        #expect(try Self.parse(["edit", "3fa2", "--tag", "x", "--expect-item=8"]).expectItem == 8)
        #expect(try Self.parse(["note", "3fa2"]).expectItem == nil)
        #expect(try Self.parse(["rm", "3fa2", "--expect", "3"]).expect == 3)
    }

    @Test("every option shelf's help names is one the parser knows (the shelfd options watch's help names aside)")
    func helpOptionsParse() {
        let texts = [ShelfHelp.usage] + ShelfHelp.topics.values
        let options = Set(texts.flatMap { $0.matches(of: /--[a-z][a-z-]+/).map { String($0.0) } })
            .subtracting(["--history", "--max-outbound-bytes"])
        #expect(options.isSuperset(of: ["--expect-item", "--author", "--no-note", "--untag", "--sort", "--limit", "--tag"]))
        for option in options {
            do {
                _ = try Self.parse([option, "1", "info"])
            } catch {
                #expect(!error.message.hasPrefix("unknown option"), "\(option): \(error.message)")
            }
        }
    }

    @Test("every command and alias has help whose usage line names it, and shelf help lists it",
          arguments: ["add", "list", "ls", "read", "unread", "toggle", "rename", "edit", "tag", "untag", "note", "rm", "remove", "show", "get", "watch", "info", "ping", "help", "version"])
    func helpForEveryCommand(name: String) throws {
        let text = try #require(ShelfHelp.text(for: name))
        let canonical = ["ls": "list", "remove": "rm", "get": "show"][name] ?? name
        #expect(text.hasPrefix("usage: shelf \(canonical)"))
        #expect(ShelfHelp.usage.contains("\n  \(canonical) ") || ShelfHelp.usage.contains("alias: \(name))"))
        #expect(ShelfHelp.pointer(for: name) == text.split(separator: "\n")[0] + "\nrun 'shelf help \(name)' for more")
    }
}

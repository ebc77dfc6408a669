import ShelfCommandLine
import ShelfCore
import ShelfSockets
import ShelfWire

/// A parsed `shelf` command line: global options and one command.
public struct ShelfCommand: Equatable, Sendable {
    /// What to do.
    public enum Action: Equatable, Sendable {
        /// `add TITLE… [--author A] [--url U] [--tag T]… [--note TEXT]`: the title words joined with spaces.
        case add(title: String, details: ItemDetails = ItemDetails())
        /// `list [QUERY] [--tag T]… [--read|--unread] [--sort KEY] [--limit N]`.
        case list(ItemQuery)
        /// `read`/`unread ID…`: each id is its own change.
        case setRead(ids: [String], isRead: Bool)
        /// `toggle ID…`: each id is its own change.
        case toggle(ids: [String])
        /// `rename ID TITLE…`.
        case rename(id: String, title: String)
        /// `edit`, `tag`, `untag` and `note ID TEXT…`: one `update`.
        case edit(id: String, ItemEdit)
        /// `note ID` alone: the note is edited in `$VISUAL`, else `$EDITOR`, else `vi`.
        case editNote(id: String)
        /// `rm ID…`: each id is its own change.
        case remove(ids: [String])
        /// `show ID`: every member of one item.
        case show(id: String)
        /// `info`: the server's version and the list's revision.
        case info
        /// `ping`.
        case ping
        /// `watch`: the list, then each change.
        case watch
        /// The full-screen live view (`shelf ui`; `shelf` alone on a terminal).
        case ui
        /// `help [COMMAND]`, `-h`, `--help`.
        case help(topic: String?)
        /// `version`, `--version`.
        case version
        /// `export [QUERY] [--tag T]… [--read|--unread] [--sort KEY] [--format F]`: the list to standard output.
        case export(ExportFormat, ItemQuery)
        /// `import [--format F] [--dry-run] FILE|-`.
        case importFile(path: String, format: ImportFormat, dryRun: Bool)
    }

    /// The server to talk to: `--server`, else `$SHELF_SERVER`, else the config file's `server`, else
    /// `127.0.0.1:7453`.
    public var server: HostPort
    /// `--json`: print each result as one JSON line instead of text.
    public var json: Bool
    /// Where the token for `auth` comes from: `--token-file PATH`, else `$SHELF_TOKEN`, else the config file's
    /// `token-file`, else the default token file if it exists (`ConfigDirectory.tokenFile`), else none.
    public var token: TokenSource?
    /// The command.
    public var action: Action
    /// `--timeout SECONDS`: how long `shelf` waits for the server each time — connecting (name lookup included),
    /// then each reply — and how often `watch` pings it; `nil` (`--timeout 0`) waits for ever and turns the pings
    /// off. Default 10 s.
    public var timeout: Duration? = ShelfCommand.defaultTimeout
    /// `--expect REVISION`: make the change conditional (PROTOCOL.md §7): it is made only if the list is still at
    /// that revision, else the server answers `3 conflict` and nothing is written. Only with a command that changes
    /// the list (`isChange`).
    public var expect: Revision? = nil
    /// `--expect-item REVISION`: make the change conditional on the item's own revision (PROTOCOL.md §7), which
    /// changes to other items do not move. Only with a change to one item (`targetsOneItem`).
    public var expectItem: Revision? = nil

    /// Whether the command changes the list (and so may take `--expect`).
    public var isChange: Bool {
        switch action {
        case .add, .setRead, .toggle, .rename, .edit, .editNote, .remove: true
        default: false
        }
    }

    /// The ids a change to several items names (`read`, `unread`, `toggle`, `rm`); empty for other commands.
    public var ids: [String] {
        switch action {
        case .setRead(let ids, _), .toggle(let ids), .remove(let ids): ids
        default: []
        }
    }

    /// Whether the command changes one existing item (and so may take `--expect-item`).
    public var targetsOneItem: Bool {
        switch action {
        case .setRead(let ids, _), .toggle(let ids), .remove(let ids): ids.count == 1
        case .rename, .edit, .editNote: true
        default: false
        }
    }

    /// 10 s: a reply from a live server comes in milliseconds; one that takes this long is stopped (SIGSTOP),
    /// wedged, or not shelfd.
    public static let defaultTimeout: Duration = .seconds(10)

    /// Parses `arguments` (without the program name). Options may come before or after the command; `--` ends them.
    /// Each setting comes from the first of: the option, the environment, `config`, the default (README, "shelf").
    /// - Parameter defaultCommand: the command when none is given (`ui` on a terminal); `nil`: a usage error.
    /// - Throws: `UsageError` for an unknown command or option, a missing or extra operand, a bad address.
    public static func parse(
        _ arguments: [String], environment: [String: String], config: ShelfConfig = ShelfConfig(),
        defaultCommand: String? = nil
    ) throws(UsageError) -> ShelfCommand {
        var scanner = ArgumentScanner(arguments)
        let serverFromEnvironment = environment["SHELF_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
        var serverText = serverFromEnvironment ?? config.server
        var serverFromOption = false
        var timeout: Duration? = defaultTimeout
        var json = false
        var expect: Revision?
        var expectItem: Revision?
        var options = ItemOptions()
        let explicitToken = environment["SHELF_TOKEN"].flatMap { $0.isEmpty ? nil : TokenSource.value($0) }
        // The config's and the default token file are sent only to the server they are for (`implicitTokenGoes`).
        let implicitToken = config.tokenFile.map(TokenSource.file)
            ?? ConfigDirectory.tokenFile(environment: environment).map(TokenSource.defaultFile)
        var tokenSource = explicitToken ?? implicitToken
        var operands: [String] = []
        // The first problem, reported once the command is known, so the error can point at that command's usage;
        // `unknownOption` when it is an unknown option (it may get a hint then).
        var problem: UsageError?
        var unknownOption: String?
        while let token = scanner.next() {
            do throws(UsageError) {
                switch token {
                case .operand(let word):
                    operands.append(word)
                case .option(let name, let inline):
                    switch name {
                    case "server":
                        serverText = try scanner.value(of: name, inline: inline)
                        serverFromOption = true
                    case "token-file": tokenSource = .file(try scanner.value(of: name, inline: inline))
                    case "json":
                        try ArgumentScanner.noValue(name, inline)
                        json = true
                    case "expect":
                        expect = try Self.revision(try scanner.value(of: name, inline: inline), option: name)
                    case "timeout":
                        let text = try scanner.value(of: name, inline: inline)
                        guard let seconds = Int(text), (0...86_400).contains(seconds) else {
                            throw UsageError("--timeout takes whole seconds from 0 (no limit) to 86400, not \"\(text)\"")
                        }
                        timeout = seconds == 0 ? nil : .seconds(seconds)
                    // As in getopt-based tools, the first of `-h`/`--version` and an error wins.
                    case "h", "help":
                        try ArgumentScanner.noValue(name, inline)
                        if problem == nil {
                            return ShelfCommand(server: defaultServer, json: json, token: nil, action: .help(topic: operands.first))
                        }
                    case "version":
                        try ArgumentScanner.noValue(name, inline)
                        if problem == nil {
                            return ShelfCommand(server: defaultServer, json: json, token: nil, action: .version)
                        }
                    case "expect-item":
                        expectItem = try Self.revision(try scanner.value(of: name, inline: inline), option: name)
                    case "read", "unread", "no-author", "no-url", "no-note", "dry-run":
                        try ArgumentScanner.noValue(name, inline)
                        options.flags.append(name)
                        options.given.append(name)
                    case "title", "author", "url", "note", "tag", "untag", "sort", "limit", "format":
                        try options.take(name, try scanner.value(of: name, inline: inline))
                    default:
                        if problem == nil { unknownOption = ArgumentScanner.spelled(name) }
                        throw UsageError("unknown option \(ArgumentScanner.spelled(name))")
                    }
                }
            } catch {
                problem = problem ?? error
            }
        }
        let command = operands.first.flatMap { ShelfHelp.text(for: $0) != nil ? $0 : nil }
        if let problem {
            // Options may follow the command, so a title word that starts with `-` reads as one.
            let text = ["add": "title", "rename": "title", "note": "note"][command ?? ""]
            let hint = unknownOption != nil ? text.map { " (put -- before a \($0) with a word that starts with -)" } ?? "" : ""
            throw UsageError(problem.message + hint, command: command)
        }
        var server = defaultServer
        if let serverText {
            do {
                server = try HostPort(parsing: serverText)
            } catch {
                let source = serverFromOption ? "--server"
                    : serverFromEnvironment != nil ? "$SHELF_SERVER" : "the config file \(config.path ?? "")'s server"
                throw UsageError("the server address (\(source)) must be HOST:PORT (e.g. 127.0.0.1:7453), not \"\(serverText)\"")
            }
        }
        if tokenSource == implicitToken, implicitToken != nil, !Self.implicitTokenGoes(to: server, config: config) {
            tokenSource = nil
        }
        guard let name = operands.first ?? defaultCommand else { throw UsageError("no command given") }
        do throws(UsageError) {
            let action = try Self.action(name, Array(operands.dropFirst()), options: options)
            let parsed = ShelfCommand(
                server: server, json: json, token: tokenSource, action: action, timeout: timeout, expect: expect,
                expectItem: expectItem)
            if expect != nil, !parsed.isChange {
                throw UsageError("--expect goes with a command that changes the list (add, read, unread, toggle, rename, edit, tag, untag, note, rm)")
            }
            if expect != nil, parsed.ids.count > 1 {
                throw UsageError("--expect goes with one ID: each change moves the list's revision, so only the first could be made")
            }
            if expectItem != nil, !parsed.targetsOneItem {
                throw UsageError("--expect-item goes with a change to one item (read, unread, toggle or rm with one ID; rename, edit, tag, untag, note)")
            }
            return parsed
        } catch {
            throw UsageError(error.message, command: command)
        }
    }

    /// Whether the token from the config file or the default token file goes to `server`: only to the config's
    /// `server` (the one it is for), or to a loopback address (this machine's own `shelfd`), so that `--server` naming
    /// someone else's server never hands them your token; `--token-file` and `$SHELF_TOKEN` go wherever you say.
    static func implicitTokenGoes(to server: HostPort, config: ShelfConfig) -> Bool {
        if server.isLoopback { return true }
        guard let text = config.server, let configured = try? HostPort(parsing: text) else { return false }
        return configured == server
    }

    /// Where a token comes from.
    public enum TokenSource: Equatable, Sendable {
        /// A file holding the token (read when connecting).
        case file(String)
        /// The token itself (from `SHELF_TOKEN`).
        case value(String)
        /// The default token file: used if it exists, no token if it does not.
        case defaultFile(String)
    }

    static let defaultServer = HostPort(host: "127.0.0.1", port: ProtocolInfo.defaultPort)
}

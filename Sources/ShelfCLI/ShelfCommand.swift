import ShelfCommandLine
import ShelfCore
import ShelfSockets
import ShelfWire

/// A parsed `shelf` command line: global options and one command.
public struct ShelfCommand: Equatable, Sendable {
    /// What to do.
    public enum Action: Equatable, Sendable {
        case add(title: String)
        case list(ListFilter)
        case setRead(id: String, isRead: Bool)
        case toggle(id: String)
        case rename(id: String, title: String)
        case remove(id: String)
        case show(id: String)
        case info
        case ping
        case watch
        /// The full-screen live view (`shelf ui`; `shelf` alone on a terminal).
        case ui
        case help(topic: String?)
        case version
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

    /// Whether the command changes the list (and so may take `--expect`).
    public var isChange: Bool {
        switch action {
        case .add, .setRead, .toggle, .rename, .remove: true
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
        var tokenSource = environment["SHELF_TOKEN"].flatMap { $0.isEmpty ? nil : TokenSource.value($0) }
            ?? config.tokenFile.map(TokenSource.file)
            ?? ConfigDirectory.tokenFile(environment: environment).map(TokenSource.defaultFile)
        var flags: [String] = []
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
                        let text = try scanner.value(of: name, inline: inline)
                        // Digits only: `+3`, ` 3` and `3.0` are not revisions (Revision(text) would take `+3`).
                        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let revision = Revision(text) else {
                            throw UsageError("--expect takes a revision (a whole number, as `shelf info` shows), not \"\(text)\"")
                        }
                        expect = revision
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
                    case "read", "unread":
                        try ArgumentScanner.noValue(name, inline)
                        flags.append(name)
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
            let hint = unknownOption != nil && (command == "add" || command == "rename")
                ? " (put -- before a title with a word that starts with -)" : ""
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
        guard let name = operands.first ?? defaultCommand else { throw UsageError("no command given") }
        do throws(UsageError) {
            let action = try Self.action(name, Array(operands.dropFirst()), flags: flags)
            let parsed = ShelfCommand(server: server, json: json, token: tokenSource, action: action, timeout: timeout, expect: expect)
            if expect != nil, !parsed.isChange {
                throw UsageError("--expect goes with a command that changes the list (add, read, unread, toggle, rename, rm)")
            }
            return parsed
        } catch {
            throw UsageError(error.message, command: command)
        }
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

    private static func action(_ name: String, _ operands: [String], flags: [String]) throws(UsageError) -> Action {
        if name != "list", name != "ls", let flag = flags.first {
            throw UsageError("--\(flag) goes with the list command only")
        }
        switch name {
        case "add":
            guard !operands.isEmpty else { throw UsageError("add needs a TITLE") }
            return .add(title: operands.joined(separator: " "))
        case "list", "ls":
            try expect(operands, count: 0, name)
            if flags.count > 1 { throw UsageError("use one of --read and --unread") }
            return .list(flags.first.flatMap(ListFilter.init(rawValue:)) ?? .all)
        case "read", "unread":
            try expect(operands, count: 1, name)
            return .setRead(id: operands[0], isRead: name == "read")
        case "toggle":
            try expect(operands, count: 1, name)
            return .toggle(id: operands[0])
        case "rename":
            guard operands.count >= 2 else { throw UsageError("rename needs an ID and a TITLE") }
            return .rename(id: operands[0], title: operands.dropFirst().joined(separator: " "))
        case "rm", "remove":
            try expect(operands, count: 1, name)
            return .remove(id: operands[0])
        case "show", "get":
            try expect(operands, count: 1, name)
            return .show(id: operands[0])
        case "info":
            try expect(operands, count: 0, name)
            return .info
        case "ping":
            try expect(operands, count: 0, name)
            return .ping
        case "watch":
            try expect(operands, count: 0, name)
            return .watch
        case "ui":
            try expect(operands, count: 0, name)
            return .ui
        case "help":
            if operands.count > 1 { throw UsageError("help takes at most one COMMAND") }
            return .help(topic: operands.first)
        case "version":
            try expect(operands, count: 0, name)
            return .version
        default:
            throw UsageError("unknown command \"\(name)\"")
        }
    }

    private static func expect(_ operands: [String], count: Int, _ name: String) throws(UsageError) {
        guard operands.count == count else {
            throw UsageError(count == 0 ? "\(name) takes no arguments" : "\(name) needs exactly one ID")
        }
    }
}

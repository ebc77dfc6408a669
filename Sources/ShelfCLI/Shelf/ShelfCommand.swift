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
        case info
        case ping
        case watch
        case help(topic: String?)
        case version
    }

    /// The server to talk to: `--server`, else `$SHELF_SERVER`, else `127.0.0.1:7453`.
    public var server: HostPort
    /// `--json`: print each result as one JSON line instead of text.
    public var json: Bool
    /// Where the token for `auth` comes from: `--token-file PATH`, else `$SHELF_TOKEN`, else none.
    public var token: TokenSource?
    /// The command.
    public var action: Action

    /// Parses `arguments` (without the program name). Options may come before or after the command; `--` ends them.
    /// - Throws: `UsageError` for an unknown command or option, a missing or extra operand, a bad address.
    public static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> ShelfCommand {
        var scanner = ArgumentScanner(arguments)
        var serverText = environment["SHELF_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
        var json = false
        var tokenSource = environment["SHELF_TOKEN"].flatMap { $0.isEmpty ? nil : TokenSource.value($0) }
        var flags: [String] = []
        var operands: [String] = []
        while let token = scanner.next() {
            switch token {
            case .operand(let word):
                operands.append(word)
            case .option(let name, let inline):
                switch name {
                case "server": serverText = try scanner.value(of: name, inline: inline)
                case "token-file": tokenSource = .file(try scanner.value(of: name, inline: inline))
                case "json":
                    try ArgumentScanner.noValue(name, inline)
                    json = true
                case "h", "help":
                    try ArgumentScanner.noValue(name, inline)
                    return ShelfCommand(server: defaultServer, json: json, token: nil, action: .help(topic: operands.first))
                case "version":
                    try ArgumentScanner.noValue(name, inline)
                    return ShelfCommand(server: defaultServer, json: json, token: nil, action: .version)
                case "read", "unread":
                    try ArgumentScanner.noValue(name, inline)
                    flags.append(name)
                default: throw UsageError("unknown option \(ArgumentScanner.spelled(name))")
                }
            }
        }
        var server = defaultServer
        if let serverText {
            do {
                server = try HostPort(parsing: serverText)
            } catch {
                throw UsageError("the server address must be HOST:PORT (e.g. 127.0.0.1:7453), not \"\(serverText)\"")
            }
        }
        guard let name = operands.first else { throw UsageError("no command given") }
        let action = try Self.action(name, Array(operands.dropFirst()), flags: flags)
        return ShelfCommand(server: server, json: json, token: tokenSource, action: action)
    }

    /// Where a token comes from.
    public enum TokenSource: Equatable, Sendable {
        /// A file holding the token (read when connecting).
        case file(String)
        /// The token itself (from `SHELF_TOKEN`).
        case value(String)
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
        case "info":
            try expect(operands, count: 0, name)
            return .info
        case "ping":
            try expect(operands, count: 0, name)
            return .ping
        case "watch":
            try expect(operands, count: 0, name)
            return .watch
        case "help":
            if operands.count > 1 { throw UsageError("help takes at most one COMMAND") }
            return .help(topic: operands.first)
        case "version":
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

import ShelfCommandLine
import ShelfCore
import ShelfServer
import ShelfSockets
import ShelfWire

/// A parsed `shelfd` command line.
public enum ShelfdCommand: Equatable {
    /// `-h`/`--help`: print the usage.
    case help
    /// `--version`.
    case version
    /// Run the server.
    case serve(ShelfdOptions)

    /// `shelfd`'s usage text (README, "Flags").
    public static let usage = """
        usage: shelfd [--listen HOST:PORT] [--store file:PATH|memory] [--token-file PATH]
                      [--insecure-no-auth] [--auth-timeout SECONDS] [--max-unauthenticated N]
                      [--max-connections N] [--idle-timeout SECONDS]
                      [--max-line-bytes N] [--max-outbound-bytes N] [--max-memory-bytes N]
                      [--history N] [--history-bytes N] [--verbose] [--help] [--version]

        Serves one shared reading list over TCP (newline-delimited JSON-RPC 2.0).

          --listen HOST:PORT      where to listen (default 127.0.0.1:\(ProtocolInfo.defaultPort); port 0 picks one)
          --store file:PATH       keep the list in PATH and PATH.journal (default:
                                  $SHELF_DATA_DIR/reading-list.json, else
                                  $XDG_DATA_HOME/shelf/reading-list.json, else
                                  ~/.local/share/shelf/reading-list.json)
          --store memory          keep the list in memory only
          --token-file PATH       require every connection to `auth` with the token in PATH (default:
                                  $XDG_CONFIG_HOME/shelf/token, else ~/.config/shelf/token, if it exists;
                                  it must not be readable by others)
          --insecure-no-auth      no token, not even the default one; allows a non-loopback --listen
          --auth-timeout SECONDS  with a token: close connections not authenticated this long after
                                  connecting (default \(Int(ServerConfiguration().authTimeout.components.seconds)))
          --max-unauthenticated N with a token: connections waiting to authenticate at once; one more
                                  closes the one that waited longest (default \(ServerConfiguration().maxUnauthenticated))
          --max-connections N     connections served at once (default \(ServerConfiguration().maxConnections))
          --idle-timeout SECONDS  close connections that send nothing for this long (default: never;
                                  watching connections are exempt)
          --max-line-bytes N      longest request line accepted, in bytes (default \(LineFramer.defaultMaxLineBytes))
          --max-outbound-bytes N  reply and notification bytes queued for one connection: a watcher past
                                  it is cut off as a slow consumer, a client that does not read its
                                  replies is not read from until it catches up
                                  (default \(ServerConfiguration().maxOutboundBytes))
          --max-memory-bytes N    bytes held for all connections together (unfinished lines, queued
                                  replies and notifications); a connection asking for more is closed
                                  (default \(ServerConfiguration.defaultMaxMemoryBytes))
          --history N             recent changes kept for `watch` to resume from (default \(ReadingList.defaultHistoryLimit))
          --history-bytes N       bytes those changes may take at most (default \(ChangeHistory.defaultByteLimit))
          --verbose               log every connection as it opens and closes
          -h, --help              show this help
          --version               show the version

        When ready it prints "shelfd listening on HOST:PORT" on stdout; logs go to stderr.
        SIGINT or SIGTERM stops it cleanly.

        exit status: 0 stopped by SIGINT or SIGTERM, 1 cannot start (port in use, store refused),
                     64 bad command line
        """

    /// Parses `arguments` (without the program name).
    /// - Parameter fileExists: whether a path exists (the default token file is used only if it does).
    /// - Throws: `UsageError` for an unknown option, a missing or bad value, a stray operand, or a non-loopback
    ///   `--listen` with neither a token nor `--insecure-no-auth`.
    public static func parse(
        _ arguments: [String], environment: [String: String],
        fileExists: ((String) -> Bool)? = nil
    ) throws(UsageError) -> ShelfdCommand {
        let fileExists = fileExists ?? { !TokenFile.isMissing($0) }
        var scanner = ArgumentScanner(arguments)
        var configuration = ServerConfiguration()
        var store: StoreChoice?
        var tokenFile: String?
        var insecure = false
        while let token = scanner.next() {
            switch token {
            case .operand(let word):
                throw UsageError("unexpected argument \"\(word)\"")
            case .option(let name, let inline):
                switch name {
                case "h", "help":
                    try ArgumentScanner.noValue(name, inline)
                    return .help
                case "version":
                    try ArgumentScanner.noValue(name, inline)
                    return .version
                case "listen":
                    let text = try scanner.value(of: name, inline: inline)
                    do {
                        configuration.listen = try HostPort(parsing: text)
                    } catch {
                        throw UsageError("--listen takes HOST:PORT (e.g. 127.0.0.1:7453 or [::1]:7453), not \"\(text)\"")
                    }
                case "store":
                    store = try StoreChoice(parsing: try scanner.value(of: name, inline: inline))
                case "max-line-bytes":
                    configuration.maxLineBytes = try number(name, try scanner.value(of: name, inline: inline), in: 64...(1 << 30))
                case "max-outbound-bytes":
                    configuration.maxOutboundBytes = try number(
                        name, try scanner.value(of: name, inline: inline), in: 4096...(1 << 34))
                case "max-memory-bytes":
                    configuration.maxMemoryBytes = try number(
                        name, try scanner.value(of: name, inline: inline), in: (1 << 20)...(1 << 40))
                case "history-bytes":
                    configuration.historyBytes = try number(name, try scanner.value(of: name, inline: inline), in: 0...(1 << 40))
                case "history":
                    configuration.historyLimit = try number(name, try scanner.value(of: name, inline: inline), in: 0...10_000_000)
                case "max-connections":
                    configuration.maxConnections = try number(name, try scanner.value(of: name, inline: inline), in: 1...1_000_000)
                case "idle-timeout":
                    let seconds = try number(name, try scanner.value(of: name, inline: inline), in: 1...31_536_000)
                    configuration.idleTimeout = .seconds(seconds)
                case "token-file":
                    tokenFile = try scanner.value(of: name, inline: inline)
                case "auth-timeout":
                    let seconds = try number(name, try scanner.value(of: name, inline: inline), in: 1...3600)
                    configuration.authTimeout = .seconds(seconds)
                case "max-unauthenticated":
                    configuration.maxUnauthenticated = try number(name, try scanner.value(of: name, inline: inline), in: 1...65_536)
                case "insecure-no-auth":
                    try ArgumentScanner.noValue(name, inline)
                    insecure = true
                case "verbose":
                    try ArgumentScanner.noValue(name, inline)
                    configuration.logsConnections = true
                default:
                    throw UsageError("unknown option \(ArgumentScanner.spelled(name))")
                }
            }
        }
        var tokenFileIsDefault = false
        if tokenFile == nil, !insecure, let path = ConfigDirectory.tokenFile(environment: environment), fileExists(path) {
            tokenFile = path
            tokenFileIsDefault = true
        }
        if !configuration.listen.isLoopback, tokenFile == nil, !insecure {
            throw UsageError("""
                refusing to listen on \(configuration.listen) without authentication: anyone who can reach it could \
                read and change the list. Pass --token-file PATH to require a shared token (or put one in \
                \(ConfigDirectory.tokenFile(environment: environment) ?? "~/.config/shelf/token")), or --insecure-no-auth \
                to accept anyone (only on a network you trust). The protocol is not encrypted either: see the README \
                on tunnelling over SSH.
                """)
        }
        if store == nil {
            guard let path = StoreLocation.defaultPath(environment: environment) else {
                throw UsageError("no data directory: set SHELF_DATA_DIR or HOME, or pass --store")
            }
            store = .file(path: path)
        }
        return .serve(ShelfdOptions(
            configuration: configuration, store: store ?? .memory, tokenFile: tokenFile, tokenFileIsDefault: tokenFileIsDefault))
    }

    private static func number(_ option: String, _ text: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("--\(option) takes a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return value
    }
}

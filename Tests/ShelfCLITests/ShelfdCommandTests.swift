import Foundation
import ShelfServer
import ShelfSockets
import Testing

@testable import ShelfCommandLine
@testable import ShelfdCLI

@Suite struct ShelfdCommandTests {
    private static let home = ["HOME": "/home/ada"]
    private static let homeStore = StoreChoice.file(path: "/home/ada/.local/share/shelf/reading-list.json")

    /// What `.serve` should carry (`ShelfdCommand` itself is not `Sendable`, so tables hold this).
    struct Serve: Sendable {
        var listen = HostPort(host: "127.0.0.1", port: 7453)
        var maxLineBytes = ServerConfiguration().maxLineBytes
        var store = ShelfdCommandTests.homeStore

        var command: ShelfdCommand {
            .serve(ShelfdOptions(configuration: ServerConfiguration(listen: listen, maxLineBytes: maxLineBytes), store: store))
        }
    }

    private static func serve(
        listen: HostPort = Serve().listen, maxLineBytes: Int = Serve().maxLineBytes, store: StoreChoice = homeStore
    ) -> Serve {
        Serve(listen: listen, maxLineBytes: maxLineBytes, store: store)
    }

    private static func parse(_ arguments: [String], _ environment: [String: String] = home) throws(UsageError) -> ShelfdCommand {
        try ShelfdCommand.parse(arguments, environment: environment)
    }

    @Test("no arguments serve the default address, line limit and store")
    func defaults() throws {
        #expect(try Self.parse([]) == Self.serve().command)
    }

    @Test(
        "the default store follows SHELF_DATA_DIR, then XDG_DATA_HOME, then HOME",
        arguments: [
            (["SHELF_DATA_DIR": "/data", "XDG_DATA_HOME": "/xdg", "HOME": "/home/ada"], "/data/reading-list.json"),
            (["SHELF_DATA_DIR": "", "XDG_DATA_HOME": "/xdg", "HOME": "/home/ada"], "/xdg/shelf/reading-list.json"),
            (["HOME": "/home/ada/"], "/home/ada/.local/share/shelf/reading-list.json"),
        ])
    func defaultStore(environment: [String: String], path: String) throws {
        #expect(try Self.parse([], environment) == Self.serve(store: .file(path: path)).command)
    }

    @Test("without --store and with no data directory in the environment it is a usage error")
    func noDataDirectory() throws {
        #expect(throws: UsageError("no data directory: set SHELF_DATA_DIR or HOME, or pass --store")) {
            try Self.parse([], [:])
        }
        #expect(try Self.parse(["--store", "memory"], [:]) == Self.serve(store: .memory).command)
    }

    @Test(
        "options take their value as the next word or after =",
        arguments: [
            (["--listen", "[::1]:9000"], serve(listen: HostPort(host: "::1", port: 9000))),
            (["--listen=127.0.0.2:9000"], serve(listen: HostPort(host: "127.0.0.2", port: 9000))),
            (["--listen", "[::1]:7453"], serve(listen: HostPort(host: "::1", port: 7453))),
            (["--listen", "localhost:0"], serve(listen: HostPort(host: "localhost", port: 0))),
            (["--store", "memory"], serve(store: .memory)),
            (["--store=memory"], serve(store: .memory)),
            (["--store", "file:/tmp/list.json"], serve(store: .file(path: "/tmp/list.json"))),
            (["--store=file:/tmp/a=b.json"], serve(store: .file(path: "/tmp/a=b.json"))),
            (["--max-line-bytes", "4096"], serve(maxLineBytes: 4096)),
            (["--max-line-bytes=4096"], serve(maxLineBytes: 4096)),
            (["--max-line-bytes", "4096", "--max-line-bytes", "8192"], serve(maxLineBytes: 8192)),
            (
                ["--store", "memory", "--listen", "127.0.0.1:1", "--max-line-bytes", "64"],
                serve(listen: HostPort(host: "127.0.0.1", port: 1), maxLineBytes: 64, store: .memory)
            ),
            (["--listen", "127.0.0.1:1", "--listen", "127.0.0.1:2"], serve(listen: HostPort(host: "127.0.0.1", port: 2))),
        ] as [([String], Serve)])
    func optionValues(arguments: [String], expected: Serve) throws {
        #expect(try Self.parse(arguments) == expected.command)
    }

    @Test(
        "-h and --help ask for help and --version for the version, wherever they come",
        arguments: [
            (["-h"], "help"), (["--help"], "help"), (["--store", "memory", "--help"], "help"),
            (["--help", "--no-such-option"], "help"), (["--version"], "version"), (["--listen", "127.0.0.1:1", "--version"], "version"),
        ])
    func helpAndVersion(arguments: [String], expected: String) throws {
        #expect(try Self.parse(arguments, [:]) == (expected == "help" ? .help : .version))
    }

    @Test(
        "a wrong command line is a usage error that says what is wrong",
        arguments: [
            (["--lisen", "127.0.0.1:0"], "unknown option --lisen"),
            (["-x"], "unknown option -x"),
            (["serve"], "unexpected argument \"serve\""),
            (["--", "--help"], "unexpected argument \"--help\""),
            (["--listen"], "--listen needs a value"),
            (["--store"], "--store needs a value"),
            (["--max-line-bytes"], "--max-line-bytes needs a value"),
            (["--history"], "--history needs a value"),
            (["--store", "sqlite:/x"], "--store takes file:PATH or memory, not \"sqlite:/x\""),
            (["--store", "file:"], "--store takes file:PATH or memory, not \"file:\""),
            (["--store="], "--store takes file:PATH or memory, not \"\""),
            (["--store", "Memory"], "--store takes file:PATH or memory, not \"Memory\""),
        ])
    func usageErrors(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try Self.parse(arguments) }
    }

    /// Found by a hostile-input run: with a link at `list.json` to a file not created yet, `file:DIR/list.json/` was
    /// a second store beside `file:DIR/list.json`, with its own lock, and its compaction replaced the link.
    @Test("--store file:PATH refuses a path that can only name a directory", arguments: ["/d/list.json/", "/d/list.json//", "/d/list.json/.", "/d/..", "/"])
    func storePathOfADirectory(path: String) {
        #expect(throws: UsageError("--store file:PATH needs the path of a file, not of a directory (\"\(path)\")")) {
            try Self.parse(["--store", "file:" + path])
        }
    }

    @Test(
        "--listen refuses anything but HOST:PORT",
        arguments: ["localhost", "127.0.0.1:", ":7453", "127.0.0.1:70000", "127.0.0.1:-1", "::1:7453", "[::1]", "127.0.0.1:12a", "", "127.0.0.1 :1"])
    func badListenAddress(text: String) {
        #expect(throws: UsageError("--listen takes HOST:PORT (e.g. 127.0.0.1:7453 or [::1]:7453), not \"\(text)\"")) {
            try Self.parse(["--listen", text])
        }
    }

    @Test(
        "the numeric options accept whole numbers within their bounds, either spelling",
        arguments: [
            (["--max-line-bytes", "64"], \ServerConfiguration.maxLineBytes, 64),
            (["--max-line-bytes=1073741824"], \.maxLineBytes, 1 << 30),
            (["--max-outbound-bytes", "4096"], \.maxOutboundBytes, 4096),
            (["--max-outbound-bytes=17179869184"], \.maxOutboundBytes, 1 << 34),
            (["--history", "0"], \.historyLimit, 0),
            (["--history=10000000"], \.historyLimit, 10_000_000),
            (["--history-bytes", "0"], \.historyBytes, 0),
            (["--history-bytes=1099511627776"], \.historyBytes, 1 << 40),
            (["--max-memory-bytes", "1048576"], \.maxMemoryBytes, 1 << 20),
            (["--max-memory-bytes=1099511627776"], \.maxMemoryBytes, 1 << 40),
        ] as [([String], WritableKeyPath<ServerConfiguration, Int> & Sendable, Int)])
    func numbersInRange(arguments: [String], setting: WritableKeyPath<ServerConfiguration, Int> & Sendable, value: Int) throws {
        var configuration = ServerConfiguration()
        configuration[keyPath: setting] = value
        #expect(try Self.parse(arguments) == .serve(ShelfdOptions(configuration: configuration, store: Self.homeStore)))
    }

    @Test("the numeric options default to 1 MiB per line, 8 MiB queued per connection, 256 MiB for all connections, 10000 changes and 64 MiB of history, 1024 connections and no idle timeout")
    func numberDefaults() throws {
        guard case .serve(let options) = try Self.parse([]) else {
            Issue.record("no arguments did not parse to serve")
            return
        }
        let configuration = options.configuration
        #expect(configuration.maxLineBytes == 1 << 20)
        #expect(configuration.maxOutboundBytes == 8 << 20)
        #expect(configuration.historyLimit == 10_000)
        #expect(configuration.historyBytes == 64 << 20)
        #expect(configuration.maxMemoryBytes == 256 << 20)
        #expect(configuration.maxConnections == 1024)
        #expect(configuration.idleTimeout == nil)
    }

    @Test(
        "the numeric options refuse numbers out of range and non-numbers",
        arguments: [
            ("max-line-bytes", "64 to 1073741824", ["63", "0", "-1", "1073741825", "99999999999999999999", "1k", "", " 64", "0x40"]),
            ("max-outbound-bytes", "4096 to 17179869184", ["4095", "17179869185", "8M", ""]),
            ("history", "0 to 10000000", ["-1", "10000001", "1e3", "ten"]),
            ("history-bytes", "0 to 1099511627776", ["-1", "1099511627777", "64M"]),
            ("max-memory-bytes", "1048576 to 1099511627776", ["1048575", "1099511627777", "256M", ""]),
        ])
    func numbersOutOfRange(option: String, range: String, texts: [String]) {
        for text in texts {
            #expect(throws: UsageError("--\(option) takes a whole number from \(range), not \"\(text)\"")) {
                try Self.parse(["--\(option)", text])
            }
        }
    }

    @Test("a non-loopback --listen without a token is refused, naming both ways out")
    func protectedMode() throws {
        #expect(throws: UsageError.self) { try ShelfdCommand.parse(["--listen", "0.0.0.0:7453"], environment: ["HOME": "/h"]) }
        do {
            _ = try ShelfdCommand.parse(["--listen", "192.168.1.5:7453"], environment: ["HOME": "/h"])
            Issue.record("expected a usage error")
        } catch {
            #expect(error.message.contains("--token-file PATH"))
            #expect(error.message.contains("--insecure-no-auth"))
        }
        let insecure = try ShelfdCommand.parse(["--listen", "0.0.0.0:7453", "--insecure-no-auth"], environment: ["HOME": "/h"])
        guard case .serve(let options) = insecure else { throw UsageError("not serve") }
        #expect(options.configuration.listen == HostPort(host: "0.0.0.0", port: 7453))
        let withToken = try ShelfdCommand.parse(["--listen", "0.0.0.0:7453", "--token-file", "/t"], environment: ["HOME": "/h"])
        guard case .serve(let tokenOptions) = withToken else { throw UsageError("not serve") }
        #expect(tokenOptions.tokenFile == "/t")
    }

    @Test("--max-connections and --idle-timeout set the limits")
    func limits() throws {
        let parsed = try ShelfdCommand.parse(["--max-connections", "7", "--idle-timeout=30"], environment: ["HOME": "/h"])
        guard case .serve(let options) = parsed else { throw UsageError("not serve") }
        #expect(options.configuration.maxConnections == 7)
        #expect(options.configuration.idleTimeout == .seconds(30))
        #expect(throws: UsageError.self) { try ShelfdCommand.parse(["--max-connections", "0"], environment: ["HOME": "/h"]) }
        #expect(throws: UsageError.self) { try ShelfdCommand.parse(["--idle-timeout", "0"], environment: ["HOME": "/h"]) }
    }

    @Test("--verbose turns on a log line per connection opened and closed; off by default; it takes no value")
    func verbose() throws {
        guard case .serve(let quiet) = try ShelfdCommand.parse([], environment: ["HOME": "/h"]) else { throw UsageError("not serve") }
        #expect(!quiet.configuration.logsConnections)
        guard case .serve(let loud) = try ShelfdCommand.parse(["--verbose"], environment: ["HOME": "/h"]) else {
            throw UsageError("not serve")
        }
        #expect(loud.configuration.logsConnections)
        #expect(throws: UsageError("--verbose takes no value")) { try ShelfdCommand.parse(["--verbose=yes"], environment: ["HOME": "/h"]) }
    }

    @Test("the default token file ($XDG_CONFIG_HOME/shelf/token, else ~/.config/shelf/token) is used when it exists, unless --insecure-no-auth")
    func defaultTokenFile() throws {
        let exists: (String) -> Bool = { $0 == "/x/shelf/token" || $0 == "/home/ada/.config/shelf/token" }
        guard case .serve(let xdg) = try ShelfdCommand.parse([], environment: ["HOME": "/home/ada", "XDG_CONFIG_HOME": "/x"], fileExists: exists)
        else { throw UsageError("not serve") }
        #expect(xdg.tokenFile == "/x/shelf/token" && xdg.tokenFileIsDefault)
        guard case .serve(let home) = try ShelfdCommand.parse([], environment: Self.home, fileExists: exists) else { throw UsageError("not serve") }
        #expect(home.tokenFile == "/home/ada/.config/shelf/token" && home.tokenFileIsDefault)
        // With it in place, a non-loopback --listen needs no flag.
        guard case .serve(let lan) = try ShelfdCommand.parse(["--listen", "0.0.0.0:7453"], environment: Self.home, fileExists: exists)
        else { throw UsageError("not serve") }
        #expect(lan.tokenFile == "/home/ada/.config/shelf/token")
        guard case .serve(let flag) = try ShelfdCommand.parse(["--token-file", "/t"], environment: Self.home, fileExists: exists)
        else { throw UsageError("not serve") }
        #expect(flag.tokenFile == "/t" && !flag.tokenFileIsDefault)
        guard case .serve(let insecure) = try ShelfdCommand.parse(["--insecure-no-auth"], environment: Self.home, fileExists: exists)
        else { throw UsageError("not serve") }
        #expect(insecure.tokenFile == nil)
        guard case .serve(let none) = try ShelfdCommand.parse([], environment: Self.home, fileExists: { _ in false })
        else { throw UsageError("not serve") }
        #expect(none.tokenFile == nil)
    }

    @Test("--auth-timeout and --max-unauthenticated set the authentication limits; defaults 10 s and 64")
    func authLimits() throws {
        guard case .serve(let defaults) = try ShelfdCommand.parse([], environment: Self.home, fileExists: { _ in false })
        else { throw UsageError("not serve") }
        #expect(defaults.configuration.authTimeout == .seconds(10))
        guard case .serve(let set) = try ShelfdCommand.parse(
            ["--auth-timeout", "3", "--max-unauthenticated=16"], environment: Self.home, fileExists: { _ in false })
        else { throw UsageError("not serve") }
        #expect(set.configuration.authTimeout == .seconds(3))
        #expect(set.configuration.maxUnauthenticated == 16)
        #expect(defaults.configuration.maxUnauthenticated == 64)
        #expect(throws: UsageError.self) { try ShelfdCommand.parse(["--auth-timeout", "0"], environment: Self.home) }
        #expect(throws: UsageError.self) { try ShelfdCommand.parse(["--max-unauthenticated", "0"], environment: Self.home) }
    }

    @Test("a token under 16 bytes is refused beyond loopback, with the recipe for a good one; on loopback it is taken")
    func shortToken() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "shelfd-token-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/token"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("short\n".utf8), attributes: [.posixPermissions: 0o600]))
        let lan = HostPort(host: "0.0.0.0", port: 7453)
        guard case .failure(let failure) = ShelfdMain.token(from: path, listen: lan) else {
            Issue.record("a 5-byte token was taken for a LAN listen")
            return
        }
        #expect(failure.description.hasPrefix("refusing to listen on 0.0.0.0:7453 with a 5-byte token (\(path)): beyond loopback a token must be at least 16 bytes."))
        #expect(failure.description.contains("umask 077"))
        #expect(try ShelfdMain.token(from: path, listen: HostPort(host: "127.0.0.1", port: 7453)).get() == "short")
    }
}

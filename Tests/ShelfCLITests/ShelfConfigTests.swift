import Testing

@testable import ShelfCLI
@testable import ShelfCommandLine
import ShelfSockets

/// `shelf`'s config file and where each setting comes from (README, "Sharing on a LAN"): option, environment,
/// config file, default.
@Suite struct ShelfConfigTests {
    @Test("key = value lines, comments and blank lines skipped, ~/ expanded in token-file")
    func parses() throws {
        let config = try ShelfConfig.parse(
            "# home\n\n  server = 192.0.2.10:7453  \ntoken-file = ~/.shelf-token\n", path: "/c", home: "/home/ada")
        #expect(config == ShelfConfig(server: "192.0.2.10:7453", tokenFile: "/home/ada/.shelf-token", path: "/c"))
    }

    @Test("a file with CRLF line ends is read line by line")
    func crlf() throws {
        let config = try ShelfConfig.parse("server = 192.0.2.10:7453\r\ntoken-file = /t\r\n", path: "/c", home: nil)
        #expect(config == ShelfConfig(server: "192.0.2.10:7453", tokenFile: "/t", path: "/c"))
    }

    @Test("an unknown key, a line without =, and an empty value are errors naming the file and line")
    func refuses() {
        #expect(throws: UsageError("/c line 2: unknown setting \"sever\" (known: server, token-file)")) {
            try ShelfConfig.parse("server = a:1\nsever = b:2\n", path: "/c", home: nil)
        }
        #expect(throws: UsageError("/c line 1: expected key = value, not \"server\"")) {
            try ShelfConfig.parse("server\n", path: "/c", home: nil)
        }
        #expect(throws: UsageError("/c line 1: server has no value")) { try ShelfConfig.parse("server =\n", path: "/c", home: nil) }
    }

    @Test("the server: --server, else $SHELF_SERVER, else the config file, else 127.0.0.1:7453")
    func serverPrecedence() throws {
        let config = ShelfConfig(server: "192.0.2.10:7000", path: "/c")
        #expect(try ShelfCommand.parse(["list"], environment: [:]).server == HostPort(host: "127.0.0.1", port: 7453))
        #expect(try ShelfCommand.parse(["list"], environment: [:], config: config).server == HostPort(host: "192.0.2.10", port: 7000))
        #expect(try ShelfCommand.parse(["list"], environment: ["SHELF_SERVER": "192.0.2.11:7001"], config: config).server
            == HostPort(host: "192.0.2.11", port: 7001))
        #expect(try ShelfCommand.parse(["--server", "192.0.2.12:7002", "list"], environment: ["SHELF_SERVER": "192.0.2.11:7001"], config: config).server
            == HostPort(host: "192.0.2.12", port: 7002))
        #expect(throws: UsageError("the server address (the config file /c's server) must be HOST:PORT (e.g. 127.0.0.1:7453), not \"nope\"")) {
            try ShelfCommand.parse(["list"], environment: [:], config: ShelfConfig(server: "nope", path: "/c"))
        }
    }

    @Test("the token: --token-file, else $SHELF_TOKEN, else the config's token-file, else the default token file")
    func tokenPrecedence() throws {
        let environment = ["HOME": "/home/ada"]
        let config = ShelfConfig(tokenFile: "/etc/shelf-token", path: "/c")
        #expect(try ShelfCommand.parse(["list"], environment: environment).token == .defaultFile("/home/ada/.config/shelf/token"))
        #expect(try ShelfCommand.parse(["list"], environment: ["HOME": "/home/ada", "XDG_CONFIG_HOME": "/x"]).token == .defaultFile("/x/shelf/token"))
        #expect(try ShelfCommand.parse(["list"], environment: environment, config: config).token == .file("/etc/shelf-token"))
        #expect(try ShelfCommand.parse(["list"], environment: ["HOME": "/h", "SHELF_TOKEN": "t"], config: config).token == .value("t"))
        #expect(try ShelfCommand.parse(["--token-file", "/mine", "list"], environment: ["SHELF_TOKEN": "t"], config: config).token == .file("/mine"))
        #expect(try ShelfCommand.parse(["list"], environment: [:]).token == nil)
    }

    @Test("the config's token file and the default one go only to the config's server or to loopback, never to another server named by --server or $SHELF_SERVER")
    func implicitTokenStaysHome() throws {
        let config = ShelfConfig(server: "192.0.2.10:7453", tokenFile: "/home/ada/.config/shelf/token", path: "/c")
        let home = ["HOME": "/home/ada"]
        #expect(try ShelfCommand.parse(["list"], environment: home, config: config).token == .file("/home/ada/.config/shelf/token"))
        #expect(try ShelfCommand.parse(["--server", "192.0.2.66:7453", "list"], environment: home, config: config).token == nil)
        #expect(try ShelfCommand.parse(["list"], environment: ["HOME": "/home/ada", "SHELF_SERVER": "192.0.2.66:7453"], config: config).token == nil)
        #expect(try ShelfCommand.parse(["--server", "127.0.0.1:7600", "list"], environment: home, config: config).token == .file("/home/ada/.config/shelf/token"))
        #expect(try ShelfCommand.parse(["--server", "192.0.2.66:7453", "list"], environment: home).token == nil, "the default token file neither")
        // Given explicitly, a token goes where it is told.
        #expect(try ShelfCommand.parse(["--server", "192.0.2.66:7453", "--token-file", "/t", "list"], environment: home, config: config).token == .file("/t"))
        #expect(try ShelfCommand.parse(["--server", "192.0.2.66:7453", "list"], environment: ["SHELF_TOKEN": "s"], config: config).token == .value("s"))
    }
}

import Foundation
import Testing

/// Writes `text` to `path` with mode 0600, as the README's token recipe (`umask 077`) makes it.
func writePrivateFile(_ path: String, _ text: String, mode: Int = 0o600) throws {
    let url = URL(fileURLWithPath: path)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: mode]) else {
        throw EndToEndFailure(description: "cannot write \(path)")
    }
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
}

/// The owner's set-up (README, "Sharing on a LAN"; protocol/PROTOCOL.md §12): both programs find the token at the
/// default path, `shelf` takes its server from the config file, the precedence is flag, environment, config,
/// default; a token file others can read is refused by `shelfd` and warned about by `shelf`.
@Suite struct TokenSetupTests {
    @Test("with the token at ~/.config/shelf/token, shelfd requires it and shelf uses it, neither given a flag")
    func defaultTokenPath() async throws {
        try await Sandbox.with { sandbox in
            let home = sandbox.directory.appending(path: "home").path
            try writePrivateFile(home + "/.config/shelf/token", "owner-token-0123456789\n")
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                let listed = try await shelfd.shelf("list")
                #expect(listed.status == 0, "\(listed.stderr)")
                #expect(listed.stdout == "0 items, 0 read (revision 0)\n")
                // Someone without it is refused: the server does require it.
                var stranger = sandbox.environment
                stranger["HOME"] = sandbox.directory.appending(path: "stranger").path
                let refused = try await run("shelf", ["--server", shelfd.address, "list"], environment: stranger)
                #expect(refused.status == 1)
            }
        }
    }

    @Test("shelf takes the server and token file from its config file; the environment and flags come before it")
    func configPrecedence() async throws {
        try await Sandbox.with { sandbox in
            let home = sandbox.directory.appending(path: "home").path
            let tokenFile = sandbox.directory.appending(path: "lan-token").path
            try writePrivateFile(tokenFile, "lan-token-0123456789abc\n")
            try await withShelfd(["--store", "memory", "--token-file", tokenFile], environment: sandbox.environment) { shelfd in
                try writePrivateFile(home + "/.config/shelf/config", """
                    # the household's server
                    server = \(shelfd.address)
                    token-file = \(tokenFile)

                    """)
                let fromConfig = try await run("shelf", ["add", "Dune"], environment: sandbox.environment)
                #expect(fromConfig.status == 0, "\(fromConfig.stderr)")
                #expect(fromConfig.stdout.hasPrefix("added "))

                // $SHELF_SERVER comes before the config's server, --server before both.
                var environment = sandbox.environment
                environment["SHELF_SERVER"] = "127.0.0.1:1"
                let fromEnvironment = try await run("shelf", ["list"], environment: environment)
                #expect(fromEnvironment.status == 69, "the environment's (unreachable) server was used")
                let fromFlag = try await run("shelf", ["--server", shelfd.address, "list"], environment: environment)
                #expect(fromFlag.status == 0, "\(fromFlag.stderr)")

                // $SHELF_TOKEN comes before the config's token file.
                environment = sandbox.environment
                environment["SHELF_TOKEN"] = "not-the-token"
                let wrongToken = try await run("shelf", ["list"], environment: environment)
                #expect(wrongToken.stderr == "shelf: the server refused the token in $SHELF_TOKEN\n")
            }
        }
    }

    @Test("a config file with an unknown setting is a usage error naming the file and line")
    func badConfig() async throws {
        try await Sandbox.with { sandbox in
            let config = sandbox.directory.appending(path: "home/.config/shelf/config").path
            try writePrivateFile(config, "server = 127.0.0.1:7453\nsevrer = x\n")
            let outcome = try await run("shelf", ["list"], environment: sandbox.environment)
            #expect(outcome.status == 64)
            #expect(outcome.stderr.hasPrefix("shelf: error: \(config) line 2: unknown setting \"sevrer\" (known: server, token-file)\n"))
            // Help and the version still work.
            let help = try await run("shelf", ["--help"], environment: sandbox.environment)
            #expect(help.status == 0)
            #expect(try await run("shelf", ["version"], environment: sandbox.environment).status == 0)
        }
    }

    @Test("shelfd refuses a token file others can read, giving the chmod to run; shelf warns about one and goes on")
    func exposedTokenFile() async throws {
        try await Sandbox.with { sandbox in
            let tokenFile = sandbox.directory.appending(path: "token").path
            try writePrivateFile(tokenFile, "s3cret-token-0123456789\n", mode: 0o644)
            let refused = try await run("shelfd", ["--store", "memory", "--listen", "127.0.0.1:0", "--token-file", tokenFile], environment: sandbox.environment)
            #expect(refused.status == 1)
            #expect(refused.stderr == "shelfd: refusing to start: the token file \(tokenFile) can be read by others (mode 0644); make it private with: chmod 600 \(tokenFile)\n")

            let privateFile = sandbox.directory.appending(path: "private").path
            try writePrivateFile(privateFile, "s3cret-token-0123456789\n")
            try await withShelfd(["--store", "memory", "--token-file", privateFile], environment: sandbox.environment) { shelfd in
                let warned = try await shelfd.shelf("--token-file", tokenFile, "list")
                #expect(warned.status == 0)
                #expect(warned.stderr == "shelf: warning: the token file \(tokenFile) can be read by others (mode 0644); make it private with: chmod 600 \(tokenFile)\n")
            }
        }
    }
}

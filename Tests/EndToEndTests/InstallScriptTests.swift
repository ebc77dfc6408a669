import Foundation
import Testing

/// scripts/install's copying, on the executables this test run already built (`--build-dir`), and its plan with
/// `--dry-run`: the release build itself is left to the script.
struct InstallScriptTests {
    private static func install(_ arguments: [String], environment: [String: String]) async throws -> ChildProcess.Outcome {
        let script = try RepositoryFiles.root().appending(path: "scripts/install")
        let child = try ChildProcess.launch(script, arguments, environment: environment)
        if let outcome = await child.waitForExit(timeout: .seconds(60)) { return outcome }
        await child.terminate(grace: .seconds(1))
        throw EndToEndFailure(description: "scripts/install \(arguments) did not exit within 60 s")
    }

    /// Checks that `bin` holds copies of the built shelf and shelfd and nothing else.
    private static func expectInstalled(in bin: URL) throws {
        let built = try Executables.directory.get()
        let files = try FileManager.default.contentsOfDirectory(atPath: bin.path).sorted()
        #expect(files == ["shelf", "shelfd"])
        for name in ["shelf", "shelfd"] {
            #expect(FileManager.default.isExecutableFile(atPath: bin.appending(path: name).path))
            #expect(FileManager.default.contentsEqual(atPath: bin.appending(path: name).path, andPath: built.appending(path: name).path))
        }
    }

    @Test("--prefix DIR puts both into DIR/bin, creating it, and says it is not on PATH")
    func prefixNotOnPath() async throws {
        try await Sandbox.with { sandbox in
            let bin = sandbox.directory.appending(path: "opt/bin").path
            let outcome = try await Self.install(
                ["--build-dir", try Executables.directory.get().path, "--prefix", sandbox.directory.appending(path: "opt").path],
                environment: sandbox.environment)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stdout == """
                installed \(bin)/shelf
                installed \(bin)/shelfd
                \(bin) is not on your PATH; add it, e.g. with: export PATH="\(bin):$PATH"

                """)
            try Self.expectInstalled(in: URL(filePath: bin))
        }
    }

    @Test("without --prefix it installs into $PREFIX/bin, else ~/.local/bin, and says when that is on PATH")
    func defaultPrefix() async throws {
        try await Sandbox.with { sandbox in
            let home = sandbox.environment["HOME"] ?? ""
            var environment = sandbox.environment
            environment["PATH"] = "\(home)/.local/bin:" + (environment["PATH"] ?? "")
            let built = try Executables.directory.get().path
            let outcome = try await Self.install(["--build-dir", built], environment: environment)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stdout.hasSuffix("installed \(home)/.local/bin/shelfd\n\(home)/.local/bin is on your PATH: run shelf and shelfd from anywhere\n"))
            try Self.expectInstalled(in: URL(filePath: "\(home)/.local/bin"))

            environment["PREFIX"] = sandbox.directory.appending(path: "usr").path
            let again = try await Self.install(["--build-dir", built], environment: environment)
            #expect(again.status == 0, "\(again.stderr)")
            try Self.expectInstalled(in: sandbox.directory.appending(path: "usr/bin"))
        }
    }

    @Test("--dry-run prints the release build and the copies, and changes nothing")
    func dryRun() async throws {
        try await Sandbox.with { sandbox in
            let prefix = sandbox.directory.appending(path: "dry").path
            let outcome = try await Self.install(["--dry-run", "--prefix", prefix], environment: sandbox.environment)
            let root = try RepositoryFiles.root().path
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let lines = outcome.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "+ swift build -c release --package-path \(root)")
            #expect(lines.dropFirst().first == "+ RELEASE=$(swift build -c release --package-path \(root) --show-bin-path)")
            #expect(lines.contains("+ cp $RELEASE/shelfd \(prefix)/bin/.shelfd.installing"))
            #expect(lines.contains("+ mv -f \(prefix)/bin/.shelfd.installing \(prefix)/bin/shelfd"))
            #expect(lines.contains("would install \(prefix)/bin/shelf"))
            #expect(!FileManager.default.fileExists(atPath: prefix))
        }
    }

    @Test("an unknown argument is a usage error (64) and installs nothing")
    func unknownArgument() async throws {
        try await Sandbox.with { sandbox in
            let outcome = try await Self.install(["--prefx", sandbox.directory.path], environment: sandbox.environment)
            #expect(outcome.status == 64)
            #expect(outcome.stderr == "install: error: unknown argument --prefx (see --help)\n")
        }
    }
}

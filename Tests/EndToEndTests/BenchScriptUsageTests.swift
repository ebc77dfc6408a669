import Foundation
import Testing

/// The usage of scripts/bench and scripts/bench-instructions, as README "Performance" names it: every flag is in
/// `--help`, and a bad value exits 64 before anything is built or run.
struct BenchScriptUsageTests {
    private static func run(_ script: String, _ arguments: [String]) async throws -> ChildProcess.Outcome {
        let path = try RepositoryFiles.root().appending(path: "scripts/\(script)")
        let child = try ChildProcess.launch(path, arguments, environment: ProcessInfo.processInfo.environment)
        if let outcome = await child.waitForExit(timeout: .seconds(60)) { return outcome }
        await child.terminate(grace: .seconds(1))
        throw EndToEndFailure(description: "scripts/\(script) \(arguments) did not exit within 60 s")
    }

    @Test("bench-instructions --help names each flag the README gives it, and exits 0")
    func instructionsHelp() async throws {
        let outcome = try await Self.run("bench-instructions", ["--help"])
        #expect(outcome.status == 0)
        for flag in ["--baseline REV", "--requests N", "--connections C", "--pipeline P", "--store KIND", "--top K", "--keep"] {
            #expect(outcome.stdout.contains(flag), "\(flag) is not in --help")
        }
    }

    @Test("bench-instructions refuses a pipeline depth of 0, an unknown store and an unknown flag with status 64", arguments: [
        ["--pipeline", "0"], ["--store", "disk"], ["--pipelines", "16"],
    ])
    func instructionsBadUsage(_ arguments: [String]) async throws {
        let outcome = try await Self.run("bench-instructions", arguments)
        #expect(outcome.status == 64, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("bench-instructions: error:"))
    }

    @Test("bench --help names --quick, --import and --baseline REV; a baseline that is no revision exits 64")
    func benchUsage() async throws {
        let help = try await Self.run("bench", ["--help"])
        #expect(help.status == 0)
        for flag in ["--quick", "--import", "--baseline REV", "--keep"] {
            #expect(help.stdout.contains(flag), "\(flag) is not in --help")
        }
        let bad = try await Self.run("bench", ["--baseline", "no-such-revision-anywhere"])
        #expect(bad.status == 64, "\(bad.stderr)")
        let both = try await Self.run("bench", ["--baseline", "HEAD", "--import"])
        #expect(both.status == 64, "\(both.stderr)")
    }
}

import Synchronization
import Testing

@testable import ShelfCLI
@testable import ShelfCommandLine

/// How `shelf` reaches the live view: `shelf ui`, or no command on a terminal; refused without one.
@Suite struct LiveViewCommandTests {
    @Test("ui is a command; with no command it is the default only when the caller says so (a terminal)")
    func parsing() throws {
        #expect(try ShelfCommand.parse(["ui"], environment: [:]).action == .ui)
        #expect(try ShelfCommand.parse([], environment: [:], defaultCommand: "ui").action == .ui)
        #expect(try ShelfCommand.parse(["--json"], environment: [:], defaultCommand: "ui").action == .ui)
        #expect(throws: UsageError("no command given")) { try ShelfCommand.parse([], environment: [:]) }
        #expect(throws: UsageError("ui takes no arguments", command: "ui")) { try ShelfCommand.parse(["ui", "x"], environment: [:]) }
        #expect(ShelfHelp.text(for: "ui")?.hasPrefix("usage: shelf ui\n") == true)
    }

    /// `shelf` with `arguments`; its exit status and standard error.
    private static func run(_ arguments: [String], environment: [String: String], interactive: Bool) async -> (Int32, String) {
        let printed = Mutex("")
        let output = Output(out: { text in printed.withLock { $0 += text } }, err: { text in printed.withLock { $0 += text } })
        let status = await ShelfMain.run(arguments: arguments, environment: environment, output: output, interactive: interactive)
        return (status, printed.withLock { $0 })
    }

    @Test("without a terminal, no command is a usage error (exit 64) as before")
    func noCommandWithoutTerminal() async {
        let (status, printed) = await Self.run([], environment: [:], interactive: false)
        #expect(status == 64)
        #expect(printed.hasPrefix("shelf: error: no command given\n"))
    }

    @Test("the view is refused (exit 64) with TERM=dumb or without a terminal, before connecting")
    func refused() async {
        // Under `swift test` standard input or output is not always a terminal: either refusal is the live view's.
        let (status, printed) = await Self.run(["--server", "127.0.0.1:1", "ui"], environment: ["TERM": "dumb"], interactive: true)
        #expect(status == 64)
        #expect(printed.hasPrefix("shelf: the live view needs a terminal"))
    }
}

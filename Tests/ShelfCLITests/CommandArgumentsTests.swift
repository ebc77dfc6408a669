import Synchronization
import Testing

@testable import ShelfCLI
@testable import ShelfCommandLine

/// Arguments are decoded as UTF-8, strictly (`CommandArguments`).
@Suite struct CommandArgumentsTests {
    @Test("valid UTF-8 arguments decode as they are, non-ASCII included")
    func valid() throws {
        #expect(try CommandArguments.decode([Array("add".utf8), Array("Café ☕".utf8), []]) == ["add", "Café ☕", ""])
    }

    /// Found by a hostile-input run: `shelf add $'caf\xe9'` (Latin-1) stored "caf\u{FFFD}".
    @Test("an argument that is not UTF-8 is a usage error naming it, and shelf exits 64 before connecting")
    func invalid() async {
        #expect(throws: UsageError("argument 2 is not valid UTF-8; set the terminal to UTF-8 and type it again")) {
            try CommandArguments.decode([Array("add".utf8), [0x63, 0x61, 0x66, 0xE9]])
        }
        let printed = Mutex("")
        let output = Output(out: { _ in }, err: { text in printed.withLock { $0 += text } })
        let status = await ShelfMain.run(
            rawArguments: [Array("--server".utf8), Array("127.0.0.1:1".utf8), Array("add".utf8), [0xFF]],
            environment: [:], output: output)
        #expect(status == 64)
        #expect(printed.withLock { $0 }.hasPrefix("shelf: error: argument 4 is not valid UTF-8"))
    }
}

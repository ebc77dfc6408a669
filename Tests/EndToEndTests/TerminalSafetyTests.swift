import Foundation
import Testing

@Suite struct TerminalSafetyTests {
    @Test("a title holding an escape sequence is refused by the server with exit status 1")
    func escapeSequenceRefused() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                let outcome = try await shelfd.shelf("add", "\u{1B}[31mred")
                #expect(outcome.status == 1)
                #expect(outcome.stdout == "")
                #expect(outcome.stderr.contains("control character (U+001B)"))
                #expect(!outcome.stderr.contains("\u{1B}"))
                #expect(try await shelfd.shelf("list").stdout == "0 items, 0 read (revision 0)\n")
            }
        }
    }

    @Test("a title holding a bidi override is stored but printed escaped by shelf list")
    func bidiOverrideEscaped() async throws {
        try await Sandbox.with { sandbox in
            try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
                let added = try await shelfd.shelf("add", "abc\u{202E}fed")
                #expect(added.status == 0)
                let id = try shortID(in: added.stdout, after: "added ")
                #expect(added.stdout == "added \(id) [ ] abc\\u{202e}fed (revision 1)\n")

                let listed = try await shelfd.shelf("list")
                #expect(listed.status == 0)
                #expect(listed.stdout == "\(id) [ ] abc\\u{202e}fed\n1 item, 0 read (revision 1)\n")
                #expect(!listed.stdout.unicodeScalars.contains("\u{202E}"))
            }
        }
    }
}

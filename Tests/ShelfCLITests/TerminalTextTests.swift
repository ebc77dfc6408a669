import ShelfJSON
import Synchronization
import Testing

@testable import ShelfCommandLine

@Suite struct TerminalTextTests {
    @Test(
        "control and bidi-override characters are shown as \\u{…} escapes",
        arguments: [
            ("\u{1B}[31mred", "\\u{1b}[31mred"),
            ("a\rb", "a\\u{d}b"),
            ("a\nb", "a\\u{a}b"),
            ("a\r\nb", "a\\u{d}\\u{a}b"),
            ("a\tb", "a\\u{9}b"),
            ("a\u{7F}b", "a\\u{7f}b"),
            ("a\u{9B}31m", "a\\u{9b}31m"),
            ("a\u{85}b", "a\\u{85}b"),
            ("\u{0}", "\\u{0}"),
            ("\u{7}", "\\u{7}"),
            ("abc\u{202E}fed", "abc\\u{202e}fed"),
            ("\u{202A}\u{202B}\u{202C}\u{202D}", "\\u{202a}\\u{202b}\\u{202c}\\u{202d}"),
            ("\u{2066}x\u{2069}", "\\u{2066}x\\u{2069}"),
            ("\u{2067}\u{2068}", "\\u{2067}\\u{2068}"),
            ("\u{200E}\u{200F}", "\\u{200e}\\u{200f}"),
        ])
    func escaped(text: String, shown: String) {
        #expect(TerminalText.visible(text) == shown)
    }

    @Test(
        "ordinary text, including non-ASCII letters, emoji and joiners, is unchanged",
        arguments: ["Dune", "Über 📚", "", "  spaced  ", "Les Misérables", "東京", "👩‍👩‍👧", "e\u{301}", "a\\u{1b}b", "\u{A0}"])
    func unchanged(text: String) {
        #expect(TerminalText.visible(text) == text)
    }

    @Test(
        "the Arabic letter mark, a bidi control like U+200F, is escaped")
    func arabicLetterMark() {
        #expect(TerminalText.visible("a\u{061C}b") == "a\\u{61c}b")
    }
}

@Suite struct TerminalJSONTests {
    @Test(
        "--json output escapes DEL, C1 controls and bidi overrides as \\uXXXX, and a JSON reader gets the text back",
        arguments: [
            ("abc\u{202E}fed", #"{"title":"abc\u202efed"}"#),
            ("a\u{9B}31m", #"{"title":"a\u009b31m"}"#),
            ("a\u{7F}b", #"{"title":"a\u007fb"}"#),
            ("\u{1B}[31m", #"{"title":"\u001b[31m"}"#),
            ("a\u{061C}\u{2066}b", #"{"title":"a\u061c\u2066b"}"#),
            ("Über 📚 東京", #"{"title":"Über 📚 東京"}"#),
        ])
    func escaped(title: String, line: String) throws {
        let value = JSONValue.object(JSONObject([("title", .string(title))]))
        #expect(TerminalText.json(value) == line)
        #expect(try JSONParser.parse(Array(TerminalText.json(value).utf8)) == value)
    }

    /// Found by a hostile-input run: a server's error message reached the terminal raw.
    @Test("Output.error escapes control characters in each line and keeps the line breaks")
    func errorLinesAreEscaped() {
        let printed = Recorded()
        let output = Output(out: { _ in }, err: { printed.append($0) })
        output.error("shelf: bad \u{1B}[31m title\n\nusage: shelf\u{7}")
        #expect(printed.all == ["shelf: bad \\u{1b}[31m title\n\nusage: shelf\\u{7}\n"])
    }
}

/// What an `Output` printed, in order.
private final class Recorded: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ text: String) { lines.withLock { $0.append(text) } }
    var all: [String] { lines.withLock { $0 } }
}

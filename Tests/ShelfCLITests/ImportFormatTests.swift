import Foundation
import ShelfCore
import Testing

@testable import ShelfCLI

/// Text and JSON-lines rows, format detection, and files refused as a whole (`ImportFormat`).
@Suite struct ImportFormatTests {
    @Test("text: one title per line, a BOM dropped, blank lines and surrounding whitespace ignored, CRLF taken")
    func textLines() throws {
        let text = try ImportFormat.text(of: Array("\u{FEFF}Dune\r\n\n   \n  Solaris \t\nKindred".utf8), source: "f")
        let records = try ImportFormat.text.records(text)
        #expect(records.map(\.line) == [1, 4, 5])
        #expect(try records.map { try $0.outcome.get().title } == ["Dune", "Solaris", "Kindred"])
    }

    @Test("text: a title that breaks a rule is refused with its line")
    func textBadTitle() throws {
        let records = try ImportFormat.text.records("ok\n" + String(repeating: "x", count: 1001) + "\n")
        #expect(records[1].line == 2)
        #expect(records[1].outcome == .failure("Title is too long: 1001 characters, the limit is 1000"))
    }

    @Test("jsonl: the wire's Item reads back with its id, dates and read state; revision is ignored")
    func jsonLines() throws {
        let line = #"{"id":"3fa2b1c4-5d6e-4f70-8a9b-0c1d2e3f4a5b","title":"Dune","isRead":true,"addedAt":"2020-01-02T03:04:05.006Z","revision":7,"author":"Frank Herbert","tags":["classic"],"note":"n","readAt":"2021-02-03T04:05:06.007Z"}"#
        let records = try ImportFormat.jsonl.records(line + "\n\n{\"title\":\"Bare\"}\n")
        let dune = try records[0].outcome.get()
        #expect(dune.details.origin.id?.wireString == "3fa2b1c4-5d6e-4f70-8a9b-0c1d2e3f4a5b")
        #expect(dune.details.origin.isRead == true)
        #expect(dune.details.origin.addedAt.map(Timestamp.format) == "2020-01-02T03:04:05.006Z")
        #expect(dune.details.origin.readAt.map(Timestamp.format) == "2021-02-03T04:05:06.007Z")
        #expect(dune.details.tags == ["classic"])
        #expect(records[1].line == 3)
        #expect(try records[1].outcome.get().details.origin == ItemDetails.Origin())
    }

    @Test("jsonl: bad lines are refused with their line and reason", arguments: [
        ("{oops", "not JSON"),
        ("[1]", "not a JSON object"),
        (#"{"name":"x"}"#, "no \"title\" string"),
        (#"{"title":"x","id":"zz"}"#, "id \"zz\" is not a UUID"),
        (#"{"title":"x","addedAt":"yesterday"}"#, "addedAt must be an RFC 3339 time"),
        (#"{"title":"x","tags":"a,b"}"#, "tags an array of strings"),
        (#"{"title":"x","isRead":false,"readAt":"2021-02-03T04:05:06.007Z"}"#, "readAt is set but isRead is false"),
    ])
    func jsonLinesRefused(line: String, reason: String) throws {
        let records = try ImportFormat.jsonl.records("{\"title\":\"ok\"}\n" + line)
        guard case .failure(let problem) = records[1].outcome else {
            Issue.record("accepted \(line)")
            return
        }
        #expect(records[1].line == 2)
        #expect(problem.reason.contains(reason))
    }

    @Test("auto: JSON lines, Shelf's CSV header, else text")
    func detection() {
        #expect(ImportFormat.detect("\n  {\"title\":\"x\"}\n") == .jsonl)
        #expect(ImportFormat.detect(ShelfCSV.header + "x\r\n") == .csv)
        #expect(ImportFormat.detect("title,author\r\nx,y\r\n") == .csv)
        #expect(ImportFormat.detect("Dune\nSolaris\n") == .text)
        #expect(ImportFormat.detect("title\n") == .text)
        #expect(ImportFormat.detect("") == .text)
    }

    @Test("a binary file or one that is not UTF-8 is refused whole")
    func refusedFiles() {
        #expect(throws: ImportFailure.self) { try ImportFormat.text(of: [0x44, 0x00, 0x45], source: "f") }
        #expect(throws: ImportFailure.self) { try ImportFormat.text(of: [0x44, 0xC3, 0x28], source: "f") }
    }
}

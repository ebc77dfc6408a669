import Testing

@testable import ShelfCLI

/// RFC 4180 reading and writing (`CSVTable`), with the leniencies real exports need.
@Suite struct CSVTableTests {
    @Test("quoted fields hold commas, doubled quotes and line breaks; each record keeps the line it starts on")
    func quoting() throws {
        let text = "a,b,c\r\n\"x, y\",\"say \"\"hi\"\"\",\"two\r\nlines\"\r\nlast,,\r\n"
        let records = try CSVTable.records(text)
        #expect(records == [
            CSVTable.Record(line: 1, fields: ["a", "b", "c"]),
            CSVTable.Record(line: 2, fields: ["x, y", "say \"hi\"", "two\r\nlines"]),
            CSVTable.Record(line: 4, fields: ["last", "", ""]),
        ])
    }

    @Test("LF alone ends a record, the last needs no line end, blank lines are no record, an empty quoted field is empty")
    func lenientEnds() throws {
        let records = try CSVTable.records("a,b\n\nc,\"\"")
        #expect(records == [CSVTable.Record(line: 1, fields: ["a", "b"]), CSVTable.Record(line: 3, fields: ["c", ""])])
    }

    @Test("a quote inside an unquoted field is an ordinary character (Goodreads' =\"0441172717\")")
    func quoteInsideUnquoted() throws {
        #expect(try CSVTable.records("1,=\"0441172717\",x").first?.fields == ["1", "=\"0441172717\"", "x"])
    }

    @Test("an unterminated quote and text after a closing quote are refused with their line")
    func malformed() {
        #expect(throws: CSVTable.Malformed(line: 2, reason: "a quoted field that starts here never ends")) {
            try CSVTable.records("a\n\"open,\nmore")
        }
        #expect(throws: CSVTable.Malformed.self) { try CSVTable.records("\"a\"b,c") }
    }

    @Test("the writer quotes what needs it, doubles quotes, ends with CRLF, and the reader gets every field back")
    func writerRoundTrip() throws {
        let fields = ["plain", "with, comma", "a \"quote\"", "new\nline", "", " padded ", "cr\rhere"]
        let line = CSVTable.line(fields)
        #expect(line == "plain,\"with, comma\",\"a \"\"quote\"\"\",\"new\nline\",,\" padded \",\"cr\rhere\"\r\n")
        #expect(try CSVTable.records(line).first?.fields == fields)
    }
}

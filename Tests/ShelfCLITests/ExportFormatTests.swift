import Foundation
import ShelfCore
import ShelfJSON
import Testing

@testable import ShelfCLI

/// What `shelf export` writes for one item in each format (`ExportFormat`).
@Suite struct ExportFormatTests {
    @Test("jsonl is exactly the wire's Item, every member, one line")
    func jsonl() {
        let item = ShelfCSVTests.full
        let line = ExportFormat.jsonl.entry(item)
        #expect(line == String(decoding: JSONWriter.encode(item.json), as: UTF8.self) + "\n")
        #expect(ExportFormat.jsonl.header.isEmpty)
    }

    @Test("markdown is a checklist line, with the text Markdown would read as markup escaped")
    func markdown() {
        let read = Item(
            id: UUID(), title: "Dune *1* [draft]", isRead: true, addedAt: Date(timeIntervalSince1970: 0), revision: 1,
            author: "Frank_Herbert")
        #expect(ExportFormat.markdown.entry(read) == "- [x] Dune \\*1\\* \\[draft\\] — Frank\\_Herbert\n")
        let unread = Item(id: UUID(), title: "Solaris #2", isRead: false, addedAt: Date(timeIntervalSince1970: 0), revision: 2)
        #expect(ExportFormat.markdown.entry(unread) == "- [ ] Solaris #2\n")
    }

    @Test("csv starts with the header and writes one CRLF row per item")
    func csv() {
        #expect(ExportFormat.csv.header == ShelfCSV.header)
        #expect(ExportFormat.csv.entry(ShelfCSVTests.full).hasSuffix("\r\n"))
    }
}

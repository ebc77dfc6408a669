import Foundation
import ShelfCore
import Testing

@testable import ShelfCLI

/// Shelf's own CSV (`ShelfCSV`): every member out and back, tags by spaces, no formula injection.
@Suite struct ShelfCSVTests {
    static let full = Item(
        id: UUID(uuidString: "3fa2b1c4-5d6e-4f70-8a9b-0c1d2e3f4a5b") ?? UUID(), title: "=HYPERLINK(\"x\"), really",
        isRead: true, addedAt: Timestamp.parse("2020-01-02T03:04:05.006Z") ?? Date(), revision: 9,
        author: "-Anon", url: "https://example.org/a?b=1,2", tags: ["+1", "@home", "sci-fi"],
        note: "'quoted' first\nthen \"more\", and a, comma", readAt: Timestamp.parse("2021-02-03T04:05:06.007Z"))

    @Test("the header is the Item's members in wire order")
    func header() {
        #expect(ShelfCSV.header == "id,title,isRead,addedAt,revision,author,url,tags,note,readAt\r\n")
    }

    @Test("cells starting with = + - @ or ' get a leading apostrophe, and reading drops exactly it")
    func formulaGuard() {
        for cell in ["=1+2", "+1", "-2", "@SUM(A1)", "'already", "\tx", "''", "'"] {
            let written = ShelfCSV.guarded(cell)
            #expect(written == "'" + cell)
            #expect(ShelfCSV.unguarded(written) == cell)
        }
        for cell in ["plain", "a=b", ""] {
            #expect(ShelfCSV.guarded(cell) == cell)
            #expect(ShelfCSV.unguarded(cell) == cell)
        }
        #expect(ShelfCSV.unguarded("'plain") == "'plain")
    }

    @Test("a row with every member reads back into the same item: id, dates, read state, tags, note")
    func roundTrip() throws {
        let item = Self.full
        let text = ShelfCSV.header + ShelfCSV.row(item)
        #expect(ShelfCSV.row(item).hasPrefix("3fa2b1c4-5d6e-4f70-8a9b-0c1d2e3f4a5b,\"'=HYPERLINK(\"\"x\"\"), really\",true,"))
        #expect(ShelfCSV.row(item).contains(",'-Anon,"))
        #expect(ShelfCSV.row(item).contains(",'+1 @home sci-fi,"))
        let records = try ShelfCSV.records(try CSVTable.records(text))
        let candidate = try #require(try records.first?.outcome.get())
        #expect(candidate.title == item.title)
        #expect(candidate.details.author == item.author)
        #expect(candidate.details.url == item.url)
        #expect(candidate.details.tags == item.tags)
        #expect(candidate.details.note == item.note)
        #expect(candidate.details.origin == ItemDetails.Origin(id: item.id, addedAt: item.addedAt, isRead: true, readAt: item.readAt))
    }

    @Test("a hand-made sheet with some of the columns in any order imports; bad cells refuse the row with a reason")
    func subsetAndBadCells() throws {
        let text = "author,title,isRead\nUrsula,Earthsea,true\nX,Y,maybe\nZ,,false\n"
        let records = try ShelfCSV.records(try CSVTable.records(text))
        #expect(try records[0].outcome.get().details.origin.isRead == true)
        #expect(records[1].outcome == .failure("isRead is \"maybe\", not true or false"))
        #expect(records[1].line == 3)
        #expect(records[2].outcome == .failure("Enter a title"))
    }

    @Test("a header that is not Shelf's is refused as a whole")
    func foreignHeader() {
        #expect(throws: ImportFailure.self) { try ShelfCSV.records(try CSVTable.records("name,price\nx,1\n")) }
        #expect(throws: ImportFailure("line 1: this is a Goodreads export, not Shelf's CSV: use --format goodreads (or auto)")) {
            try ShelfCSV.records(try CSVTable.records("Title,Author,Exclusive Shelf\nx,y,read\n"))
        }
    }
}

import Foundation
import ShelfCore
import Testing

@testable import ShelfCLI

/// Goodreads' "Export Library" CSV (`GoodreadsCSV`), with synthetic rows in both header layouts.
@Suite struct GoodreadsCSVTests {
    /// The 24 columns of recent exports.
    static let header24 = "Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,Average Rating,Publisher,"
        + "Binding,Number of Pages,Year Published,Original Publication Year,Date Read,Date Added,Bookshelves,"
        + "Bookshelves with positions,Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Owned Copies"
    /// The 31 columns of older ones: other columns, another order.
    static let header31 = "Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,Average Rating,Publisher,"
        + "Binding,Number of Pages,Year Published,Original Publication Year,Date Read,Date Added,Bookshelves,"
        + "Bookshelves with positions,Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Recommended For,"
        + "Recommended By,Owned Copies,Original Purchase Date,Original Purchase Location,Condition,"
        + "Condition Description,BCID"

    private func candidates(_ text: String) throws -> [ImportRecord] {
        try ImportFormat.goodreads.records(text)
    }

    @Test("a read book keeps title, author (inner spaces collapsed), dates, shelves as tags and the note as text")
    func readRow() throws {
        let text = Self.header24 + "\n"
            + #"7,"Glass Orchard (Orchard Cycle, #1)",Mara   Quillfeather,"Quillfeather, Mara",,"=""0441172717""","=""9780441172719""",4,3.9,P,Paperback,400,2011,2009,2023/04/17,2022/12/01,"favorites, sci fi","favorites (#3)",read,<i>review</i>,,Lent by A &amp; B.<br/>Back in May.<br />&lt;3 &#233;&#x2014;,1,0"#
            + "\n"
        let records = try candidates(text)
        #expect(records.count == 1)
        #expect(records[0].line == 2)
        let candidate = try records[0].outcome.get()
        #expect(candidate.title == "Glass Orchard (Orchard Cycle, #1)")
        #expect(candidate.details.author == "Mara Quillfeather")
        #expect(candidate.details.tags == ["favorites", "sci-fi"])
        #expect(candidate.details.note == "Lent by A & B.\nBack in May.\n<3 é—")
        #expect(candidate.details.origin.isRead == true)
        #expect(candidate.details.origin.readAt.map(Timestamp.format) == "2023-04-17T00:00:00.000Z")
        #expect(candidate.details.origin.addedAt.map(Timestamp.format) == "2022-12-01T00:00:00.000Z")
        #expect(candidate.details.origin.id == nil)
    }

    @Test("to-read is unread and no tag; currently-reading is unread and a tag; a Date Read on an unread shelf is dropped")
    func shelves() throws {
        let text = Self.header24 + "\n"
            + "1,A,X,,,,,0,0,,,,,,,2024/02/29,to-read,,to-read,,,,0,0\n"
            + "2,B,Y,,,,,0,0,,,,,,2020/01/01,2025/1/5,\"currently-reading, club\",,currently-reading,,,,0,0\n"
        let records = try candidates(text)
        let a = try records[0].outcome.get()
        #expect(a.details.origin.isRead == false)
        #expect(a.details.tags.isEmpty)
        #expect(a.details.origin.addedAt.map(Timestamp.format) == "2024-02-29T00:00:00.000Z")
        let b = try records[1].outcome.get()
        #expect(b.details.tags == ["club", "currently-reading"])
        #expect(b.details.origin.readAt == nil)
        #expect(b.details.origin.addedAt.map(Timestamp.format) == "2025-01-05T00:00:00.000Z")
    }

    @Test("the 31-column header is found by name, and auto detection takes both layouts as Goodreads")
    func olderLayout() throws {
        let row = "9,Old Title,Some  One,,,,,0,0,,,,,,2019/05/06,2019/01/01,,,read,,,,1,,,0,,,,,\n"
        let text = Self.header31 + "\n" + row
        #expect(ImportFormat.detect(text) == .goodreads)
        #expect(ImportFormat.detect(Self.header24 + "\n") == .goodreads)
        let candidate = try ImportFormat.auto.records(text)[0].outcome.get()
        #expect(candidate.title == "Old Title")
        #expect(candidate.details.author == "Some One")
        #expect(candidate.details.origin.readAt.map(Timestamp.format) == "2019-05-06T00:00:00.000Z")
    }

    @Test("a bad date or an empty title refuses that row with its line and reason; the others are kept")
    func badRows() throws {
        let text = Self.header24 + "\n"
            + "1,Fine,X,,,,,0,0,,,,,,,2020/01/01,,,to-read,,,,0,0\n"
            + "2,Bad,X,,,,,0,0,,,,,,2020/13/40,2020/01/01,,,read,,,,0,0\n"
            + "3,,X,,,,,0,0,,,,,,,2020/01/01,,,to-read,,,,0,0\n"
        let records = try candidates(text)
        #expect((try? records[0].outcome.get()) != nil)
        #expect(records[1].line == 3)
        #expect(records[1].outcome == .failure("Date Read \"2020/13/40\" is not a date YYYY/MM/DD"))
        #expect(records[2].outcome == .failure("Enter a title"))
    }

    @Test("dates: YYYY/MM/DD with one- or two-digit month and day, real calendar days only")
    func dates() {
        #expect(GoodreadsCSV.date("2024/2/29").map(Timestamp.format) == "2024-02-29T00:00:00.000Z")
        #expect(GoodreadsCSV.date("2023/02/29") == nil)
        #expect(GoodreadsCSV.date("2023-02-01") == nil)
        #expect(GoodreadsCSV.date("23/02/01") == nil)
    }

    @Test("the spreadsheet guard =\"…\" is taken off; HTML breaks, tags and entities become text")
    func quirks() {
        #expect(GoodreadsCSV.unguarded("=\"0441172717\"") == "0441172717")
        #expect(GoodreadsCSV.unguarded("=\"\"") == "")
        #expect(GoodreadsCSV.unguarded("=1+1") == "=1+1")
        #expect(HTMLText.plain("<p class=\"x\">a<br>b<BR />c<p>d</p>e &amp;amp; &bogus; & f&#0;") == "a\nb\nc\nd\ne &amp; &bogus; & f&#0;")
    }

    @Test("the committed synthetic export reads as four items with their members")
    func committedFixture() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/goodreads_library_export.csv")
        let text = try ImportFormat.text(of: [UInt8](try Data(contentsOf: url)), source: url.path)
        #expect(ImportFormat.detect(text) == .goodreads)
        let titles = try ImportFormat.auto.records(text).map { try $0.outcome.get().title }
        #expect(titles == ["The Glass Orchard (Orchard Cycle, #1)", "Tidewater Ledger", "Salt, Smoke, and Signal", "\"Quoted\" Title, With Comma"])
    }
}

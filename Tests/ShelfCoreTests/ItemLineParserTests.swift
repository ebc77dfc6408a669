import Foundation
@testable import ShelfCore
import ShelfJSON
import Testing

/// `ItemLineParser` reads item lines in the exact layout the store writes and gives up (`nil`) on anything else;
/// whatever it accepts, the general JSON path accepts with the same item.
struct ItemLineParserTests {
    static let canonical =
        #"{"id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","title":"Ünïcødé 📚 / and DEL \#u{7F}","isRead":true,"addedAt":"2026-11-29T13:14:15.123Z","revision":42}"#

    @Test("a line written by Item.appendJSON reads back as the same item")
    func roundTrip() throws {
        let item = Item(
            id: UUID(), title: "Quotes ü and 📚", isRead: false,
            addedAt: Timestamp.truncated(Date(timeIntervalSince1970: 1_800_000_000.002)), revision: 18_446_744_073_709_551_615)
        var line: [UInt8] = []
        item.appendJSON(to: &line)
        let fields = try #require(ItemLineParser.parse(line[...]))
        #expect(fields.id == item.id)
        #expect(fields.title == item.title)
        #expect(fields.isRead == item.isRead)
        #expect(fields.addedAt == item.addedAt)
        #expect(fields.revision == item.revision)
    }

    /// Lines in another layout, or that the general parser must judge: each gives `nil`.
    static let declined: [String] = [
        #"{"id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9", "title":"A","isRead":true,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#,
        #"{"title":"A","id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","isRead":true,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#,
        #"{"id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","title":"A\"B","isRead":true,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#,
        #"{"id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","title":"A\u0042","isRead":true,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#,
        "{\"id\":\"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9\",\"title\":\"tab\there\",\"isRead\":true,\"addedAt\":\"2026-11-29T13:14:15.123Z\",\"revision\":1}",
        #"{"id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","title":"A","isRead":True,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#,
        #"{"id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","title":"A","isRead":true,"addedAt":"2026-11-29T13:14:15.123Z","revision":01}"#,
        #"{"id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","title":"A","isRead":true,"addedAt":"2026-11-29T13:14:15.123Z","revision":1.0}"#,
        #"{"id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","title":"A","isRead":true,"addedAt":"2026-11-29T13:14:15.123Z","revision":18446744073709551616}"#,
        #"{"id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","title":"A","isRead":true,"addedAt":"2026-11-29T13:14:15.123Z","revision":-1}"#,
        #"{"id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","title":"A","isRead":true,"addedAt":"2026-11-29T13:14:15.123Z","revision":1} "#,
        #"{"id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","title":"A","isRead":true,"addedAt":"2026-11-29T13:14:15.123Z","revision":1,"x":1}"#,
        #"{"id":"0f1e2d3c4b5a49788695a4b3c2d1e0f9xxxx","title":"A","isRead":true,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#,
        #"{"id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f","title":"A","isRead":true,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#,
        #"{"id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","title":"A","isRead":true,"addedAt":"2026-02-30T13:14:15.123Z","revision":1}"#,
        #"{"id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","title":"A","isRead":true,"addedAt":"2026-11-29T13:14:15.123Z","revision":1"#,
    ]

    @Test(arguments: declined)
    func declinesOtherLayouts(line: String) {
        #expect(ItemLineParser.parse(Array(line.utf8)[...]) == nil)
    }

    @Test("a title that is not valid UTF-8 is left to the general parser")
    func declinesInvalidUTF8() {
        var line = Array(#"{"id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","title":"A"#.utf8)
        line += [0xC3, 0x28]
        line += Array(#"","isRead":true,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#.utf8)
        #expect(ItemLineParser.parse(line[...]) == nil)
    }

    @Test("what it accepts, the general JSON path accepts with the same fields")
    func agreesWithTheGeneralPath() throws {
        let variants = [
            Self.canonical,
            #"{"id":"0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9","title":"  padded  ","isRead":false,"addedAt":"2026-11-29t13:14:15+02:00","revision":0}"#,
            #"{"id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","title":"","isRead":false,"addedAt":"2026-11-29T13:14:15.123456789Z","revision":7}"#,
        ]
        for line in variants {
            let fields = try #require(ItemLineParser.parse(Array(line.utf8)[...]), "\(line)")
            let value = try JSONParser.parse(Array(line.utf8))
            let object = try #require(value.objectValue)
            #expect(UUID(wireText: object["id"]?.stringValue ?? "") == fields.id)
            #expect(object["title"]?.stringValue == fields.title)
            #expect(object["isRead"]?.boolValue == fields.isRead)
            #expect(Timestamp.parse(object["addedAt"]?.stringValue ?? "") == fields.addedAt)
            #expect(object["revision"]?.numberValue?.uint64 == fields.revision)
        }
    }
}

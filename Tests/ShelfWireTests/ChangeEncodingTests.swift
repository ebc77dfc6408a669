import Foundation
import ShelfCore
import ShelfJSON
import ShelfWire
import Testing

/// The byte encoders of changes (journal records, `changed` notifications) write what the `JSONValue` path writes.
struct ChangeEncodingTests {
    static let item = Item(
        id: UUID(uuidString: "0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9") ?? UUID(),
        title: "Quote \" backslash \\ tab \t é 📚", isRead: false,
        addedAt: Timestamp.truncated(Date(timeIntervalSince1970: 1_700_000_000.5)), revision: 3)

    static let changes: [RevisionedChange] = [
        RevisionedChange(revision: 3, change: .added(item)),
        RevisionedChange(revision: 4, change: .updated(item)),
        RevisionedChange(revision: 18_446_744_073_709_551_615, change: .removed(item.id)),
    ]

    @Test(arguments: changes)
    func revisionedChangeBytes(change: RevisionedChange) {
        var direct: [UInt8] = []
        change.appendJSON(to: &direct)
        #expect(String(decoding: direct, as: UTF8.self) == String(decoding: JSONWriter.encode(change.json), as: UTF8.self))
    }

    @Test(arguments: changes)
    func changedNotificationLine(change: RevisionedChange) {
        var expected = JSONWriter.encode(ServerNotification.changed(change).json)
        expected.append(0x0A)
        #expect(String(decoding: ServerNotification.changed(change).line, as: UTF8.self)
            == String(decoding: expected, as: UTF8.self))
    }
}

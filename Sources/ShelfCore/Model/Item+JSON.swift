import Foundation
import ShelfJSON

extension Item {
    /// The wire shape (protocol/PROTOCOL.md, `Item`):
    /// `{"id": lowercase UUID, "title", "isRead", "addedAt": RFC 3339 UTC, "revision"}`.
    public var json: JSONValue {
        .object(JSONObject([
            ("id", .string(id.wireString)),
            ("title", .string(title)),
            ("isRead", .bool(isRead)),
            ("addedAt", .string(Timestamp.format(addedAt))),
            ("revision", .number(JSONNumber(revision))),
        ]))
    }

    /// Appends the same JSON as `JSONWriter.append(json)` directly, without building a `JSONValue`: the path
    /// `list` replies, snapshots and notifications take for every item.
    public func appendJSON(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"id":""#.utf8)
        id.appendWireText(to: &bytes)
        bytes.append(contentsOf: #"","title":"#.utf8)
        JSONWriter.appendString(title, to: &bytes)
        bytes.append(contentsOf: isRead ? #","isRead":true,"addedAt":""#.utf8 : #","isRead":false,"addedAt":""#.utf8)
        Timestamp.append(addedAt, to: &bytes)
        bytes.append(contentsOf: #"","revision":"#.utf8)
        bytes.append(contentsOf: String(revision).utf8)
        bytes.append(UInt8(ascii: "}"))
    }

    /// Reads the wire shape; `nil` when a member is missing or of the wrong type.
    public init?(json: JSONValue) {
        guard case .object(let object) = json,
              let idText = object["id"]?.stringValue, let id = UUID(wireText: idText),
              let title = object["title"]?.stringValue,
              let isRead = object["isRead"]?.boolValue,
              let addedText = object["addedAt"]?.stringValue, let addedAt = Timestamp.parse(addedText),
              let revision = object["revision"]?.numberValue?.uint64
        else { return nil }
        self.init(id: id, title: title, isRead: isRead, addedAt: addedAt, revision: revision)
    }
}

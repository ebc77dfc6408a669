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
        JSONWriter.appendRaw(#"{"id":""#, to: &bytes)
        id.appendWireText(to: &bytes)
        JSONWriter.appendRaw(#"","title":"#, to: &bytes)
        JSONWriter.appendString(title, to: &bytes)
        JSONWriter.appendRaw(isRead ? #","isRead":true,"addedAt":""# : #","isRead":false,"addedAt":""#, to: &bytes)
        Timestamp.append(addedAt, to: &bytes)
        JSONWriter.appendRaw(#"","revision":"#, to: &bytes)
        JSONWriter.appendInteger(revision, to: &bytes)
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

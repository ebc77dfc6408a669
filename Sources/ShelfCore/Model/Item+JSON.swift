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
    /// `list` replies, snapshots and notifications take for every item. A title of at most `inlineTitleBytes`
    /// bytes that needs no escaping (the usual one) is written with the rest into one stack buffer, then appended
    /// in one copy.
    public func appendJSON(to bytes: inout [UInt8]) {
        var title = self.title
        let written = title.withUTF8 { titleBytes -> Bool in
            guard titleBytes.count <= Self.inlineTitleBytes, JSONWriter.isPlainString(titleBytes) else { return false }
            // At most 140 bytes besides the title: 60 of keys and punctuation, 36 for the id, 24 for the time and
            // 20 for the revision.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.inlineTitleBytes + 160) { buffer in
                guard let start = buffer.baseAddress else { return }
                var out = JSONByteCursor(start)
                out.put(#"{"id":""#)
                id.writeWireText(to: out.position)
                out.advance(by: 36)
                out.put(#"","title":""#)
                out.put(titleBytes)
                out.put(isRead ? #"","isRead":true,"addedAt":""# : #"","isRead":false,"addedAt":""#)
                Timestamp.write(addedAt, to: out.position)
                out.advance(by: 24)
                out.put(#"","revision":"#)
                out.putInteger(revision)
                out.put(UInt8(ascii: "}"))
                bytes.append(contentsOf: UnsafeBufferPointer(start: start, count: out.position - start))
            }
            return true
        }
        if !written { appendJSONPiecewise(to: &bytes) }
    }

    /// The longest title (in UTF-8 bytes) `appendJSON` writes through its stack buffer.
    static let inlineTitleBytes = 256

    /// `appendJSON` a piece at a time, for any title.
    func appendJSONPiecewise(to bytes: inout [UInt8]) {
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

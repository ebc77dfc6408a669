import Foundation
import ShelfJSON

extension Item {
    /// The wire shape (protocol/PROTOCOL.md §4, `Item`):
    /// `{"id": lowercase UUID, "title", "isRead", "addedAt": RFC 3339 UTC, "revision"}`, then, each only when the
    /// item has it, `"author"`, `"url"`, `"tags"` (an array of strings, stored order), `"note"`, `"readAt"`.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(id.wireString)),
            ("title", .string(title)),
            ("isRead", .bool(isRead)),
            ("addedAt", .string(Timestamp.format(addedAt))),
            ("revision", .number(JSONNumber(revision))),
        ]
        if let author { members.append(("author", .string(author))) }
        if let url { members.append(("url", .string(url))) }
        if !tags.isEmpty { members.append(("tags", .array(tags.map { .string($0) }))) }
        if let note { members.append(("note", .string(note))) }
        if let readAt { members.append(("readAt", .string(Timestamp.format(readAt)))) }
        return .object(JSONObject(members))
    }

    /// Appends the same JSON as `JSONWriter.append(json)` directly, without building a `JSONValue`: the path
    /// `list` replies, snapshots and notifications take for every item. A title of at most `inlineTitleBytes`
    /// bytes that needs no escaping (the usual one) is written with the rest into one stack buffer, then appended
    /// in one copy.
    public func appendJSON(to bytes: inout [UInt8]) {
        if hasDetails { return appendJSONPiecewise(to: &bytes) }
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
        if let author {
            JSONWriter.appendRaw(#","author":"#, to: &bytes)
            JSONWriter.appendString(author, to: &bytes)
        }
        if let url {
            JSONWriter.appendRaw(#","url":"#, to: &bytes)
            JSONWriter.appendString(url, to: &bytes)
        }
        if !tags.isEmpty {
            JSONWriter.appendRaw(#","tags":["#, to: &bytes)
            for (index, tag) in tags.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(tag, to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        }
        if let note {
            JSONWriter.appendRaw(#","note":"#, to: &bytes)
            JSONWriter.appendString(note, to: &bytes)
        }
        if let readAt {
            JSONWriter.appendRaw(#","readAt":""#, to: &bytes)
            Timestamp.append(readAt, to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// How many bytes `appendJSON(to:)` writes for this item, every member counted with its escapes, without
    /// writing them: the one measure of an item's size, for what the server holds (`ChangeHistory`, replies and
    /// notifications counted before they are made). Linear in the item's text, with no allocation.
    public var jsonByteCount: Int {
        // `{"id":"` 36 `","title":` … `,"isRead":false,"addedAt":"` 24 `","revision":` … `}`: 7 + 36 + 10 + 27 + 24
        // + 13 + 1 bytes besides the title and the revision, one fewer for `true`.
        var bytes = 118 - (isRead ? 1 : 0) + JSONWriter.encodedLength(of: title) + JSONWriter.decimalLength(of: revision)
        guard hasDetails else { return bytes }
        if let author { bytes += 10 + JSONWriter.encodedLength(of: author) }
        if let url { bytes += 7 + JSONWriter.encodedLength(of: url) }
        if !tags.isEmpty {
            // `,"tags":[` and `]`, and a comma between two tags.
            bytes += 10 + tags.count - 1
            for tag in tags { bytes += JSONWriter.encodedLength(of: tag) }
        }
        if let note { bytes += 8 + JSONWriter.encodedLength(of: note) }
        // `,"readAt":"` 24 `"`.
        if readAt != nil { bytes += 36 }
        return bytes
    }

    /// The optional members of an item object, read as `init?(json:)` reads them: `nil` when one is present but of
    /// the wrong type (`null` counts as absent), each value taken as written (the caller validates stored ones).
    public static func details(of object: JSONObject) -> (author: String?, url: String?, tags: [String], note: String?, readAt: Date?)? {
        func text(_ key: String) -> String?? {
            switch object[key] {
            case nil, .null?: return .some(nil)
            case .string(let value)?: return .some(value)
            default: return nil
            }
        }
        guard let author = text("author"), let url = text("url"), let note = text("note"), let readText = text("readAt")
        else { return nil }
        var readAt: Date?
        if let readText {
            guard let date = Timestamp.parse(readText) else { return nil }
            readAt = date
        }
        var tags: [String] = []
        switch object["tags"] {
        case nil, .null?: break
        case .array(let values)?:
            for value in values {
                guard let tag = value.stringValue else { return nil }
                tags.append(tag)
            }
        default: return nil
        }
        return (author, url, tags, note, readAt)
    }

    /// Reads the wire shape; `nil` when a member is missing or of the wrong type.
    public init?(json: JSONValue) {
        guard case .object(let object) = json,
              let idText = object["id"]?.stringValue, let id = UUID(wireText: idText),
              let title = object["title"]?.stringValue,
              let isRead = object["isRead"]?.boolValue,
              let addedText = object["addedAt"]?.stringValue, let addedAt = Timestamp.parse(addedText),
              let revision = object["revision"]?.numberValue?.uint64,
              // Five members are the five just read: the usual item has no optional member to look up.
              let details = object.count == 5 ? (nil, nil, [], nil, nil) : Self.details(of: object)
        else { return nil }
        self.init(
            id: id, title: title, isRead: isRead, addedAt: addedAt, revision: revision, author: details.author,
            url: details.url, tags: details.tags, note: details.note, readAt: details.readAt)
    }
}

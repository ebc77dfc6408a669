import Foundation
import ShelfCore
import ShelfJSON

/// `--format jsonl`: one JSON object per line, the wire's Item (protocol/PROTOCOL.md §4) as `shelf export` writes
/// it. `title` is required; `id`, `isRead`, `addedAt`, `readAt` are kept (`ItemDetails.Origin`); `revision` is the
/// old list's and is ignored.
enum JSONLines {
    static func records(_ text: String) -> [ImportRecord] {
        TextLines.numbered(text).map { line, content in ImportRecord(line: line, record(Array(content.utf8))) }
    }

    private static func record(_ bytes: [UInt8]) -> Result<ImportCandidate, ImportRecord.Problem> {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes[...])
        } catch {
            return .failure("not JSON: \(error)")
        }
        guard case .object(let object) = value else { return .failure("not a JSON object") }
        guard let title = object["title"]?.stringValue else { return .failure("no \"title\" string") }
        guard let details = Item.details(of: object) else {
            return .failure("author, url, note and readAt must be strings (readAt an RFC 3339 time), tags an array of strings")
        }
        var origin = ItemDetails.Origin(readAt: details.readAt)
        switch object["id"] {
        case nil, .null?: break
        case .string(let text)? where UUID(wireText: text) != nil: origin.id = UUID(wireText: text)
        case let other?: return .failure("id \(String(decoding: JSONWriter.encode(other), as: UTF8.self)) is not a UUID")
        }
        switch object["isRead"] {
        case nil, .null?: break
        case .bool(let isRead)?: origin.isRead = isRead
        default: return .failure("isRead must be true or false")
        }
        switch object["addedAt"] {
        case nil, .null?: break
        case .string(let text)? where Timestamp.parse(text) != nil: origin.addedAt = Timestamp.parse(text)
        default: return .failure("addedAt must be an RFC 3339 time")
        }
        if origin.isRead == false, origin.readAt != nil { return .failure("readAt is set but isRead is false") }
        return ImportCandidate.checked(
            title: title,
            details: ItemDetails(author: details.author, url: details.url, tags: details.tags, note: details.note, origin: origin))
    }
}

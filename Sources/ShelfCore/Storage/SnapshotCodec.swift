import Foundation
import ShelfJSON

/// The file store's snapshot format (protocol/STORAGE.md).
///
/// Format 2, written: a header line `{"format":2,"revision":N,"items":COUNT}` and then one line per item, in list
/// order, each the wire `Item` shape (`{"id","title","isRead","addedAt","revision"}`). One item per line lets a
/// large snapshot be parsed on every core. Format 1, read only: one JSON object
/// `{"format":1,"items":[Item…],"revision":N}`; the store rewrites it as format 2 at its next compaction.
public enum SnapshotCodec {
    /// The format this build writes.
    public static let format = 2

    /// Encodes `snapshot` in format 2.
    public static func encode(_ snapshot: ListSnapshot) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + snapshot.items.count * 160)
        let header = JSONValue.object(JSONObject([
            ("format", .number(JSONNumber(format))), ("revision", .number(JSONNumber(snapshot.revision))),
            ("items", .number(JSONNumber(snapshot.items.count))),
        ]))
        JSONWriter.append(header, to: &bytes)
        bytes.append(0x0A)
        for item in snapshot.items {
            item.appendJSON(to: &bytes)
            bytes.append(0x0A)
        }
        return bytes
    }

    /// Decodes and checks a snapshot of format 1 or 2: well-formed items with valid titles, no repeated ids, no item
    /// revision above the list revision, the item count the header promises.
    /// - Throws: `StorageError.unknownFormat`, `.duplicateID` or `.corrupt`, each naming `path` (and the line).
    public static func decode(_ bytes: [UInt8], path: String) throws(StorageError) -> ListSnapshot {
        let headerEnd = bytes.firstIndex(of: 0x0A) ?? bytes.count
        let header = try? JSONParser.parse(bytes[..<headerEnd])
        if case .object(let object)? = header, let number = object["format"]?.numberValue, number.int64 == nil {
            // The first line decides by its number (protocol/STORAGE.md): `2.5` or `1e0` is no format this build
            // reads, not "not JSON". Format numbers are written as plain integers, as revisions are.
            throw .unknownFormat(path: path, format: number.text)
        }
        guard case .object(let object)? = header, let format = object["format"]?.numberValue?.int64 else {
            return try decodeFormat1(bytes, path: path)
        }
        switch format {
        case 2:
            // A header with no LF is a last line cut short too (a file of format 2 with no items).
            guard headerEnd < bytes.count else { throw .corrupt(path: path, reason: Self.cutShort) }
            return try decodeFormat2(bytes, header: object, itemsStart: headerEnd + 1, path: path)
        case 1: return try decodeFormat1(bytes, path: path)
        default: throw .unknownFormat(path: path, format: String(format))
        }
    }

    /// Why a format 2 file whose last line has no LF is refused (protocol/STORAGE.md, "Loading").
    private static let cutShort = "the last line is cut short (no newline at the end)"

    private static func decodeFormat2(
        _ bytes: [UInt8], header: JSONObject, itemsStart: Int, path: String
    ) throws(StorageError) -> ListSnapshot {
        guard let revision = header["revision"]?.numberValue?.uint64, revision < .max,
              let count = header["items"]?.numberValue?.int64
        else {
            throw .corrupt(path: path, reason: "line 1: the header needs a numeric \"revision\" and \"items\"")
        }
        guard LineChunks.endOfLastLine(bytes, from: itemsStart) == bytes.count else {
            throw .corrupt(path: path, reason: Self.cutShort)
        }
        let items = try LineChunks.map(bytes, from: itemsStart, firstLineNumber: 2) { line throws(StorageError) in
            if let fields = ItemLineParser.parse(line.bytes) {
                return try checkedItem(fields, at: "line \(line.number)", listRevision: revision, path: path)
            }
            let value: JSONValue
            do {
                value = try JSONParser.parse(line.bytes)
            } catch {
                throw .corrupt(path: path, reason: "line \(line.number): \(error)")
            }
            return try item(from: value, at: "line \(line.number)", listRevision: revision, path: path)
        }
        guard items.count == count else {
            throw .corrupt(path: path, reason: "the header promises \(count) items but the file holds \(items.count)")
        }
        return try collect(items, revision: revision, path: path)
    }

    private static func decodeFormat1(_ bytes: [UInt8], path: String) throws(StorageError) -> ListSnapshot {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw .corrupt(path: path, reason: "not JSON: \(error)")
        }
        guard case .object(let object) = value, let format = object["format"]?.numberValue?.int64 else {
            throw .corrupt(path: path, reason: "not a JSON object with a numeric \"format\"")
        }
        guard format == 1 else { throw .unknownFormat(path: path, format: String(format)) }
        guard let revision = object["revision"]?.numberValue?.uint64, revision < .max, case .array(let values)? = object["items"] else {
            throw .corrupt(path: path, reason: "format 1 needs a numeric \"revision\" and an \"items\" array")
        }
        var items: [Item] = []
        items.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            items.append(try item(from: value, at: "item \(index)", listRevision: revision, path: path))
        }
        return try collect(items, revision: revision, path: path)
    }

    private static func collect(_ items: [Item], revision: Revision, path: String) throws(StorageError) -> ListSnapshot {
        switch ItemCollection.make(items) {
        case .success(let collection): return ListSnapshot(revision: revision, items: collection)
        case .failure(let duplicate): throw .duplicateID(path: path, id: duplicate.id.wireString)
        }
    }

    /// Reads one stored item, saying what is wrong with it (`at` names its place).
    static func item(from value: JSONValue, at place: String, listRevision: Revision, path: String) throws(StorageError) -> Item {
        guard case .object(let object) = value else { throw .corrupt(path: path, reason: "\(place) is not an object") }
        guard let idText = object["id"]?.stringValue, let id = UUID(wireText: idText) else {
            throw .corrupt(path: path, reason: "\(place) has no valid \"id\" (a UUID)")
        }
        guard let title = object["title"]?.stringValue else {
            throw .corrupt(path: path, reason: "\(place) has no valid \"title\"")
        }
        guard let isRead = object["isRead"]?.boolValue else {
            throw .corrupt(path: path, reason: "\(place) has no boolean \"isRead\"")
        }
        guard let addedText = object["addedAt"]?.stringValue, let addedAt = Timestamp.parse(addedText) else {
            throw .corrupt(path: path, reason: "\(place) has no valid \"addedAt\" (RFC 3339)")
        }
        guard let revision = object["revision"]?.numberValue?.uint64 else {
            throw .corrupt(path: path, reason: "\(place) has no valid \"revision\" (a whole number from 0)")
        }
        guard let details = Item.details(of: object) else {
            throw .corrupt(path: path, reason: "\(place) has an author, url, tags, note or readAt of the wrong type")
        }
        let item = try checkedItem(
            ItemLineParser.Fields(id: id, title: title, isRead: isRead, addedAt: addedAt, revision: revision),
            at: place, listRevision: listRevision, path: path)
        return try checkedDetails(
            Item(
                id: item.id, title: item.title, isRead: item.isRead, addedAt: item.addedAt, revision: item.revision,
                author: details.author, url: details.url, tags: details.tags, note: details.note, readAt: details.readAt),
            at: place, path: path)
    }

    /// The checks a stored item's optional members get: each already in its stored form (`ItemField`), and
    /// `readAt` only on a read item.
    static func checkedDetails(_ item: Item, at place: String, path: String) throws(StorageError) -> Item {
        guard item.hasDetails else { return item }
        func stored(_ value: String?, _ validate: (String) -> Result<String?, ItemField.Problem>) -> Bool {
            guard let value else { return true }
            guard case .success(let valid?) = validate(value) else { return false }
            return valid.utf8.elementsEqual(value.utf8)
        }
        guard stored(item.author, ItemField.validateAuthor) else { throw .corrupt(path: path, reason: "\(place) has no valid \"author\"") }
        guard stored(item.url, ItemField.validateURL) else { throw .corrupt(path: path, reason: "\(place) has no valid \"url\"") }
        guard stored(item.note, ItemField.validateNote) else { throw .corrupt(path: path, reason: "\(place) has no valid \"note\"") }
        guard case .success(let tags) = ItemField.validateTags(item.tags, checkingBytes: false), tags == item.tags else {
            throw .corrupt(path: path, reason: "\(place) has no valid \"tags\" (folded, sorted, without duplicates)")
        }
        guard item.readAt == nil || item.isRead else {
            throw .corrupt(path: path, reason: "\(place) has a \"readAt\" but is not read")
        }
        return item
    }

    /// The checks every stored item gets, however it was read: a valid, already trimmed title, and a revision no
    /// higher than the list's.
    static func checkedItem(
        _ fields: ItemLineParser.Fields, at place: String, listRevision: Revision, path: String
    ) throws(StorageError) -> Item {
        guard case .success(let title) = Title.validate(fields.title, checkingBytes: false), title == fields.title else {
            throw .corrupt(path: path, reason: "\(place) has no valid \"title\"")
        }
        guard fields.revision <= listRevision else {
            throw .corrupt(path: path, reason: "\(place) has revision \(fields.revision), above the list's \(listRevision)")
        }
        return Item(id: fields.id, title: title, isRead: fields.isRead, addedAt: fields.addedAt, revision: fields.revision)
    }
}

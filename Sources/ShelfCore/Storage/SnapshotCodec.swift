import Foundation
import ShelfJSON

/// The file store's snapshot format (protocol/STORAGE.md).
///
/// Format 3, written: a header line `{"format":3,"revision":N,"items":COUNT,"list":"UUID","crc":"…"}` and then one
/// line per item, in list order, each the wire `Item` shape (`{"id","title","isRead","addedAt","revision"}`) with a
/// last member `"crc"`, the line's CRC-32C (`LineChecksum`). One item per line lets a large snapshot be parsed on
/// every core. Formats 2 (the same without `list` and `crc`) and 1 (one JSON object
/// `{"format":1,"items":[Item…],"revision":N}`) are still read; the store rewrites them as format 3 at its next
/// compaction.
public enum SnapshotCodec {
    /// The format this build writes.
    public static let format = 3

    /// What a snapshot file holds: the list, and the identity of the stored list (protocol/STORAGE.md, "Identity"):
    /// `nil` for formats 1 and 2, which have none.
    public struct Stored: Sendable, Equatable {
        /// The list at the snapshot's revision.
        public var snapshot: ListSnapshot
        /// The list's identity, from format 3's `list`.
        public var identity: UUID?
    }

    /// Encodes `snapshot` in format 3, as the list `identity`.
    public static func encode(_ snapshot: ListSnapshot, identity: UUID) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + snapshot.items.count * 180)
        let header = JSONValue.object(JSONObject([
            ("format", .number(JSONNumber(format))), ("revision", .number(JSONNumber(snapshot.revision))),
            ("items", .number(JSONNumber(snapshot.items.count))), ("list", .string(identity.wireString)),
        ]))
        JSONWriter.append(header, to: &bytes)
        LineChecksum.seal(&bytes, from: 0)
        bytes.append(0x0A)
        for item in snapshot.items {
            let start = bytes.count
            item.appendJSON(to: &bytes)
            LineChecksum.seal(&bytes, from: start)
            bytes.append(0x0A)
        }
        return bytes
    }

    /// Decodes and checks a snapshot of format 1, 2 or 3 (`decodeStored`), keeping only the list.
    /// - Throws: as `decodeStored`.
    public static func decode(_ bytes: [UInt8], path: String) throws(StorageError) -> ListSnapshot {
        try decodeStored(bytes, path: path).snapshot
    }

    /// Decodes and checks a snapshot of format 1, 2 or 3: well-formed items with valid titles, no repeated ids, no
    /// item revision above the list revision, the item count the header promises, and in format 3 every line's
    /// checksum.
    /// - Throws: `StorageError.unknownFormat`, `.duplicateID` or `.corrupt`, each naming `path` (and the line).
    public static func decodeStored(_ bytes: [UInt8], path: String) throws(StorageError) -> Stored {
        let headerEnd = bytes.firstIndex(of: 0x0A) ?? bytes.count
        let header = try? JSONParser.parse(bytes[..<headerEnd])
        if case .object(let object)? = header, let number = object["format"]?.numberValue, number.int64 == nil {
            // The first line decides by its number (protocol/STORAGE.md): `2.5` or `1e0` is no format this build
            // reads, not "not JSON". Format numbers are written as plain integers, as revisions are.
            throw .unknownFormat(path: path, format: number.text)
        }
        guard case .object(let object)? = header, let format = object["format"]?.numberValue?.int64 else {
            return Stored(snapshot: try decodeFormat1(bytes, path: path), identity: nil)
        }
        switch format {
        case 2, 3:
            // A header with no LF is a last line cut short too (a file with no items).
            guard headerEnd < bytes.count else { throw .corrupt(path: path, reason: Self.cutShort) }
            let checksummed = format == 3
            var identity: UUID?
            if checksummed {
                guard case .valid = LineChecksum.check(bytes[..<headerEnd]) else {
                    throw .corrupt(path: path, reason: Self.checksumMismatch(line: 1, offset: 0))
                }
                guard let text = object["list"]?.stringValue, let id = UUID(wireText: text) else {
                    throw .corrupt(path: path, reason: "line 1: the header needs a \"list\" id (a UUID)")
                }
                identity = id
            }
            let snapshot = try decodeLines(
                bytes, header: object, itemsStart: headerEnd + 1, checksummed: checksummed, path: path)
            return Stored(snapshot: snapshot, identity: identity)
        case 1: return Stored(snapshot: try decodeFormat1(bytes, path: path), identity: nil)
        default: throw .unknownFormat(path: path, format: String(format))
        }
    }

    /// Why a line whose checksum does not match is refused.
    static func checksumMismatch(line: Int, offset: Int) -> String {
        "line \(line), at byte \(offset), does not match its checksum (CRC-32C): the file was damaged after it was written"
    }

    /// The list revision a header or format 1 file names, refused when missing and, with its own message, when it
    /// is 2^64 − 1: a list there could take no change, and no change produces it.
    private static func listRevision(_ value: JSONValue?, path: String, missing: String) throws(StorageError) -> Revision {
        guard let revision = value?.numberValue?.uint64 else { throw .corrupt(path: path, reason: missing) }
        guard revision < .max else {
            throw .corrupt(path: path, reason: "the list revision is \(revision) (2^64 − 1), past the last one a change can produce (2^64 − 2)")
        }
        return revision
    }

    /// Why a format 2 or 3 file whose last line has no LF is refused (protocol/STORAGE.md, "Loading").
    private static let cutShort = "the last line is cut short (no newline at the end)"

    private static func decodeLines(
        _ bytes: [UInt8], header: JSONObject, itemsStart: Int, checksummed: Bool, path: String
    ) throws(StorageError) -> ListSnapshot {
        let missing = "line 1: the header needs a numeric \"revision\" and \"items\""
        guard let count = header["items"]?.numberValue?.int64 else { throw .corrupt(path: path, reason: missing) }
        let revision = try listRevision(header["revision"], path: path, missing: missing)
        guard LineChunks.endOfLastLine(bytes, from: itemsStart) == bytes.count else {
            throw .corrupt(path: path, reason: Self.cutShort)
        }
        let items = try LineChunks.map(bytes, from: itemsStart, firstLineNumber: 2) { line throws(StorageError) in
            var fast = line.bytes
            var closed = true
            if checksummed {
                switch LineChecksum.check(line.bytes) {
                case .valid(let body):
                    fast = body
                    closed = false
                case .mismatch:
                    throw .corrupt(path: path, reason: checksumMismatch(line: line.number, offset: line.bytes.startIndex))
                case .absent:
                    throw .corrupt(path: path, reason: "line \(line.number) has no checksum (a last member \"crc\")")
                }
            }
            if let fields = ItemLineParser.parse(fast, closed: closed) {
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
        let missing = "format 1 needs a numeric \"revision\" and an \"items\" array"
        guard case .array(let values)? = object["items"] else { throw .corrupt(path: path, reason: missing) }
        let revision = try listRevision(object["revision"], path: path, missing: missing)
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

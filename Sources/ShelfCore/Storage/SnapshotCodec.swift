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

    /// Encodes `snapshot` in format 3, as the list `identity`: the whole file (`Slices`, in one piece).
    public static func encode(_ snapshot: ListSnapshot, identity: UUID) -> [UInt8] {
        var slices = Slices(snapshot, identity: identity, sliceBytes: .max)
        return slices.next() ?? []
    }

    /// A format 3 encoding of one list, made a slice at a time (each of whole lines, the first with the header),
    /// so that a compaction writes a large list without holding its whole encoding: memory follows the slice, not
    /// the file. The list is iterated, not copied.
    struct Slices: IteratorProtocol {
        private var header: [UInt8]?
        private var items: ItemCollection.Iterator
        private let sliceBytes: Int
        private let sizeHint: Int

        /// - Parameter sliceBytes: a slice ends with the first line that brings it to this many bytes or more.
        init(_ snapshot: ListSnapshot, identity: UUID, sliceBytes: Int) {
            var header: [UInt8] = []
            JSONWriter.append(.object(JSONObject([
                ("format", .number(JSONNumber(format))), ("revision", .number(JSONNumber(snapshot.revision))),
                ("items", .number(JSONNumber(snapshot.items.count))), ("list", .string(identity.wireString)),
            ])), to: &header)
            LineChecksum.seal(&header, from: 0)
            header.append(0x0A)
            self.header = header
            items = snapshot.items.makeIterator()
            self.sliceBytes = sliceBytes
            sizeHint = 64 + snapshot.items.count * 180
        }

        /// The next slice; `nil` once the header and every item were given.
        mutating func next() -> [UInt8]? {
            var bytes: [UInt8] = []
            if let header {
                bytes = header
                self.header = nil
            }
            bytes.reserveCapacity(min(sizeHint, sliceBytes) + 1024)
            while bytes.count < sliceBytes, let item = items.next() {
                let start = bytes.count
                item.appendJSON(to: &bytes)
                LineChecksum.seal(&bytes, from: start)
                bytes.append(0x0A)
            }
            return bytes.isEmpty ? nil : bytes
        }
    }

    /// Decodes and checks a snapshot of format 1, 2 or 3 (`decodeStored`), keeping only the list.
    /// - Throws: as `decodeStored`.
    public static func decode(_ bytes: [UInt8], path: String) throws(StorageError) -> ListSnapshot {
        try decodeStored(bytes, path: path).snapshot
    }

    /// Decodes and checks a snapshot of format 1, 2 or 3: well-formed items with valid titles, no repeated ids, no
    /// item revision above the list revision, the item count the header promises, and in format 3 every line's
    /// checksum. The bytes are read as a file is at start-up (`decodeStored(from:blockBytes:path:)`).
    /// - Parameter blockBytes: how many bytes are taken at a time; `nil` for all of them at once.
    /// - Throws: `StorageError.unknownFormat`, `.duplicateID` or `.corrupt`, each naming `path` (and the line).
    public static func decodeStored(_ bytes: [UInt8], path: String, blockBytes: Int? = nil) throws(StorageError) -> Stored {
        var source = FileBytes.InMemory(bytes)
        return try decodeStored(from: &source, blockBytes: blockBytes ?? max(1, bytes.count), path: path)
    }

    /// Why a line whose checksum does not match is refused.
    static func checksumMismatch(line: Int, offset: Int) -> String {
        "line \(line), at byte \(offset), does not match its checksum (CRC-32C): the file was damaged after it was written"
    }

    /// The list revision a header or format 1 file names, refused when missing and, with its own message, when it
    /// is 2^64 − 1: a list there could take no change, and no change produces it.
    static func listRevision(_ value: JSONValue?, path: String, missing: String) throws(StorageError) -> Revision {
        guard let revision = value?.numberValue?.uint64 else { throw .corrupt(path: path, reason: missing) }
        guard revision < .max else {
            throw .corrupt(path: path, reason: "the list revision is \(revision) (2^64 − 1), past the last one a change can produce (2^64 − 2)")
        }
        return revision
    }

    /// Why a format 2 or 3 file whose last line has no LF is refused (protocol/STORAGE.md, "Loading").
    static let cutShort = "the last line is cut short (no newline at the end)"

    static func decodeFormat1(_ bytes: [UInt8], path: String) throws(StorageError) -> ListSnapshot {
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

    static func collect(_ items: [Item], revision: Revision, path: String) throws(StorageError) -> ListSnapshot {
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

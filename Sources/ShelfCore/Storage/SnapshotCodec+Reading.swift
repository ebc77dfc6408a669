import Foundation
import ShelfJSON

/// Reading a snapshot a block at a time (protocol/STORAGE.md, "Loading", step 3): memory follows the list, not the
/// file, as for the journal. Formats 2 and 3 are lines, parsed a block at a time on every core (`LineChunks`);
/// format 1, one JSON value, is read whole (it is rewritten as format 3 at the first start).
extension SnapshotCodec {
    /// Decodes and checks a snapshot read from `source`, `blockBytes` at a time, with the rules of
    /// `decodeStored(_:path:blockBytes:)`. A line split between two blocks is read whole; a line's offset in an
    /// error message counts from the file's first byte.
    /// - Throws: `StorageError.io` when a read fails; `.unknownFormat`, `.duplicateID` or `.corrupt`, each naming
    ///   `path` (and the line).
    static func decodeStored(
        from source: inout some BlockSource, blockBytes: Int, path: String
    ) throws(StorageError) -> Stored {
        var reader = BlockLines(source: source, blockBytes: max(1, blockBytes))
        let headerEnd = try reader.firstLineEnd()
        // Not bound to a local: a second reference to the buffer would make the first `drop` copy it.
        let header = try? JSONParser.parse(reader.bytes[..<(headerEnd ?? reader.bytes.count)])
        if case .object(let object)? = header, let number = object["format"]?.numberValue, number.int64 == nil {
            // The first line decides by its number (protocol/STORAGE.md): `2.5` or `1e0` is no format this build
            // reads, not "not JSON". Format numbers are written as plain integers, as revisions are.
            throw .unknownFormat(path: path, format: number.text)
        }
        guard case .object(let object)? = header, let format = object["format"]?.numberValue?.int64 else {
            return Stored(snapshot: try decodeFormat1(try reader.all(), path: path), identity: nil)
        }
        switch format {
        case 2, 3:
            // A header with no LF is a last line cut short too (a file with no items).
            guard let headerEnd else { throw .corrupt(path: path, reason: Self.cutShort) }
            let checksummed = format == 3
            var identity: UUID?
            if checksummed {
                guard case .valid = LineChecksum.check(reader.bytes[..<headerEnd]) else {
                    throw .corrupt(path: path, reason: Self.checksumMismatch(line: 1, offset: 0))
                }
                guard let text = object["list"]?.stringValue, let id = UUID(wireText: text) else {
                    throw .corrupt(path: path, reason: "line 1: the header needs a \"list\" id (a UUID)")
                }
                identity = id
            }
            let snapshot = try decodeLines(
                &reader, header: object, itemsStart: headerEnd + 1, checksummed: checksummed, path: path)
            return Stored(snapshot: snapshot, identity: identity)
        case 1: return Stored(snapshot: try decodeFormat1(try reader.all(), path: path), identity: nil)
        default: throw .unknownFormat(path: path, format: String(format))
        }
    }

    /// Fewer bytes than any item line holds (its five members' names and shortest values come to over 110): sizes
    /// the collection from the file's size, so a header promising more items than the file could hold reserves no
    /// more than the file could.
    private static let shortestItemLineBytes = 100

    /// The item lines from `itemsStart` on, a block at a time. Whatever the block size, the error is the same: the
    /// earliest bad line, else a last line without LF, else the item count, else the first repeated id.
    private static func decodeLines(
        _ reader: inout BlockLines<some BlockSource>, header: JSONObject, itemsStart: Int, checksummed: Bool,
        path: String
    ) throws(StorageError) -> ListSnapshot {
        let missing = "line 1: the header needs a numeric \"revision\" and \"items\""
        guard let count = header["items"]?.numberValue?.int64 else { throw .corrupt(path: path, reason: missing) }
        let revision = try listRevision(header["revision"], path: path, missing: missing)
        var items = ItemCollection(
            minimumCapacity: Int(max(0, min(count, Int64(reader.sizeHint / shortestItemLineBytes)))))
        var held = 0
        var duplicate: UUID?
        var lineNumber = 2
        var from = itemsStart
        repeat {
            let end = LineChunks.endOfLastLine(reader.bytes, from: from)
            if end > from {
                let base = reader.base
                let lines = try LineChunks.map(reader.bytes, from: from, firstLineNumber: lineNumber) { line throws(StorageError) in
                    try item(line, offset: base + line.bytes.startIndex, checksummed: checksummed, listRevision: revision, path: path)
                }
                lineNumber += lines.count
                held += lines.count
                // Reported after the count, as a whole-file read does; the first one, in file order.
                for item in lines where !items.append(item) && duplicate == nil { duplicate = item.id }
            }
            reader.drop(end)
            from = 0
        } while try reader.readBlock()
        guard reader.bytes.isEmpty else { throw .corrupt(path: path, reason: Self.cutShort) }
        guard held == count else {
            throw .corrupt(path: path, reason: "the header promises \(count) items but the file holds \(held)")
        }
        if let duplicate { throw .duplicateID(path: path, id: duplicate.wireString) }
        return ListSnapshot(revision: revision, items: items)
    }

    /// One item line of format 2 or 3 (`offset`: where it starts in the file, for the checksum's message): the
    /// dedicated reader for lines in the written layout, the general parser for any other.
    private static func item(
        _ line: LineChunks.Line, offset: Int, checksummed: Bool, listRevision revision: Revision, path: String
    ) throws(StorageError) -> Item {
        var fast = line.bytes
        var closed = true
        if checksummed {
            switch LineChecksum.check(line.bytes) {
            case .valid(let body):
                fast = body
                closed = false
            case .mismatch:
                throw .corrupt(path: path, reason: checksumMismatch(line: line.number, offset: offset))
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
        return try Self.item(from: value, at: "line \(line.number)", listRevision: revision, path: path)
    }
}

/// The bytes of a file read a block at a time: what has been read and not yet dropped, and where in the file it
/// starts. Memory is the block plus the longest line.
struct BlockLines<Source: BlockSource> {
    private var source: Source
    private let blockBytes: Int
    /// Bytes read and not dropped yet.
    private(set) var bytes: [UInt8] = []
    /// The offset in the file of `bytes[0]`.
    private(set) var base = 0

    init(source: Source, blockBytes: Int) {
        self.source = source
        self.blockBytes = blockBytes
    }

    /// The source's size, as far as known.
    var sizeHint: Int { source.sizeHint }

    /// Reads the next block onto `bytes`.
    /// - Returns: false at the end of the source.
    mutating func readBlock() throws(StorageError) -> Bool {
        try source.append(to: &bytes, count: blockBytes) > 0
    }

    /// Reads until `bytes` holds the first line's LF.
    /// - Returns: its index, or `nil` when the source ends first.
    mutating func firstLineEnd() throws(StorageError) -> Int? {
        var searched = 0
        while true {
            if let end = bytes[searched...].firstIndex(of: 0x0A) { return end }
            searched = bytes.count
            guard try readBlock() else { return nil }
        }
    }

    /// Reads to the end, and gives everything not dropped yet.
    mutating func all() throws(StorageError) -> [UInt8] {
        while try readBlock() {}
        return bytes
    }

    /// Drops the first `count` bytes, which have been read.
    mutating func drop(_ count: Int) {
        bytes.removeFirst(count)
        base += count
    }
}

import Foundation

/// The file store's snapshot format (protocol/STORAGE.md): one JSON object
/// `{"format":1,"revision":N,"items":[{"id","title","isRead","addedAt","revision"}]}` encoded and decoded with
/// Foundation's `JSONEncoder`/`JSONDecoder`.
public enum SnapshotCodec {
    /// The only `format` this build reads and writes.
    public static let format = 1

    private struct Header: Decodable {
        let format: Int
    }

    private struct File: Codable {
        let format: Int
        let revision: Revision
        let items: [StoredItem]
    }

    private struct StoredItem: Codable {
        let id: String
        let title: String
        let isRead: Bool
        let addedAt: String
        let revision: Revision
    }

    /// Encodes `snapshot` as one line of JSON with sorted keys, ending in a newline.
    /// - Throws: `StorageError.corrupt` if Foundation cannot encode it (not expected for valid items).
    public static func encode(_ snapshot: ListSnapshot, path: String) throws(StorageError) -> Data {
        let file = File(
            format: format,
            revision: snapshot.revision,
            items: snapshot.items.items.map {
                StoredItem(
                    id: $0.id.uuidString.lowercased(), title: $0.title, isRead: $0.isRead,
                    addedAt: Timestamp.format($0.addedAt), revision: $0.revision)
            })
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var data = try encoder.encode(file)
            data.append(0x0A)
            return data
        } catch {
            throw .corrupt(path: path, reason: "cannot encode: \(error)")
        }
    }

    /// Decodes and checks a snapshot: known format, well-formed items, valid titles, no repeated ids, no item
    /// revision above the list revision.
    /// - Throws: `StorageError.unknownFormat`, `.duplicateID` or `.corrupt`, each naming `path`.
    public static func decode(_ data: Data, path: String) throws(StorageError) -> ListSnapshot {
        let decoder = JSONDecoder()
        let header: Header
        do {
            header = try decoder.decode(Header.self, from: data)
        } catch {
            throw .corrupt(path: path, reason: "not a JSON object with a numeric \"format\"")
        }
        guard header.format == format else { throw .unknownFormat(path: path, format: header.format) }
        let file: File
        do {
            file = try decoder.decode(File.self, from: data)
        } catch {
            throw .corrupt(path: path, reason: describe(error))
        }
        var items: [Item] = []
        items.reserveCapacity(file.items.count)
        for (index, stored) in file.items.enumerated() {
            items.append(try item(from: stored, at: index, listRevision: file.revision, path: path))
        }
        switch ItemCollection.make(items) {
        case .success(let collection):
            return ListSnapshot(revision: file.revision, items: collection)
        case .failure(let duplicate):
            throw .duplicateID(path: path, id: duplicate.id.uuidString.lowercased())
        }
    }

    private static func item(
        from stored: StoredItem, at index: Int, listRevision: Revision, path: String
    ) throws(StorageError) -> Item {
        guard let id = UUID(uuidString: stored.id) else {
            throw .corrupt(path: path, reason: "item \(index) has id \"\(stored.id)\", which is not a UUID")
        }
        guard let addedAt = Timestamp.parse(stored.addedAt) else {
            throw .corrupt(path: path, reason: "item \(index) has addedAt \"\(stored.addedAt)\", which is not RFC 3339")
        }
        guard case .success(let title) = Title.validate(stored.title), title == stored.title else {
            throw .corrupt(path: path, reason: "item \(index) has an invalid title")
        }
        guard stored.revision <= listRevision else {
            throw .corrupt(path: path, reason: "item \(index) has revision \(stored.revision), above the list's \(listRevision)")
        }
        return Item(id: id, title: title, isRead: stored.isRead, addedAt: addedAt, revision: stored.revision)
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context),
            .valueNotFound(_, let context):
            let where_ = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return where_.isEmpty ? context.debugDescription : "\(where_): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

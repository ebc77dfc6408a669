import Foundation

/// Reads a journal record in exactly the layout `RevisionedChange.appendJSON` writes for a change whose item has
/// no optional member and no string that needs escaping — what nearly every record is — straight from its bytes,
/// without a JSON tree (protocol/STORAGE.md, "The journal (format 2)"):
/// `{"revision":N,"change":{"kind":"added"|"updated","item":{…}}}` with the item as `ItemLineParser` reads it, or
/// `{"revision":N,"change":{"kind":"removed","id":"…"}}`.
///
/// Anything else — another member order, spaces, an escape, an optional member, a number outside JSON's integer
/// form — is `nil`, and the caller reads the line with `JSONParser`, which decides it exactly; what this accepts, it
/// reads as `RevisionedChange(json:)` does (PlainRecordTests checks both on every one-byte change of a record). The
/// general reader builds a tree of some 25 values per record, and every compaction reads the journal back.
enum PlainRecord {
    /// The change `bytes` holds, or `nil` when it is outside the layout.
    /// - Parameter sealed: `bytes` is a checksummed line's body (`LineChecksum.Check.valid`), which ends where
    ///   `,"crc"` began, so without the record's closing brace; otherwise `bytes` is a whole line that has it.
    static func decode(_ bytes: ArraySlice<UInt8>, sealed: Bool) -> RevisionedChange? {
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = PlainLineCursor(bytes: buffer)
            guard let change = record(&cursor), sealed || cursor.skip("}"), cursor.atEnd else { return nil }
            return change
        }
    }

    /// The record at the cursor, without its closing brace.
    private static func record(_ cursor: inout PlainLineCursor) -> RevisionedChange? {
        guard cursor.skip(#"{"revision":"#), let revision = cursor.wholeNumber(), cursor.skip(#","change":{"kind":""#)
        else { return nil }
        if cursor.skip(#"removed","id":""#) {
            guard let idText = cursor.plainString(), idText.count == 36, let id = UUID(wireBytes: idText), cursor.skip("}")
            else { return nil }
            return RevisionedChange(revision: revision, change: .removed(id))
        }
        let added: Bool
        if cursor.skip(#"added","item":"#) {
            added = true
        } else if cursor.skip(#"updated","item":"#) {
            added = false
        } else {
            return nil
        }
        guard let fields = ItemLineParser.fields(&cursor), cursor.skip("}}") else { return nil }
        let item = Item(
            id: fields.id, title: fields.title, isRead: fields.isRead, addedAt: fields.addedAt, revision: fields.revision)
        return RevisionedChange(revision: revision, change: added ? .added(item) : .updated(item))
    }
}

import Foundation

/// Reads a stored item line laid out exactly as `Item.appendJSON` writes it —
/// `{"id":"…","title":"…","isRead":true|false,"addedAt":"…","revision":N}`, no whitespace, no escapes in the
/// strings — without building a `JSONValue`: start-up reads a million of them.
///
/// Anything else (another member order, whitespace, an escape, invalid UTF-8, a number that is not plain digits)
/// gives `nil`, and the caller parses the line as general JSON, which accepts every valid layout and says what is
/// wrong with an invalid one. So this only ever accepts lines the general path accepts, with the same fields.
enum ItemLineParser {
    /// The members of one item line, before the checks every stored item gets (`SnapshotCodec.checkedItem`).
    struct Fields {
        let id: UUID
        let title: String
        let isRead: Bool
        let addedAt: Date
        let revision: Revision
    }

    /// - Parameter closed: whether the line ends with the object's `}`; `false` for the body of a checksummed line
    ///   (`LineChecksum.Check.valid`), which ends right after the revision's digits.
    static func parse(_ line: ArraySlice<UInt8>, closed: Bool = true) -> Fields? {
        line.withUnsafeBufferPointer { buffer -> Fields? in
            var cursor = PlainLineCursor(bytes: buffer)
            guard let fields = fields(&cursor), !closed || cursor.skip("}"), cursor.atEnd else { return nil }
            return fields
        }
    }

    /// Reads `{"id":"…","title":"…","isRead":…,"addedAt":"…","revision":N` at the cursor, up to the revision's
    /// digits (the closing brace is the caller's); `nil` when the bytes there are outside the layout.
    static func fields(_ cursor: inout PlainLineCursor) -> Fields? {
        guard cursor.skip(#"{"id":""#), let idText = cursor.plainString(), idText.count == 36,
              let id = UUID(wireBytes: idText),
              cursor.skip(#","title":""#), let titleBytes = cursor.plainString(),
              let title = String(validating: titleBytes, as: UTF8.self),
              cursor.skip(#","isRead":"#), let isRead = cursor.boolean(),
              cursor.skip(#","addedAt":""#), let addedText = cursor.plainString(),
              let milliseconds = Timestamp.parseMilliseconds(addedText),
              cursor.skip(#","revision":"#), let revision = cursor.wholeNumber()
        else { return nil }
        return Fields(
            id: id, title: title, isRead: isRead, addedAt: Timestamp.date(milliseconds: milliseconds), revision: revision)
    }
}

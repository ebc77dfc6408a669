/// An item's text members folded once for `ItemQuery`'s text search, so a client that filters a list it holds as
/// the user types (the live view's `/`) searches bytes instead of folding every item on every key.
///
/// The key is the title, author, note, url and tags, each folded by `ItemQuery`'s rule (ASCII lowercased, other
/// text folded by Foundation, case and diacritics ignored), each followed by a NUL byte. A `Needle` occurs in the key
/// exactly when `ItemQuery(text:)` matches the item: the query folds each member the same way and searches the
/// same bytes, and a needle with a NUL byte (which could match across two members) is refused by `Needle.init`.
public enum ItemSearchKey {
    /// Appends `item`'s key to `bytes`.
    public static func append(_ item: Item, to bytes: inout [UInt8]) {
        appendFolded(item.title, to: &bytes)
        if let author = item.author { appendFolded(author, to: &bytes) }
        if let note = item.note { appendFolded(note, to: &bytes) }
        if let url = item.url { appendFolded(url, to: &bytes) }
        for tag in item.tags { appendFolded(tag, to: &bytes) }
    }

    /// Appends `text` folded by `ItemQuery`'s rule, then a NUL byte.
    static func appendFolded(_ text: String, to bytes: inout [UInt8]) {
        ItemQuery.Matcher.appendFolded(text, to: &bytes)
        bytes.append(0)
    }

    /// A query's text folded once, with its search table, to look for in keys.
    public struct Needle: Sendable {
        let bytes: [UInt8]
        let failure: [Int]

        /// The needle of `ItemQuery(text: text)`; `nil` when the folded text is empty (every item matches) or holds
        /// a NUL byte (search the items with `ItemQuery.matches` instead).
        public init?(_ text: String) {
            let bytes = Array(ItemQuery.Matcher.fold(text).utf8)
            guard !bytes.isEmpty, !bytes.contains(0) else { return nil }
            self.bytes = bytes
            failure = ItemQuery.Matcher.failureTable(bytes)
        }

        /// Whether the needle occurs in `key` (one item's key, `ItemSearchKey.append`).
        public func occurs(in key: UnsafeBufferPointer<UInt8>) -> Bool {
            var fallbacks = 0
            return ItemQuery.Matcher.asciiSearch(key, bytes, failure, fallbacks: &fallbacks)
        }
    }
}

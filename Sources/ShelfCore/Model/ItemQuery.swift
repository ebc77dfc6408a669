import Foundation

/// What `list` asks for (protocol/PROTOCOL.md §5, `list`): a read-state filter, a text search, tags that must all be
/// present, an order, and a page (`limit` items after the `cursor` item). The same rules serve the server's `list`
/// and any client that filters a list it holds, so both find the same items.
public struct ItemQuery: Sendable, Equatable, Hashable {
    /// An order of `list` (`sort`: `added`, the default and the list's own order, `title`, `author`, `readAt`; a
    /// leading `-` for descending). Items without the key (no author, never read) come last either way; ties keep the
    /// list's order.
    public struct Sort: Sendable, Equatable, Hashable {
        /// What items are ordered by; the raw value is the wire name.
        public enum Key: String, Sendable, CaseIterable {
            /// The list's own order (when each item was added).
            case added
            /// The title, ignoring case and diacritics.
            case title
            /// The author, ignoring case and diacritics; items without one last.
            case author
            /// When the item was last read; unread items last.
            case readAt
        }
        /// What items are ordered by.
        public var key: Key
        /// Whether the order is reversed (`-` on the wire); items without the key stay last.
        public var descending: Bool

        /// An order by `key`, ascending unless `descending`.
        public init(_ key: Key = .added, descending: Bool = false) {
            self.key = key
            self.descending = descending
        }

        /// The list's own order.
        public static let added = Sort()

        /// Reads `added`, `-title`, …; `nil` for anything else.
        public init?(wire text: String) {
            let descending = text.hasPrefix("-")
            guard let key = Key(rawValue: descending ? String(text.dropFirst()) : text) else { return nil }
            self.init(key, descending: descending)
        }

        /// As sent: `added`, `-title`, ….
        public var wire: String { (descending ? "-" : "") + key.rawValue }
    }

    /// Which items by read state: all, read or unread.
    public var filter: ListFilter
    /// Case- and diacritic-insensitive text that must occur in the title, author, note, url or a tag; `nil` for any.
    public var text: String?
    /// Tags that must all be present (compared folded, as stored).
    public var tags: [String]
    /// The order of the selected items; `.added` (the list's own) by default.
    public var sort: Sort
    /// The most items in one reply; `nil` for all.
    public var limit: Int?
    /// Start after this item (the previous reply's `next`); `nil` from the start.
    public var cursor: UUID?

    /// A query; by default every item in the list's order.
    public init(
        filter: ListFilter = .all, text: String? = nil, tags: [String] = [], sort: Sort = .added, limit: Int? = nil,
        cursor: UUID? = nil
    ) {
        self.filter = filter
        self.text = text
        self.tags = tags
        self.sort = sort
        self.limit = limit
        self.cursor = cursor
    }

    /// Every item, in the list's order.
    public static let all = ItemQuery()
    /// Read items only.
    public static let read = ItemQuery(filter: .read)
    /// Unread items only.
    public static let unread = ItemQuery(filter: .unread)

    /// The most items `limit` may ask for.
    public static let maxLimit = 100_000
    /// The longest `text`, in characters (grapheme clusters).
    public static let maxTextLength = 256
    /// The longest `text` in UTF-8 bytes: with `maxTextLength`, what bounds the work of a search that is not ASCII.
    public static let maxTextBytes = 1_024

    /// About how much work running the query over `items` takes, in bytes compared: the bytes of text searched (an
    /// ASCII search is linear), times the needle's bytes when the needle is not ASCII (a margin for folding text first);
    /// one per item when there is no text. Without reading any text: a native string knows its UTF-8 length. For
    /// deciding where a search runs, not for a limit.
    public func estimatedWork(over items: ItemCollection) -> Int {
        guard let needle = Matcher(self).needle else { return items.count }
        let factor = needle.isASCII ? 1 : needle.bytes.count
        var bytes = 0
        for item in items {
            bytes += item.title.utf8.count + (item.author?.utf8.count ?? 0) + (item.note?.utf8.count ?? 0)
                + (item.url?.utf8.count ?? 0)
            for tag in item.tags { bytes += tag.utf8.count }
        }
        return bytes * factor
    }

    /// Whether the query is a filter alone (the server then serves its cached encoding).
    public var isFilterOnly: Bool {
        text == nil && tags.isEmpty && sort == .added && limit == nil && cursor == nil
    }

    /// The cursor item is not among the items the query selects (removed, or changed so it no longer matches).
    public struct CursorGone: Error, Equatable {
        /// The cursor given.
        public let cursor: UUID

        public init(cursor: UUID) {
            self.cursor = cursor
        }
    }

    /// Runs the query over `items` (in the list's order).
    /// - Returns: the page, and the id to pass as the next `cursor` when more items follow it.
    /// - Throws: `CursorGone` when `cursor` names an item the query does not select.
    public func run(on items: ItemCollection) throws(CursorGone) -> (page: [Item], next: UUID?) {
        try run(over: items)
    }

    /// `run(on:)` over items in an array (a client's copy of the list).
    public func run(on items: [Item]) throws(CursorGone) -> (page: [Item], next: UUID?) {
        try run(over: items)
    }

    /// Generic in this module only, where each call is specialised: unspecialised, iterating the pages went through
    /// run-time metadata lookups that cost more than the search itself.
    private func run<Items: Sequence<Item>>(over items: Items) throws(CursorGone) -> (page: [Item], next: UUID?) {
        let matcher = Matcher(self)
        var selected = items.filter { matcher.matches($0) }
        if sort != .added || sort.descending { selected = sorted(selected) }
        var start = selected.startIndex
        if let cursor {
            guard let index = selected.firstIndex(where: { $0.id == cursor }) else { throw CursorGone(cursor: cursor) }
            start = index + 1
        }
        let end = limit.map { min(selected.endIndex, start + $0) } ?? selected.endIndex
        let page = Array(selected[start..<end])
        return (page, end < selected.endIndex ? page.last?.id : nil)
    }

    /// Whether `item` passes the filter, the text and the tags; `Matcher` prepares the query once for many items.
    public func matches(_ item: Item) -> Bool {
        Matcher(self).matches(item)
    }

    private func sorted(_ items: [Item]) -> [Item] {
        let keyed: [(index: Int, key: [UInt8]?, date: Date?)] = items.enumerated().map { index, item in
            switch sort.key {
            case .added: (index, nil, nil)
            case .title: (index, Self.sortKey(item.title), nil)
            case .author: (index, item.author.map(Self.sortKey), nil)
            case .readAt: (index, nil, item.readAt)
            }
        }
        let descending = sort.descending
        let order = keyed.sorted { a, b in
            switch sort.key {
            case .added:
                return descending ? a.index > b.index : a.index < b.index
            case .title, .author:
                switch (a.key, b.key) {
                case (let x?, let y?) where x != y: return descending ? y.lexicographicallyPrecedes(x) : x.lexicographicallyPrecedes(y)
                case (nil, _?): return false
                case (_?, nil): return true
                default: return a.index < b.index
                }
            case .readAt:
                switch (a.date, b.date) {
                case (let x?, let y?) where x != y: return descending ? x > y : x < y
                case (nil, _?): return false
                case (_?, nil): return true
                default: return a.index < b.index
                }
            }
        }
        return order.map { items[$0.index] }
    }

    /// A key that sorts text case- and diacritic-insensitively: ASCII lowercased byte by byte, anything else
    /// folded by Foundation first.
    static func sortKey(_ text: String) -> [UInt8] {
        var key: [UInt8] = []
        Matcher.appendFolded(text, to: &key)
        return key
    }

    /// The query's text and tags prepared once (the text folded, its search table built), then checked against
    /// each item: what `matches(_:)` builds per call, for a client that checks many items against one query.
    package struct Matcher: Sendable {
        /// Appends `text` folded by the search rule: ASCII text lowercased byte by byte, anything else through
        /// `fold` (case and diacritics). The one rule for sort keys and search keys.
        static func appendFolded(_ text: String, to bytes: inout [UInt8]) {
            var text = text
            let ascii = text.withUTF8 { utf8 -> Bool in
                guard utf8.allSatisfy({ $0 < 0x80 }) else { return false }
                bytes.append(contentsOf: utf8.lazy.map(lowerASCII))
                return true
            }
            if !ascii { bytes.append(contentsOf: fold(text).utf8) }
        }

        /// The query's text folded, with what searching for it takes; one value, so that they cannot disagree.
        struct Needle {
            /// The folded text's UTF-8; never empty.
            let bytes: [UInt8]
            /// Whether `bytes` is all ASCII: only then can the needle occur in ASCII text.
            let isASCII: Bool
            /// The Knuth–Morris–Pratt failure table of `bytes` (see `asciiSearch`).
            let failure: [Int]

            /// `text` folded; `nil` when it folds to nothing (every text holds it).
            init?(_ text: String) {
                let bytes = Array(Matcher.fold(text).utf8)
                guard !bytes.isEmpty else { return nil }
                self.bytes = bytes
                isASCII = bytes.allSatisfy { $0 < 0x80 }
                failure = Matcher.failureTable(bytes)
            }

            /// Whether `text` holds the needle, ignoring case and diacritics: ASCII text is searched byte by byte
            /// (folding ASCII changes only case, so only an ASCII needle can occur in it), other text folded by
            /// Foundation first, then searched the same way: the rule `ItemSearchKey` keeps for clients that fold
            /// once.
            func occurs(in text: String) -> Bool {
                var text = text
                let ascii = text.withUTF8 { haystack -> Bool? in
                    guard haystack.allSatisfy({ $0 < 0x80 }) else { return nil }
                    guard isASCII, bytes.count <= haystack.count else { return false }
                    var fallbacks = 0
                    return Matcher.asciiSearch(haystack, bytes, failure, fallbacks: &fallbacks)
                }
                if let ascii { return ascii }
                var folded = Matcher.fold(text)
                return folded.withUTF8 { haystack in
                    var fallbacks = 0
                    return Matcher.asciiSearch(haystack, bytes, failure, fallbacks: &fallbacks)
                }
            }
        }

        let filter: ListFilter
        /// The text to look for; `nil` when the query has none or it folds to nothing.
        let needle: Needle?
        let tags: Set<String>

        /// `query`'s read-state filter, text and tags prepared; its order and page are not used.
        package init(_ query: ItemQuery) {
            filter = query.filter
            needle = query.text.flatMap(Needle.init)
            tags = Set(query.tags.map { $0.lowercased() })
        }

        /// Whether `item` passes the filter, the text and the tags: `ItemQuery.matches(_:)`.
        package func matches(_ item: Item) -> Bool {
            guard filter.includes(item) else { return false }
            if !tags.isEmpty, !tags.isSubset(of: item.tags) { return false }
            guard let needle else { return true }
            if needle.occurs(in: item.title) { return true }
            if let author = item.author, needle.occurs(in: author) { return true }
            if let note = item.note, needle.occurs(in: note) { return true }
            if let url = item.url, needle.occurs(in: url) { return true }
            return item.tags.contains(where: needle.occurs(in:))
        }

        /// `failure[i]` is the length of the longest proper prefix of `needle[...i]` that is also a suffix of it.
        static func failureTable(_ needle: [UInt8]) -> [Int] {
            var table = [Int](repeating: 0, count: needle.count)
            var matched = 0
            for index in needle.indices.dropFirst() {
                while matched > 0, needle[index] != needle[matched] { matched = table[matched - 1] }
                if needle[index] == needle[matched] { matched += 1 }
                table[index] = matched
            }
            return table
        }

        /// Whether the lowercase ASCII `needle` occurs in `haystack`, ASCII lowercased byte by byte as it is read:
        /// Knuth–Morris–Pratt, so each haystack byte is read once and at most as many fallbacks are taken in all,
        /// whatever the needle (a naive search takes up to haystack × needle steps: minutes for a list of long
        /// notes). While nothing is matched it skips to the next byte that can start a match, as fast as a naive
        /// search on the usual short text.
        /// - Parameter fallbacks: incremented for each fallback taken, for tests.
        static func asciiSearch(
            _ haystack: UnsafeBufferPointer<UInt8>, _ needle: [UInt8], _ failure: [Int], fallbacks: inout Int
        ) -> Bool {
            guard !needle.isEmpty else { return true }
            guard needle.count <= haystack.count else { return false }
            return needle.withUnsafeBufferPointer { needle in
                failure.withUnsafeBufferPointer { failure in
                    let first = needle[0]
                    let count = haystack.count
                    // No match can start after this.
                    let lastStart = count - needle.count
                    var matched = 0
                    var index = 0
                    while index < count {
                        if matched == 0 {
                            while index <= lastStart, lowerASCII(haystack[index]) != first { index += 1 }
                            guard index <= lastStart else { return false }
                        }
                        let lowered = lowerASCII(haystack[index])
                        while matched > 0, needle[matched] != lowered {
                            matched = failure[matched - 1]
                            fallbacks += 1
                        }
                        if needle[matched] == lowered {
                            matched += 1
                            if matched == needle.count { return true }
                        }
                        index += 1
                    }
                    return false
                }
            }
        }

        static func lowerASCII(_ byte: UInt8) -> UInt8 {
            (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
        }

        static func fold(_ text: String) -> String {
            text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        }
    }
}

/// Which items `list` returns by read state (protocol/PROTOCOL.md §5, `list`).
public enum ListFilter: String, Sendable, CaseIterable {
    /// Every item; only read ones; only unread ones.
    case all, read, unread

    /// Whether `item` belongs in a `list` with this filter.
    public func includes(_ item: Item) -> Bool {
        switch self {
        case .all: true
        case .read: item.isRead
        case .unread: !item.isRead
        }
    }
}

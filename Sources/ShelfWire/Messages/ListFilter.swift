/// Which items `list` returns (protocol/PROTOCOL.md, `list`).
public enum ListFilter: String, Sendable, CaseIterable {
    /// Every item; only read ones; only unread ones.
    case all, read, unread
}

/// Which items `list` returns (protocol/PROTOCOL.md, `list`).
public enum ListFilter: String, Sendable, CaseIterable {
    case all, read, unread
}

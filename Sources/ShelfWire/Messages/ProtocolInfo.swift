/// Versions announced by `hello` (protocol/PROTOCOL.md, `hello`).
public enum ProtocolInfo {
    /// The wire protocol version; bumped only for incompatible changes.
    public static let protocolVersion = 1
    /// The software version of `shelfd` and `shelf` (`--version`).
    public static let serverVersion = "0.1.0"
    /// What this server offers beyond protocol 1's first methods, listed by `hello` as `features` so a client can
    /// tell before it sends (protocol/PROTOCOL.md §5): `item-details` (author, url, tags, note, readAt), `update`,
    /// `expect-item`, `list-query` (query, tag, sort, limit, cursor), `add-origin` (`add` keeps an `id`, `addedAt`,
    /// `isRead` and `readAt` given to it, for imports).
    public static let features = ["item-details", "update", "expect-item", "list-query", "add-origin"]
    /// The port `shelfd` listens on and `shelf` connects to by default.
    public static let defaultPort: UInt16 = 7453
}

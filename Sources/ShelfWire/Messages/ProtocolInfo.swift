/// Versions announced by `hello` (protocol/PROTOCOL.md, `hello`).
public enum ProtocolInfo {
    /// The wire protocol version; bumped only for incompatible changes.
    public static let protocolVersion = 1
    /// The software version of `shelfd` and `shelf` (`--version`).
    public static let serverVersion = "0.1.0"
    /// The port `shelfd` listens on and `shelf` connects to by default.
    public static let defaultPort: UInt16 = 7453
}

import Glibc

/// A TCP endpoint written as `HOST:PORT`, with IPv6 hosts in brackets: `127.0.0.1:7453`, `[::1]:7453`,
/// `localhost:0`.
///
/// `host` is stored without brackets. It may be a numeric IPv4/IPv6 address or a name that is resolved when
/// listening or connecting.
public struct HostPort: Sendable, Equatable, CustomStringConvertible {
    /// The host: a numeric address (IPv6 without brackets) or a name such as `localhost`.
    public var host: String
    /// The TCP port, 0...65535; 0 asks `TCPListener.listen` to pick a free port.
    public var port: UInt16

    /// Creates an address from its parts; `host` is taken as is (write IPv6 addresses without brackets).
    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// `HOST:PORT`, putting IPv6 hosts (any host containing `:`) in brackets again: `[::1]:7453`.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// True for hosts that can only be reached from this machine: `localhost`, `127.0.0.0/8`, `::1`
    /// and IPv4-mapped `::ffff:127.0.0.0/104`. Names other than `localhost` are never considered loopback
    /// (no lookup is made).
    public var isLoopback: Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered == "localhost." { return true }
        if let v4 = IPv4Literal(host) { return v4.firstOctet == 127 }
        if let v6 = IPv6Literal(host) { return v6.isLoopback }
        return false
    }
}

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

/// A numeric IPv4 address parsed with `inet_pton`.
struct IPv4Literal {
    var address: in_addr

    init?(_ text: String) {
        var parsed = in_addr()
        guard inet_pton(AF_INET, text, &parsed) == 1 else { return nil }
        address = parsed
    }

    /// The first octet (network byte order is big-endian, so it is the lowest-addressed byte).
    var firstOctet: UInt8 {
        withUnsafeBytes(of: address) { $0[0] }
    }
}

/// A numeric IPv6 address parsed with `inet_pton`.
struct IPv6Literal {
    var address: in6_addr

    init?(_ text: String) {
        var parsed = in6_addr()
        guard inet_pton(AF_INET6, text, &parsed) == 1 else { return nil }
        address = parsed
    }

    /// `::1`, or an IPv4-mapped `::ffff:127.x.y.z`.
    var isLoopback: Bool {
        let bytes = withUnsafeBytes(of: address) { Array($0) }
        let isZeroPrefix = bytes[0..<10].allSatisfy { $0 == 0 }
        if isZeroPrefix && bytes[10..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        return isZeroPrefix && bytes[10] == 0xff && bytes[11] == 0xff && bytes[12] == 127
    }
}

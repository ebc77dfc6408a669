import Glibc

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

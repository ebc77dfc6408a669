import Glibc

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

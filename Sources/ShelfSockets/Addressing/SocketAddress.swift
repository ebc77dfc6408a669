import Glibc

/// A concrete IPv4 or IPv6 socket address (`sockaddr_in` / `sockaddr_in6` inside a `sockaddr_storage`).
struct SocketAddress: Sendable, CustomStringConvertible {
    private var storage: sockaddr_storage
    private(set) var length: socklen_t

    /// `AF_INET` or `AF_INET6`.
    var family: Int32 { Int32(storage.ss_family) }

    /// A numeric IPv4 or IPv6 host; nil when `host` is a name that needs a lookup.
    init?(numericHost host: String, port: UInt16) {
        storage = sockaddr_storage()
        if let v4 = IPv4Literal(host) {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr = v4.address
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
        } else if let v6 = IPv6Literal(host) {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = v6.address
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in6.self) }
        } else {
            return nil
        }
    }

    /// Copies an address returned by the kernel (`accept4`, `getsockname`, `getaddrinfo`); nil unless IPv4/IPv6.
    init?(copying address: UnsafePointer<sockaddr>, length: socklen_t) {
        let family = Int32(address.pointee.sa_family)
        guard family == AF_INET || family == AF_INET6,
              Int(length) <= MemoryLayout<sockaddr_storage>.size else { return nil }
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(length)))
        }
        self.storage = storage
        self.length = length
    }

    /// Reads the local (`getsockname`) or remote (`getpeername`) address of `fd`.
    /// - Throws: `SocketError.failed(call:errno:)` naming `call`.
    static func query(
        _ fd: Int32,
        call: String,
        _ syscall: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32
    ) throws(SocketError) -> SocketAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { syscall(fd, $0, &length) }
        }
        guard rc == 0 else { throw SocketError.lastError(call) }
        let copied = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress(copying: $0, length: length) }
        }
        guard let copied else { throw SocketError.failed(call: call, errno: EAFNOSUPPORT) }
        return copied
    }

    /// Calls `body` with the address as `sockaddr*` and its length in bytes.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    /// The numeric host (IPv6 without brackets) and port.
    var hostPort: HostPort {
        withUnsafeBytes(of: storage) { raw in
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            if family == AF_INET {
                var address = raw.loadUnaligned(as: sockaddr_in.self)
                _ = inet_ntop(AF_INET, &address.sin_addr, &text, socklen_t(text.count))
                return HostPort(host: Self.string(from: text), port: UInt16(bigEndian: address.sin_port))
            }
            var address = raw.loadUnaligned(as: sockaddr_in6.self)
            _ = inet_ntop(AF_INET6, &address.sin6_addr, &text, socklen_t(text.count))
            return HostPort(host: Self.string(from: text), port: UInt16(bigEndian: address.sin6_port))
        }
    }

    /// `127.0.0.1:54321` or `[::1]:5`.
    var description: String { hostPort.description }

    private static func string(from text: [CChar]) -> String {
        let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

import Glibc

/// Turns a `HostPort` into socket addresses: numeric hosts directly, names through `getaddrinfo`.
enum AddressResolver {
    /// Resolves without blocking the caller's thread: numeric hosts need no lookup, names are looked up on a
    /// short-lived dedicated thread (never on the Swift cooperative pool).
    /// - Returns: the addresses in `getaddrinfo` order (at least one).
    /// - Throws: `SocketError.addressResolution` or `.failed(call: "getaddrinfo" | "pthread_create", errno:)`.
    static func resolve(_ address: HostPort) async throws(SocketError) -> [SocketAddress] {
        if let numeric = SocketAddress(numericHost: address.host, port: address.port) { return [numeric] }
        let result: Result<[SocketAddress], SocketError> = await withCheckedContinuation { continuation in
            do throws(SocketError) {
                try DetachedThread.start(named: "shelf-resolve") { @Sendable in
                    continuation.resume(returning: Result { () throws(SocketError) in
                        try resolveBlocking(address, passive: false)
                    })
                }
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
        return try result.get()
    }

    /// Resolves on the calling thread; a name lookup may block (use only at startup, e.g. for `listen`).
    /// - Parameter passive: true for an address to bind (`AI_PASSIVE`).
    /// - Returns: the IPv4/IPv6 addresses in `getaddrinfo` order (at least one).
    /// - Throws: `SocketError.addressResolution` or `.failed(call: "getaddrinfo", errno:)` for `EAI_SYSTEM`.
    static func resolveBlocking(_ address: HostPort, passive: Bool) throws(SocketError) -> [SocketAddress] {
        if let numeric = SocketAddress(numericHost: address.host, port: address.port) { return [numeric] }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(address.host, String(address.port), &hints, &list)
        if rc == EAI_SYSTEM { throw SocketError.lastError("getaddrinfo") }
        guard rc == 0 else {
            throw SocketError.addressResolution(host: address.host, message: String(cString: gai_strerror(rc)))
        }
        defer { freeaddrinfo(list) }
        var found: [SocketAddress] = []
        var cursor = list
        while let entry = cursor {
            if let raw = entry.pointee.ai_addr,
               let converted = SocketAddress(copying: raw, length: entry.pointee.ai_addrlen) {
                found.append(converted)
            }
            cursor = entry.pointee.ai_next
        }
        guard !found.isEmpty else {
            throw SocketError.addressResolution(host: address.host, message: "no IPv4 or IPv6 address")
        }
        return found
    }
}

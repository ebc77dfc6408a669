import ShelfSockets
import ShelfWire

/// What `shelfd` is told on its command line (README, "Flags"; protocol/PROTOCOL.md, "Limits").
public struct ServerConfiguration: Sendable, Equatable {
    /// Where to listen; port 0 picks a free port. Default `127.0.0.1:7453`.
    public var listen: HostPort
    /// The longest request line accepted, in bytes, LF excluded; a longer line is answered with one -32600 error
    /// and discarded. Default 1 MiB.
    public var maxLineBytes: Int
    /// Requests one connection may have read but not yet answered; past it the session stops reading (backpressure).
    public var maxPendingRequests: Int

    public init(
        listen: HostPort = HostPort(host: "127.0.0.1", port: ProtocolInfo.defaultPort),
        maxLineBytes: Int = LineFramer.defaultMaxLineBytes,
        maxPendingRequests: Int = 1024
    ) {
        self.listen = listen
        self.maxLineBytes = maxLineBytes
        self.maxPendingRequests = maxPendingRequests
    }
}

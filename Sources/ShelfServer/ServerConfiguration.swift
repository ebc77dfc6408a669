import ShelfCore
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
    /// Notification bytes one connection may have queued before it is cut off as a slow consumer. Default 8 MiB.
    public var maxOutboundBytes: Int
    /// Recent changes kept so that `watch` can resume from a revision. Default 10,000.
    public var historyLimit: Int

    public init(
        listen: HostPort = HostPort(host: "127.0.0.1", port: ProtocolInfo.defaultPort),
        maxLineBytes: Int = LineFramer.defaultMaxLineBytes,
        maxPendingRequests: Int = 1024,
        maxOutboundBytes: Int = 8 << 20,
        historyLimit: Int = ReadingList.defaultHistoryLimit
    ) {
        self.listen = listen
        self.maxLineBytes = maxLineBytes
        self.maxPendingRequests = maxPendingRequests
        self.maxOutboundBytes = maxOutboundBytes
        self.historyLimit = historyLimit
    }
}

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
    /// The most bytes those kept changes may take, by `ChangeHistory.estimatedBytes(of:)` (a change's item as
    /// JSON plus 64); the oldest are dropped first. Default 64 MiB.
    public var historyBytes = ChangeHistory.defaultByteLimit
    /// The most bytes the server holds for all its peers together: unfinished request lines and queued replies and
    /// notifications (protocol/PROTOCOL.md §10). A connection that asks for more while they are at it is closed
    /// with a `closing` notification (`memory_limit`); a watcher whose change would pass it is cut off as a slow
    /// consumer. Default 256 MiB.
    public var maxMemoryBytes = ServerConfiguration.defaultMaxMemoryBytes
    /// Connections served at once; the next one gets one `too_many_connections` error line and is closed.
    /// Default 1024.
    public var maxConnections: Int
    /// Connections that send nothing for this long are closed with a `closing` notification (`idle_timeout`);
    /// `nil` (the default) never closes them. Watching connections are exempt.
    public var idleTimeout: Duration?
    /// When set, every connection must `auth` with this token before anything but `hello` and `ping`.
    public var token: String?
    /// With a token: how long a connection may stay without a successful `auth` before it gets a `closing`
    /// notification (`auth_timeout`) and is closed, counted from its accept (protocol/PROTOCOL.md §12; NATS's
    /// `authorization.timeout`, PostgreSQL's `authentication_timeout`). Default 10 s: time to paste an `auth` line
    /// into `nc` by hand, while a connection that never authenticates is gone soon.
    public var authTimeout: Duration = .seconds(10)
    /// With a token: connections that may be unauthenticated at once; when one more is accepted, the oldest of them
    /// is closed (`closing`, `too_many_unauthenticated`) to make room (`UnauthenticatedConnections`). Default 64.
    public var maxUnauthenticated = 64
    /// The spacing of a guessing address's `auth` checks after its free failures, doubling up to `guessMaxDelay`
    /// (`GuessThrottle`). Not flags: tests shorten them.
    var guessBaseDelay: Duration = .milliseconds(250)
    var guessMaxDelay: Duration = .seconds(8)
    /// `--verbose`: log every connection as it opens and closes. Off by default, as in Redis (its `verbose` log
    /// level) and NATS: `shelf` opens a connection per command. A connection that ends for a reason (cut off as a
    /// slow consumer, idle, a write error) is logged either way.
    public var logsConnections = false
    /// The most bytes a session reads at once, in bytes; a read that comes back this full lets the event loop serve
    /// other connections first. Not a flag: tests make it tiny, so that a fast sender fills every read.
    var readChunkBytes = 65_536
    /// How long one write may wait for the peer to read before the connection is closed and logged as `write timed
    /// out` (protocol/PROTOCOL.md §10). Not a flag: tests make it short. Default 60 s.
    var writeTimeout: Duration = .seconds(60)

    /// The default `maxMemoryBytes`: 256 MiB. Room for 32 connections with full 8 MiB outbound queues, or 256
    /// unfinished lines of the 1 MiB maximum, which a household or LAN server never needs at once, while a 2-core
    /// machine with a few GiB of memory stays well clear of swapping.
    public static let defaultMaxMemoryBytes = 256 << 20

    /// A configuration with the defaults documented on each property (README, "shelfd").
    public init(
        listen: HostPort = HostPort(host: "127.0.0.1", port: ProtocolInfo.defaultPort),
        maxLineBytes: Int = LineFramer.defaultMaxLineBytes,
        maxPendingRequests: Int = 1024,
        maxOutboundBytes: Int = 8 << 20,
        historyLimit: Int = ReadingList.defaultHistoryLimit,
        maxConnections: Int = 1024,
        idleTimeout: Duration? = nil,
        token: String? = nil
    ) {
        self.listen = listen
        self.maxLineBytes = maxLineBytes
        self.maxPendingRequests = maxPendingRequests
        self.maxOutboundBytes = maxOutboundBytes
        self.historyLimit = historyLimit
        self.maxConnections = maxConnections
        self.idleTimeout = idleTimeout
        self.token = token
    }
}

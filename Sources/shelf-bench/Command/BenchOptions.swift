import ShelfSockets

/// What one `shelf-bench` run does, as its command line asked.
struct BenchOptions: Sendable, Equatable {
    /// The three things the tool can do.
    enum Mode: Sendable, Equatable {
        /// Closed-loop load: `connections` x `pipeline` requests in flight, one new request per reply.
        case load
        /// Open this many connections and keep them open (idle-memory measurements).
        case hold(connections: Int)
        /// This many watching connections count notifications while the load runs as the writer.
        case watch(watchers: Int)
    }

    /// How the server's replies are delimited.
    enum Framing: String, Sendable, Equatable {
        /// One reply per LF-terminated line (JSON-RPC over shelfd; Redis's one-line replies such as `:5`).
        case line
        /// RESP frames: `+`, `-`, `:` lines, `$len` bulk strings and `*count` arrays, nested (Redis).
        case resp
    }

    var mode: Mode = .load
    var server = HostPort(host: "127.0.0.1", port: 7453)
    var connections = 1
    var pipeline = 1
    /// Measured time (load, watch) or holding time (hold).
    var duration: Duration = .seconds(5)
    /// Time before measuring starts (load only).
    var warmup: Duration = .seconds(1)
    /// Stop after this many replies in all instead of after `duration` (load only; no warm-up then).
    var requests: Int?
    /// The request line without its LF; `{n}` is replaced by the counter. `nil`: the mode's default.
    var template: String?
    /// The first counter value.
    var start = 1
    /// Lines sent once on every load connection before the run, each waiting for its reply (e.g. `auth`).
    var setupLines: [String] = []
    var framing: Framing = .line
    /// What each watcher sends to start watching (watch only).
    var watchLine = #"{"id":"watch","method":"watch"}"#
    /// The whole run's limit; past it the tool gives up with exit status 1. `nil`: derived from the other times.
    var timeout: Duration?

    /// The line load connections send when no `--template` is given.
    static let defaultTemplate = #"{"id":{n},"method":"ping"}"#

    /// The limit on the whole process: `--timeout`, else the run's own times plus a minute for connecting,
    /// setting up and draining.
    var effectiveTimeout: Duration {
        if let timeout { return timeout }
        switch mode {
        case .load where requests != nil: return .seconds(600)
        case .load: return warmup + duration + .seconds(60)
        case .hold, .watch: return duration + .seconds(60)
        }
    }
}

/// The connections that have not authenticated yet, oldest first, within a budget of their own (`shelfd
/// --max-unauthenticated`, protocol/PROTOCOL.md §12), as OpenSSH's `MaxStartups` bounds unauthenticated sessions.
///
/// Every connection is unauthenticated when it is accepted, so refusing new ones when the budget is full would
/// refuse the token holders too. Instead the oldest unauthenticated connection makes room: a client that has the
/// token authenticates in its first round trip, so it is never the oldest for long, while connections that sit
/// without authenticating are the ones pushed out. A pure struct; the server owns one.
struct UnauthenticatedConnections: Equatable {
    /// The most connections that may be unauthenticated at once.
    let budget: Int
    /// Connection ids, oldest first.
    private(set) var waiting: [UInt64] = []

    init(budget: Int) {
        self.budget = max(1, budget)
    }

    /// Counts connection `id`, just accepted.
    /// - Parameter evictable: whether a waiting connection may make room; the oldest for which it says so does, or
    ///   the oldest of all when it says so for none. The server spares a connection whose first bytes have arrived
    ///   and are not read yet: under a flood of connections it accepts many before a new one's first request is
    ///   read, and a client that sent `auth` at once would otherwise be the oldest before it could authenticate.
    /// - Returns: the connection that must now be closed to make room; `nil` when the budget had room.
    mutating func admit(_ id: UInt64, evictable: (UInt64) -> Bool = { _ in true }) -> UInt64? {
        var evicted: UInt64?
        if waiting.count >= budget {
            let index = waiting.firstIndex(where: evictable) ?? waiting.startIndex
            evicted = waiting.remove(at: index)
        }
        waiting.append(id)
        return evicted
    }

    /// Connection `id` authenticated or ended: it no longer counts. Idempotent.
    mutating func remove(_ id: UInt64) {
        if let index = waiting.firstIndex(of: id) { waiting.remove(at: index) }
    }

    /// Whether connection `id` is still waiting to authenticate.
    func contains(_ id: UInt64) -> Bool {
        waiting.contains(id)
    }
}

/// One connection's outbound bytes against its one budget, `--max-outbound-bytes` (protocol/PROTOCOL.md §10), and
/// what of them is charged to the server's `MemoryAccount`: encoded replies not yet written (`ReplyQueue.heldBytes`),
/// queued notifications (`ChangeNotificationQueue.bytes`) and the part of a write the socket has not taken yet. A pure
/// value: the session tells it the counts and applies the charge it reports.
struct OutboundBudget {
    /// The budget, in bytes.
    let maxBytes: Int
    /// Replies held, and bytes handed to the socket but not taken by it.
    private(set) var replyBytes = 0
    private(set) var notificationBytes = 0
    /// Bytes charged to the memory account for this connection.
    private(set) var charged = 0

    init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    /// Whether the reader may carry out another request with `held` bytes of replies held and unsent now: a
    /// request's reply is made as it is carried out, so the reader waits while they pass the budget (TCP then
    /// pushes back on a peer that sends without reading); with nothing held it always may, so one reply larger than
    /// the budget still goes out.
    func admitsRequest(holding held: Int) -> Bool { held == 0 || held <= maxBytes }

    /// Records the current counts.
    /// - Returns: the bytes to charge to the memory account (negative: to refund) so that `charged` matches them.
    mutating func update(replies: Int, unsent: Int, notifications: Int) -> Int {
        replyBytes = replies + unsent
        notificationBytes = notifications
        let delta = replyBytes + notificationBytes - charged
        charged += delta
        return delta
    }

    /// Takes over `bytes` charged already (a large reply charged within the ceiling as it was made, or a
    /// notification charged as it was queued), so `update` does not charge them again.
    mutating func adopt(_ bytes: Int) {
        charged += bytes
    }

    /// Everything is given back (the session ended).
    /// - Returns: the bytes to refund.
    mutating func close() -> Int {
        defer { charged = 0 }
        return charged
    }
}

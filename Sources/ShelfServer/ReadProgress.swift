/// What a session's reader remembers between requests: the ticket of its latest mutation still being saved, which
/// the next read must wait for.
struct ReadProgress {
    var lastPendingTicket: UInt64?
}

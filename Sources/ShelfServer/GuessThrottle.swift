/// Slows token guessing per peer address, across all of that address's connections (protocol/PROTOCOL.md §12):
/// an address's first `freeAttempts` `auth` attempts are checked at once; each further one only at its own slot,
/// the slots spaced by a delay that doubles with every attempt, from `baseDelay` up to `maxDelay`. An attempt counts
/// when its slot is reserved, before it is checked, so parallel connections from one address wait in line at the
/// growing spacing rather than all at the spacing of the moment. Other addresses are unaffected. A good token from
/// an address forgets its attempts; so does `forgetAfter` without one. A pure state machine over instants the
/// caller passes in, so tests drive the time.
struct GuessThrottle<Instant: InstantProtocol> where Instant.Duration == Duration {
    /// What one address has done.
    struct Peer: Equatable {
        /// `auth` attempts counted so far (a good token resets them).
        var attempts: Int
        /// The earliest instant the next slot may be given.
        var nextSlot: Instant
        /// When the last attempt arrived (for `forgetAfter`).
        var lastAttempt: Instant
    }

    /// Attempts an address may make before they are spaced (a person mistyping is never slowed).
    let freeAttempts: Int
    /// The spacing after the last free attempt.
    let baseDelay: Duration
    /// The largest spacing: one attempt every `maxDelay` from one address, at worst.
    let maxDelay: Duration
    /// An address whose last attempt is this old, and whose slots have all passed, starts afresh.
    let forgetAfter: Duration
    /// The most addresses remembered; the one whose last attempt is oldest makes room (memory stays bounded).
    let maxPeers: Int
    private(set) var peers: [String: Peer] = [:]

    /// A throttle with the documented defaults: 3 free attempts, then 0.25 s doubling to 8 s, forgotten after
    /// 15 minutes, 4096 addresses remembered.
    init(
        freeAttempts: Int = 3, baseDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(8),
        forgetAfter: Duration = .seconds(900), maxPeers: Int = 4096
    ) {
        self.freeAttempts = freeAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.forgetAfter = forgetAfter
        self.maxPeers = maxPeers
    }

    /// Counts an `auth` attempt from `address` arriving at `now`, and reserves the instant it may be checked: `now`
    /// within the free attempts, else the address's next slot.
    /// - Returns: `nil` when that slot is more than `maxDelay` away: the attempt is refused at once, neither counted
    ///   nor queued, so a burst of attempts cannot book the address's slots far ahead and lock out its owner once the
    ///   burst is over (the wait for a slot is at most `maxDelay` whatever came before).
    mutating func slot(for address: String, now: Instant) -> Instant? {
        if let known = peers[address], known.nextSlot > now.advanced(by: maxDelay) { return nil }
        var peer: Peer
        if let known = peers[address], !(known.lastAttempt.advanced(by: forgetAfter) <= now && known.nextSlot <= now) {
            peer = known
        } else {
            if peers[address] == nil, peers.count >= maxPeers,
               let oldest = peers.min(by: { $0.value.lastAttempt < $1.value.lastAttempt })?.key {
                peers[oldest] = nil
            }
            peer = Peer(attempts: 0, nextSlot: now, lastAttempt: now)
        }
        peer.attempts += 1
        peer.lastAttempt = now
        let slot = max(now, peer.nextSlot)
        peer.nextSlot = slot.advanced(by: delay(afterAttempts: peer.attempts))
        peers[address] = peer
        return slot
    }

    /// A good token from `address`: its attempts are forgotten.
    mutating func succeeded(_ address: String) {
        peers[address] = nil
    }

    /// The spacing between attempt `attempts` and the next: 0 before the last free one, then `baseDelay` doubled
    /// for each attempt past it, at most `maxDelay`.
    func delay(afterAttempts attempts: Int) -> Duration {
        guard attempts >= freeAttempts else { return .zero }
        var delay = baseDelay
        for _ in 0..<(attempts - freeAttempts) {
            delay = delay * 2
            if delay >= maxDelay { return maxDelay }
        }
        return min(delay, maxDelay)
    }
}

/// Slows token guessing per peer address, across all of that address's connections (protocol/PROTOCOL.md §12):
/// after `freeFailures` wrong tokens from one address, each further `auth` from it is checked only at its own slot,
/// and the slots are spaced by a delay that doubles with every further failure, from `baseDelay` up to `maxDelay`.
/// Other addresses are unaffected. A good token from an address forgets its failures; so does `forgetAfter` without
/// a failure. A pure state machine over instants the caller passes in, so tests drive the time.
struct GuessThrottle<Instant: InstantProtocol> where Instant.Duration == Duration {
    /// What one address has done.
    struct Peer: Equatable {
        /// Wrong tokens counted so far.
        var failures: Int
        /// The earliest instant the next slot may be given; slots already handed out end before it.
        var nextSlot: Instant
        /// When the last failure was recorded (for `forgetAfter`).
        var lastFailure: Instant
    }

    /// Wrong tokens an address may send before its attempts are spaced (a person mistyping is never slowed).
    let freeFailures: Int
    /// The spacing after the first failure past `freeFailures`, in seconds.
    let baseDelay: Duration
    /// The largest spacing: one attempt every `maxDelay` from one address, at worst.
    let maxDelay: Duration
    /// An address whose last failure is this old starts afresh.
    let forgetAfter: Duration
    /// The most addresses remembered; the one whose last failure is oldest makes room (memory stays bounded).
    let maxPeers: Int
    private(set) var peers: [String: Peer] = [:]

    /// A throttle with the documented defaults: 3 free failures, then 0.25 s doubling to 8 s, forgotten after
    /// 15 minutes, 4096 addresses remembered.
    init(
        freeFailures: Int = 3, baseDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(8),
        forgetAfter: Duration = .seconds(900), maxPeers: Int = 4096
    ) {
        self.freeFailures = freeFailures
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.forgetAfter = forgetAfter
        self.maxPeers = maxPeers
    }

    /// Reserves the instant at which an `auth` from `address`, arriving at `now`, may be checked: `now` for an
    /// address within its free failures, else its next slot — at least the current delay after its last failure —
    /// which then moves on by that delay, so parallel connections from one address wait in line.
    mutating func slot(for address: String, now: Instant) -> Instant {
        forgetIfStale(address, now: now)
        guard var peer = peers[address], peer.failures >= freeFailures else { return now }
        let slot = max(now, peer.nextSlot)
        peer.nextSlot = slot.advanced(by: delay(afterFailures: peer.failures))
        peers[address] = peer
        return slot
    }

    /// Counts a wrong token from `address`, checked at `now`.
    mutating func failed(_ address: String, now: Instant) {
        forgetIfStale(address, now: now)
        var peer: Peer
        if let known = peers[address] {
            peer = known
        } else {
            if peers.count >= maxPeers, let oldest = peers.min(by: { $0.value.lastFailure < $1.value.lastFailure })?.key {
                peers[oldest] = nil
            }
            peer = Peer(failures: 0, nextSlot: now, lastFailure: now)
        }
        peer.failures += 1
        peer.lastFailure = now
        // Past the free failures, the next check waits the delay from this failure at least.
        peer.nextSlot = max(peer.nextSlot, now.advanced(by: delay(afterFailures: peer.failures)))
        peers[address] = peer
    }

    /// A good token from `address`: its failures are forgotten.
    mutating func succeeded(_ address: String) {
        peers[address] = nil
    }

    /// The spacing of slots for an address with `failures` wrong tokens: 0 within the free ones, then `baseDelay`
    /// doubled for each failure past them, at most `maxDelay`.
    func delay(afterFailures failures: Int) -> Duration {
        guard failures >= freeFailures else { return .zero }
        var delay = baseDelay
        for _ in 0..<(failures - freeFailures) {
            delay = delay * 2
            if delay >= maxDelay { return maxDelay }
        }
        return min(delay, maxDelay)
    }

    private mutating func forgetIfStale(_ address: String, now: Instant) {
        if let peer = peers[address], peer.lastFailure.advanced(by: forgetAfter) <= now, peer.nextSlot <= now {
            peers[address] = nil
        }
    }
}

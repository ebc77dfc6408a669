@testable import ShelfServer
import Testing

/// The pure parts of authentication (protocol/PROTOCOL.md §12): the exact token comparison, the per-address guess
/// slowdown on instants the test passes in, and the unauthenticated budget.
@Suite struct AuthGateTests {
    @Test("a token matches only itself: the real one plus 256 NUL characters, a prefix or an empty token do not")
    func exactComparison() {
        let check = TokenCheck(token: "s3cret-token-0123")
        #expect(check.matches("s3cret-token-0123"))
        #expect(!check.matches("s3cret-token-0123" + String(repeating: "\u{0}", count: 256)))
        #expect(!check.matches("s3cret-token-0123" + String(repeating: "\u{0}", count: 1)))
        #expect(!check.matches("s3cret-token-012"))
        #expect(!check.matches(""))
        #expect(!check.matches("s3cret-token-0124"))
        #expect(!TokenCheck(token: "").matches(""))
    }

    @Test("three attempts from an address are free; then its attempts are spaced, doubling up to the cap")
    func spacing() {
        var throttle = GuessThrottle<ContinuousClock.Instant>(freeAttempts: 3, baseDelay: .milliseconds(250), maxDelay: .seconds(1))
        let start = ContinuousClock.now
        for _ in 0..<3 { #expect(throttle.slot(for: "192.0.2.7", now: start) == start) }
        // Attempts in flight at once from the same address wait in line, each spaced by the delay its own count
        // earns: 0.25 s, then 0.5 s, then the 1 s cap; one booked further ahead than the cap is refused at once, and
        // books nothing.
        #expect(throttle.slot(for: "192.0.2.7", now: start) == start + .milliseconds(250))
        #expect(throttle.slot(for: "192.0.2.7", now: start) == start + .milliseconds(750))
        #expect(throttle.slot(for: "192.0.2.7", now: start) == nil)
        #expect(throttle.peers["192.0.2.7"]?.nextSlot == start + .milliseconds(1750))
        #expect(throttle.slot(for: "192.0.2.7", now: start + .milliseconds(750)) == start + .milliseconds(1750))
        #expect(throttle.delay(afterAttempts: 2) == .zero)
        #expect(throttle.delay(afterAttempts: 3) == .milliseconds(250))
        #expect(throttle.delay(afterAttempts: 40) == .seconds(1))
        // Another address is not slowed at all.
        #expect(throttle.slot(for: "192.0.2.8", now: start) == start)
    }

    @Test("the defaults are the documented ones: 3 free attempts, 0.25 s doubling to 8 s, forgotten after 15 minutes, 4096 addresses")
    func defaults() {
        let throttle = GuessThrottle<ContinuousClock.Instant>()
        #expect(throttle.freeAttempts == 3)
        #expect(throttle.baseDelay == .milliseconds(250))
        #expect(throttle.maxDelay == .seconds(8))
        #expect(throttle.forgetAfter == .seconds(900))
        #expect(throttle.maxPeers == 4096)
        #expect(ServerConfiguration().guessBaseDelay == .milliseconds(250))
        #expect(ServerConfiguration().guessMaxDelay == .seconds(8))
    }

    @Test("a good token forgets an address's attempts, and so does time without one once its slots have passed")
    func forgetting() {
        var throttle = GuessThrottle<ContinuousClock.Instant>(
            freeAttempts: 1, baseDelay: .seconds(2), maxDelay: .seconds(2), forgetAfter: .seconds(60))
        let start = ContinuousClock.now
        #expect(throttle.slot(for: "::1", now: start) == start)
        #expect(throttle.slot(for: "::1", now: start) == start + .seconds(2))
        throttle.succeeded("::1")
        #expect(throttle.slot(for: "::1", now: start) == start)

        #expect(throttle.slot(for: "198.51.100.1", now: start) == start)
        #expect(throttle.slot(for: "198.51.100.1", now: start + .seconds(61)) == start + .seconds(61))
        #expect(throttle.peers["198.51.100.1"]?.attempts == 1, "forgotten, then counted afresh")
    }

    @Test("after a burst of 180 attempts, an attempt waits at most the longest delay once the burst is over")
    func burstCannotLockOut() {
        var throttle = GuessThrottle<ContinuousClock.Instant>()
        let start = ContinuousClock.now
        let booked = (0..<180).compactMap { _ in throttle.slot(for: "127.0.0.1", now: start) }
        #expect(booked.count < 10, "most of the burst is refused, not booked")
        // Right after it, attempts are refused unbooked (told to come back in 8 s); 8 s later one is booked, and
        // waits at most 8 s more: within the 10 s auth deadline.
        #expect(throttle.slot(for: "127.0.0.1", now: start + .seconds(1)) == nil)
        let later = start + .seconds(8)
        let owner = throttle.slot(for: "127.0.0.1", now: later)
        #expect(owner.map { $0 - later <= .seconds(8) } == true, "the owner's attempt waits at most 8 s")
    }

    @Test("the addresses remembered are bounded: the one whose last attempt is oldest makes room")
    func boundedPeers() {
        var throttle = GuessThrottle<ContinuousClock.Instant>(maxPeers: 2)
        let start = ContinuousClock.now
        _ = throttle.slot(for: "a", now: start)
        _ = throttle.slot(for: "b", now: start + .seconds(1))
        _ = throttle.slot(for: "c", now: start + .seconds(2))
        #expect(Set(throttle.peers.keys) == ["b", "c"])
    }

    /// Under a flood of connections, a client that sent `auth` with the token at once was the oldest waiting, and
    /// pushed out, before the server had read its line (about once in 100 connections).
    @Test("the unauthenticated budget passes over a connection the server spares (its request unread), unless it spares them all")
    func budgetSparesUnreadRequests() {
        var waiting = UnauthenticatedConnections(budget: 3)
        #expect(waiting.admit(1) == nil)
        #expect(waiting.admit(2) == nil)
        #expect(waiting.admit(3) == nil)
        #expect(waiting.admit(4, evictable: { $0 != 1 }) == 2)
        #expect(waiting.waiting == [1, 3, 4])
        #expect(waiting.admit(5, evictable: { _ in false }) == 1)
        #expect(waiting.waiting == [3, 4, 5])
    }

    @Test("the unauthenticated budget: the oldest waiting connection makes room for a new one")
    func budget() {
        var waiting = UnauthenticatedConnections(budget: 2)
        #expect(waiting.admit(1) == nil)
        #expect(waiting.admit(2) == nil)
        #expect(waiting.admit(3) == 1)
        #expect(waiting.waiting == [2, 3])
        waiting.remove(3)
        #expect(waiting.admit(4) == nil)
        #expect(waiting.contains(2) && !waiting.contains(3))
        waiting.remove(99)
        #expect(waiting.waiting == [2, 4])
    }

    @Test("the address a peer's guesses are counted by: without the port; IPv4-mapped IPv6 as IPv4")
    func peerAddresses() {
        #expect(AuthGate.address(ofPeer: "192.0.2.1:51234") == "192.0.2.1")
        // IPv6 address by address: the hosts of a LAN share a /64.
        #expect(AuthGate.address(ofPeer: "[::1]:7453") == "::1")
        #expect(AuthGate.address(ofPeer: "[2001:db8:1:2::a]:7453") == "2001:db8:1:2::a")
        #expect(AuthGate.address(ofPeer: "[fe80::1%eth0]:1") == "fe80::1%eth0")
        // An IPv4 peer on a dual-stack socket counts as its IPv4 address.
        #expect(AuthGate.address(ofPeer: "[::ffff:192.0.2.1]:51234") == "192.0.2.1")
    }
}

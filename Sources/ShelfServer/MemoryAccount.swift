import Foundation
import Glibc
import Synchronization

/// The memory the server holds for its peers, server-wide, against one ceiling (`--max-memory-bytes`; shared/design.md,
/// invariant 8; protocol/PROTOCOL.md §10): the unfinished lines in the sessions' framers and the replies and
/// notifications queued in their outboxes. Each session charges what it grows by and refunds what it frees; a
/// charge that would pass the ceiling is refused, and the session that asked closes (`memory_limit`).
///
/// One atomic counter, no lock: charged on the event loop at every read and queued reply.
final class MemoryAccount: Sendable {
    /// The most bytes that may be held at once.
    let ceiling: Int
    private let held = Atomic<Int>(0)
    /// The most held since `resetPeak()` (for `MemoryTrim`).
    private let peak = Atomic<Int>(0)

    /// - Parameter ceiling: the most bytes held at once; below 0 counts as 0.
    init(ceiling: Int) {
        self.ceiling = max(0, ceiling)
    }

    /// Bytes held now.
    var heldBytes: Int { held.load(ordering: .relaxed) }

    /// Adds `bytes` if the total stays within `ceiling`.
    /// - Returns: false, adding nothing, when it would pass the ceiling.
    func charge(_ bytes: Int) -> Bool {
        guard bytes > 0 else { return true }
        var current = held.load(ordering: .relaxed)
        while true {
            guard current <= ceiling - bytes else { return false }
            let (exchanged, original) = held.compareExchange(
                expected: current, desired: current + bytes, ordering: .relaxed)
            if exchanged {
                raisePeak(to: current + bytes)
                return true
            }
            current = original
        }
    }

    /// Adds `bytes` whatever the total (memory already taken, such as a reply already made: the caller checks the
    /// ceiling before it asks for more).
    func force(_ bytes: Int) {
        if bytes > 0 { raisePeak(to: held.add(bytes, ordering: .relaxed).newValue) }
    }

    /// Gives back `bytes` charged earlier.
    func refund(_ bytes: Int) {
        if bytes > 0 { held.subtract(bytes, ordering: .relaxed) }
    }

    /// True when the total has reached the ceiling (forced charges can pass it).
    var isFull: Bool { heldBytes >= ceiling }

    /// The most bytes held at once since the last `resetPeak()`.
    var peakBytes: Int { peak.load(ordering: .relaxed) }

    /// Starts a new peak from what is held now.
    func resetPeak() {
        peak.store(heldBytes, ordering: .relaxed)
    }

    private func raisePeak(to value: Int) {
        var current = peak.load(ordering: .relaxed)
        while value > current {
            let (exchanged, original) = peak.compareExchange(expected: current, desired: value, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}

/// Gives the memory of ended connections back to the system: glibc keeps freed blocks for reuse, so 1,000
/// connections that each held an unfinished 1 MB line left the process at 1 GiB after they closed. When the memory
/// held for peers has fallen more than `threshold` below its peak since the last trim, `malloc_trim(0)` runs on a
/// thread of its own (it walks the whole heap: not on the event loop), at most once per `interval`; a trim due
/// sooner is deferred until the interval has passed, not dropped, so the last close of a burst still leads to one.
///
/// The decisions only: the caller runs the trim (`releaseFreedMemory()`) and the timer of a deferred one.
struct MemoryTrim {
    /// How far the held bytes must fall below their peak before a trim: 1 MiB.
    static let threshold = 1 << 20
    /// The least time between two trims: 1 s.
    static let interval: Duration = .seconds(1)

    /// What to do after a session ended, or when a deferred trim comes due.
    enum Decision: Equatable {
        /// Nothing: too little was freed, or a deferred trim will look again.
        case none
        /// Trim now (`releaseFreedMemory()`): the trim is recorded and the peak reset.
        case trimNow
        /// Too soon after the last trim: call `deferredTrimDue(memory:now:)` at this instant (a loop timer).
        case deferUntil(ContinuousClock.Instant)
    }

    private var lastTrim: ContinuousClock.Instant?
    /// When the deferred trim is due, while one is.
    private var deferredUntil: ContinuousClock.Instant?

    /// A session ended: trims when `memory` has fallen far enough below its peak, or defers the trim when the last
    /// was less than `interval` ago (once: while one is deferred, later endings leave it to look).
    mutating func sessionEnded(memory: MemoryAccount, now: ContinuousClock.Instant) -> Decision {
        guard deferredUntil == nil else { return .none }
        return decide(memory: memory, now: now)
    }

    /// The deferred trim came due: trims when `memory` is still far enough below its peak (new connections may have
    /// taken it again meanwhile).
    mutating func deferredTrimDue(memory: MemoryAccount, now: ContinuousClock.Instant) -> Decision {
        deferredUntil = nil
        return decide(memory: memory, now: now)
    }

    private mutating func decide(memory: MemoryAccount, now: ContinuousClock.Instant) -> Decision {
        guard memory.peakBytes - memory.heldBytes > Self.threshold else { return .none }
        if let lastTrim, now - lastTrim < Self.interval {
            let due = lastTrim + Self.interval
            deferredUntil = due
            return .deferUntil(due)
        }
        lastTrim = now
        memory.resetPeak()
        return .trimNow
    }

    /// Runs `malloc_trim(0)` on a thread of its own; nothing where glibc's is missing.
    static func releaseFreedMemory() {
        guard let trim = mallocTrim else { return }
        Thread.detachNewThread { _ = trim(0) }
    }

    /// glibc's `malloc_trim`, looked up at run time: `malloc.h` is not part of Swift's Glibc module.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()
}

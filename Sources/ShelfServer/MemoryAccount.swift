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
/// thread of its own (it walks the whole heap: not on the event loop), at most once per `interval`.
struct MemoryTrim {
    /// How far the held bytes must fall below their peak before a trim: 1 MiB.
    static let threshold = 1 << 20
    /// The least time between two trims: 1 s.
    static let interval: Duration = .seconds(1)

    private var lastTrim: ContinuousClock.Instant?

    /// A session ended; trims when `memory` has fallen far enough below its peak.
    /// - Returns: whether a trim was started.
    @discardableResult
    mutating func sessionEnded(memory: MemoryAccount, now: ContinuousClock.Instant = .now) -> Bool {
        guard memory.peakBytes - memory.heldBytes > Self.threshold else { return false }
        if let lastTrim, now - lastTrim < Self.interval { return false }
        lastTrim = now
        memory.resetPeak()
        guard let trim = Self.mallocTrim else { return false }
        Thread.detachNewThread { _ = trim(0) }
        return true
    }

    /// glibc's `malloc_trim`, looked up at run time: `malloc.h` is not part of Swift's Glibc module.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()
}

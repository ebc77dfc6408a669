import Glibc
import Synchronization

/// Bytes from the kernel's CSPRNG (`getrandom(2)`, through glibc's `arc4random_buf`), fetched 4 KiB at a time: one system call then serves 256
/// item ids instead of two calls per id (the id generator runs inside the list's actor, on every `add`).
///
/// Thread-safe; the pool is process-wide. A byte is never handed out twice.
struct RandomBytePool: ~Copyable {
    /// Bytes fetched per refill.
    static let refillBytes = 4096

    private var buffer = [UInt8](repeating: 0, count: RandomBytePool.refillBytes)
    private var next = RandomBytePool.refillBytes

    /// The process-wide pool.
    static let shared = Mutex(RandomBytePool())

    /// Two random 64-bit words.
    mutating func twoWords() -> (UInt64, UInt64) {
        if next + 16 > buffer.count { refill() }
        let words = buffer.withUnsafeBytes { raw in
            (raw.loadUnaligned(fromByteOffset: next, as: UInt64.self),
             raw.loadUnaligned(fromByteOffset: next + 8, as: UInt64.self))
        }
        next += 16
        return words
    }

    private mutating func refill() {
        // glibc's arc4random_buf reads the kernel's CSPRNG (getrandom(2)), retrying interruptions; it cannot fail.
        buffer.withUnsafeMutableBytes { raw in
            if let base = raw.baseAddress { arc4random_buf(base, raw.count) }
        }
        next = 0
    }
}

import Foundation
import Synchronization

/// Deterministic ids: 00000000-0000-0000-0000-000000000001, ...002, and so on, one per call.
final class SequentialIDs: Sendable {
    private let next = Mutex<UInt64>(1)

    /// The id the `n`th call returns (1-based).
    static func id(_ n: UInt64) -> UUID {
        let hex = String(n, radix: 16)
        let padded = String(repeating: "0", count: 12 - hex.count) + hex
        return UUID(uuidString: "00000000-0000-0000-0000-\(padded)")!
    }

    /// The generator to inject into `ReadingList`.
    var generator: @Sendable () -> UUID {
        { [self] in
            let n = next.withLock { value -> UInt64 in
                defer { value += 1 }
                return value
            }
            return Self.id(n)
        }
    }

    /// How many ids have been handed out.
    var issued: UInt64 { next.withLock { $0 - 1 } }
}

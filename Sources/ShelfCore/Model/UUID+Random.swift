import Foundation

extension UUID {
    /// A random (version 4, RFC 9562 §5.4) UUID from the kernel's CSPRNG, through `RandomBytePool`: the default id
    /// of new items. Foundation's `UUID()` does the same at several times the cost on Linux.
    public static func random() -> UUID {
        let (high, low) = RandomBytePool.shared.withLock { $0.twoWords() }
        var bytes = (
            UInt8(truncatingIfNeeded: high), UInt8(truncatingIfNeeded: high >> 8), UInt8(truncatingIfNeeded: high >> 16),
            UInt8(truncatingIfNeeded: high >> 24), UInt8(truncatingIfNeeded: high >> 32), UInt8(truncatingIfNeeded: high >> 40),
            UInt8(truncatingIfNeeded: high >> 48), UInt8(truncatingIfNeeded: high >> 56),
            UInt8(truncatingIfNeeded: low), UInt8(truncatingIfNeeded: low >> 8), UInt8(truncatingIfNeeded: low >> 16),
            UInt8(truncatingIfNeeded: low >> 24), UInt8(truncatingIfNeeded: low >> 32), UInt8(truncatingIfNeeded: low >> 40),
            UInt8(truncatingIfNeeded: low >> 48), UInt8(truncatingIfNeeded: low >> 56))
        bytes.6 = (bytes.6 & 0x0F) | 0x40
        bytes.8 = (bytes.8 & 0x3F) | 0x80
        return UUID(uuid: bytes)
    }
}

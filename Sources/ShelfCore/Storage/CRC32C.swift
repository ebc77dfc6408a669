import CCRC32C

/// CRC-32C (Castagnoli: reflected polynomial 0x82F63B78, initial value and final XOR 0xFFFFFFFF), the checksum of
/// every journal record and snapshot line (protocol/STORAGE.md, "Checksums"), as etcd's WAL and iSCSI use it.
/// Computed by the CPU's `crc32` instruction where it has one (SSE 4.2 on x86-64, through the CCRC32C shim: eight
/// bytes an instruction), else in software, slicing-by-8: eight bytes per step through eight 256-entry tables,
/// several times slower; every durable change checksums its record several times (written, read back, compacted).
/// Check value: CRC-32C of the ASCII bytes `123456789` is 0xE3069283.
enum CRC32C {
    /// Whether this CPU computes CRC-32C itself.
    static let hardware = shelf_crc32c_hardware() != 0

    /// The tables: `tables[0]` is the classic byte-at-a-time table; `tables[k][b]` is the CRC of byte `b` followed
    /// by `k` zero bytes.
    private static let tables: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            table[byte] = crc
        }
        for slice in 1..<8 {
            for byte in 0..<256 {
                let previous = table[(slice - 1) * 256 + byte]
                table[slice * 256 + byte] = (previous >> 8) ^ table[Int(previous & 0xFF)]
            }
        }
        return table
    }()

    /// The CRC-32C of `bytes`.
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBufferPointer { checksum($0) }
    }

    /// The CRC-32C of `bytes`.
    static func checksum(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        guard hardware, let start = bytes.baseAddress else { return softwareChecksum(bytes) }
        return shelf_crc32c_update(0xFFFF_FFFF, start, bytes.count) ^ 0xFFFF_FFFF
    }

    /// The CRC-32C of `bytes`, slicing-by-8: what `checksum` computes on a CPU without the instruction.
    static func softwareChecksum(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        tables.withUnsafeBufferPointer { table in
            var crc: UInt32 = 0xFFFF_FFFF
            var index = 0
            let count = bytes.count
            while count - index >= 8 {
                let low = crc ^ (UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8
                    | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24)
                crc = table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(bytes[index + 4])] ^ table[2 * 256 + Int(bytes[index + 5])]
                    ^ table[1 * 256 + Int(bytes[index + 6])] ^ table[Int(bytes[index + 7])]
                index += 8
            }
            while index < count {
                crc = (crc >> 8) ^ table[Int((crc ^ UInt32(bytes[index])) & 0xFF)]
                index += 1
            }
            return crc ^ 0xFFFF_FFFF
        }
    }
}

import Foundation

extension ItemIndex {
    /// One open-addressing table: linear probing, backward-shift deletion, at most 3/4 full. Empty (no storage)
    /// until its first entry.
    struct Shard: Sendable {
        /// 0 = empty; else `hash << 32 | (position + 1)`.
        private(set) var table: [UInt64] = []
        /// log2 of `table.count` (0 while there is no table); the home bucket of a hash is the `bits` bits after
        /// the 6 that chose the shard.
        private var bits = 0
        private var count = 0

        init(minimumCapacity: Int) {
            if minimumCapacity > 0 {
                bits = Self.bits(for: minimumCapacity)
                table = [UInt64](repeating: 0, count: 1 << bits)
            }
        }

        func position(of id: UUID, hash: UInt64, idAt: (Int) -> UUID?) -> Int? {
            find(id, hash: hash, idAt: idAt)?.position
        }

        /// The bucket holding `id`'s entry and the position stored there, if any.
        private func find(_ id: UUID, hash: UInt64, idAt: (Int) -> UUID?) -> (bucket: Int, position: Int)? {
            guard !table.isEmpty else { return nil }
            let mask = table.count - 1
            var bucket = home(hash)
            while true {
                let entry = table[bucket]
                if entry == 0 { return nil }
                if entry >> 32 == hash, let position = Self.position(entry), idAt(position) == id { return (bucket, position) }
                bucket = (bucket + 1) & mask
            }
        }

        /// The entry in the home bucket of `hash` (0 when there is no table): reading it loads the bucket's cache
        /// line (and its page's translation) ahead of an insert there.
        func touch(_ hash: UInt64) -> UInt64 {
            table.isEmpty ? 0 : table[home(hash)]
        }

        mutating func insert(_ id: UUID, hash: UInt64, at position: Int, idAt: (Int) -> UUID?) -> Int? {
            if (count + 1) * 4 > table.count * 3 { grow() }
            let mask = table.count - 1
            var bucket = home(hash)
            while true {
                let entry = table[bucket]
                if entry == 0 { break }
                if entry >> 32 == hash, let existing = Self.position(entry), idAt(existing) == id { return existing }
                bucket = (bucket + 1) & mask
            }
            table[bucket] = hash << 32 | UInt64(position + 1)
            count += 1
            return nil
        }

        mutating func remove(_ id: UUID, hash: UInt64, idAt: (Int) -> UUID?) -> Int? {
            guard let (bucket, position) = find(id, hash: hash, idAt: idAt) else { return nil }
            closeGap(at: bucket)
            count -= 1
            return position
        }

        /// Backward-shift deletion: moves later entries of the probe run into the gap at `bucket`, so that every
        /// entry stays reachable from its home bucket without tombstones.
        private mutating func closeGap(at bucket: Int) {
            let mask = table.count - 1
            var gap = bucket
            var next = (gap + 1) & mask
            while table[next] != 0 {
                let entryHome = home(table[next] >> 32)
                // The entry may move back to the gap only if its home is not cyclically within (gap, next].
                if (gap - entryHome) & mask < (next - entryHome) & mask {
                    table[gap] = table[next]
                    gap = next
                }
                next = (next + 1) & mask
            }
            table[gap] = 0
        }

        private mutating func grow() {
            let old = table
            bits = max(4, bits + 1)
            table = [UInt64](repeating: 0, count: 1 << bits)
            let mask = table.count - 1
            for entry in old where entry != 0 {
                var bucket = home(entry >> 32)
                while table[bucket] != 0 { bucket = (bucket + 1) & mask }
                table[bucket] = entry
            }
        }

        /// The home bucket of a 32-bit hash: the `bits` bits below the top 6.
        private func home(_ hash: UInt64) -> Int {
            Int(truncatingIfNeeded: ((hash << 6) & 0xFFFF_FFFF) >> (32 - UInt64(bits)))
        }

        private static func position(_ entry: UInt64) -> Int? {
            let stored = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF)
            return stored > 0 ? stored - 1 : nil
        }

        /// The smallest table size exponent (at least 4, at most 26) that holds `count` entries at 3/4 load.
        private static func bits(for count: Int) -> Int {
            var bits = 4
            while bits < 26, (1 << bits) * 3 < count * 4 { bits += 1 }
            return bits
        }
    }
}

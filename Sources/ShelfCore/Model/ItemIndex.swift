import Foundation

/// Where each item sits in an `ItemCollection`'s slots, by id: an open-addressing hash table with linear probing
/// and backward-shift deletion (no tombstones), at most 3/4 full.
///
/// Why not `[UUID: Int]`: with a list that grows by hundreds of thousands of items, that dictionary was ~10% of
/// the server's CPU in the pipelined benchmark (SipHash of 16 bytes per probe and per rehash, three arrays touched
/// per insert). Here an entry is one 8-byte word — the top 32 bits of the id's hash (its fingerprint) and the
/// position + 1 — so an insert touches one cache line, and growing rehashes from the stored bits without reading
/// any id again. Ids are compared only when fingerprints match.
///
/// The table never holds ids: lookups are given the slots array to compare against. The hash is keyed with a
/// per-process random seed, so the layout cannot be predicted from outside (the server makes every id itself).
struct ItemIndex: Sendable {
    /// 0 = empty; else `fingerprint << 32 | (position + 1)`.
    private var table: [UInt64]
    /// log2 of `table.count`; the home bucket of a hash is its top `bits` bits.
    private var bits: Int
    /// The number of entries.
    private(set) var count = 0

    /// An index for at least `minimumCapacity` entries before it has to grow.
    init(minimumCapacity: Int = 0) {
        bits = Self.bits(for: minimumCapacity)
        table = [UInt64](repeating: 0, count: 1 << bits)
    }

    /// The position stored for `id`, if any; `slots[position]` must hold the item with that id.
    func position(of id: UUID, in slots: [Item?]) -> Int? {
        let hash = Self.hash(id)
        var bucket = home(hash)
        let mask = table.count - 1
        while true {
            let entry = table[bucket]
            if entry == 0 { return nil }
            if entry >> 32 == hash, let position = Self.position(entry), slots[position]?.id == id { return position }
            bucket = (bucket + 1) & mask
        }
    }

    /// Records `position` for `id` unless the id is already there.
    /// - Returns: the position already stored for `id` (nothing changed), or nil when it was added.
    mutating func insert(_ id: UUID, at position: Int, in slots: [Item?]) -> Int? {
        precondition(position >= 0 && position < Int(UInt32.max), "an item position beyond 2^32 - 2")
        if (count + 1) * 4 > table.count * 3 { grow() }
        let hash = Self.hash(id)
        var bucket = home(hash)
        let mask = table.count - 1
        while true {
            let entry = table[bucket]
            if entry == 0 { break }
            if entry >> 32 == hash, let existing = Self.position(entry), slots[existing]?.id == id { return existing }
            bucket = (bucket + 1) & mask
        }
        table[bucket] = hash << 32 | UInt64(position + 1)
        count += 1
        return nil
    }

    /// Removes `id`'s entry.
    /// - Returns: the position that was stored for it, or nil when it was not there.
    mutating func remove(_ id: UUID, in slots: [Item?]) -> Int? {
        let hash = Self.hash(id)
        let mask = table.count - 1
        var bucket = home(hash)
        while true {
            let entry = table[bucket]
            if entry == 0 { return nil }
            if entry >> 32 == hash, let position = Self.position(entry), slots[position]?.id == id {
                closeGap(at: bucket)
                count -= 1
                return position
            }
            bucket = (bucket + 1) & mask
        }
    }

    /// Empties the index, keeping its capacity.
    mutating func removeAll() {
        for bucket in table.indices { table[bucket] = 0 }
        count = 0
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
            let distanceToNext = (next - entryHome) & mask
            let distanceToGap = (gap - entryHome) & mask
            if distanceToGap < distanceToNext {
                table[gap] = table[next]
                gap = next
            }
            next = (next + 1) & mask
        }
        table[gap] = 0
    }

    private mutating func grow() {
        let old = table
        bits += 1
        table = [UInt64](repeating: 0, count: 1 << bits)
        let mask = table.count - 1
        for entry in old where entry != 0 {
            var bucket = home(entry >> 32)
            while table[bucket] != 0 { bucket = (bucket + 1) & mask }
            table[bucket] = entry
        }
    }

    /// The home bucket of a 32-bit hash: its top `bits` bits.
    private func home(_ hash: UInt64) -> Int {
        Int(truncatingIfNeeded: hash >> (32 - UInt64(bits)))
    }

    private static func position(_ entry: UInt64) -> Int? {
        let stored = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF)
        return stored > 0 ? stored - 1 : nil
    }

    /// The smallest table size exponent (at least 4, at most 32) that holds `count` entries at 3/4 load.
    private static func bits(for count: Int) -> Int {
        var bits = 4
        while bits < 32, (1 << bits) * 3 < count * 4 { bits += 1 }
        return bits
    }

    /// A 32-bit hash of the id's 128 bits, keyed with the process seed (two rounds of a multiply-xorshift mix, as
    /// in SplitMix64).
    static func hash(_ id: UUID) -> UInt64 {
        let (low, high) = withUnsafeBytes(of: id.uuid) { raw in
            (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
        var mixed = (low ^ seed) &* 0x9E37_79B9_7F4A_7C15
        mixed ^= high
        mixed = (mixed ^ (mixed >> 31)) &* 0xBF58_476D_1CE4_E5B9
        mixed ^= mixed >> 29
        return mixed >> 32
    }

    private static let seed = UInt64.random(in: UInt64.min...UInt64.max)
}

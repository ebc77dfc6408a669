import Foundation

/// Where each item sits in an `ItemCollection`, by id: 64 open-addressing hash tables (shards) with linear probing
/// and backward-shift deletion (no tombstones), each at most 3/4 full.
///
/// Why not `[UUID: Int]`: with a list that grows by hundreds of thousands of items, that dictionary was ~10% of
/// the server's CPU in the pipelined benchmark (SipHash of 16 bytes per probe and per rehash, three arrays touched
/// per insert). Here an entry is one 8-byte word — the id's 32-bit hash (its fingerprint) and the position + 1 —
/// so an insert touches one cache line, and growing rehashes from the stored bits without reading any id again.
/// Ids are compared only when fingerprints match.
///
/// Why shards: the index is a value shared with every snapshot of the list (a `list` reply being encoded holds
/// one). The first change after a snapshot copies only the shard it touches, 1/64 of the index, instead of all of
/// it; and a shard that outgrows itself rehashes 1/64 of the entries, so no single change pays for the whole table.
///
/// The index never holds ids: lookups are given `idAt`, the id stored at a position. The hash is keyed with a
/// per-process random seed, so the layout cannot be predicted from outside (the server makes every id itself).
struct ItemIndex: Sendable {
    private var shards: [Shard]
    /// The number of entries.
    private(set) var count = 0

    /// An index for at least `minimumCapacity` entries before any shard has to grow.
    init(minimumCapacity: Int = 0) {
        // Hashes spread evenly, so a shard gets about 1/64 of the entries; the slack covers the spread.
        let perShard = minimumCapacity == 0 ? 0 : minimumCapacity / Self.shardCount + 4 * Int(Double(minimumCapacity / Self.shardCount).squareRoot()) + 16
        // One table each: `Array(repeating:)` would make them all share one, copied at each shard's first insert.
        shards = (0..<Self.shardCount).map { _ in Shard(minimumCapacity: perShard) }
    }

    /// The position stored for `id`, if any. `idAt(position)` is the id stored at a position.
    func position(of id: UUID, idAt: (Int) -> UUID?) -> Int? {
        let hash = Self.hash(id)
        return shards[Self.shard(hash)].position(of: id, hash: hash, idAt: idAt)
    }

    /// Records `position` for `id` unless the id is already there.
    /// - Returns: the position already stored for `id` (nothing changed), or nil when it was added.
    mutating func insert(_ id: UUID, at position: Int, idAt: (Int) -> UUID?) -> Int? {
        precondition(position >= 0 && position < Int(UInt32.max), "an item position beyond 2^32 - 2")
        let hash = Self.hash(id)
        let existing = shards[Self.shard(hash)].insert(id, hash: hash, at: position, idAt: idAt)
        if existing == nil { count += 1 }
        return existing
    }

    /// Reads the bucket `id` would be inserted at, so that a later `insert` finds it in the cache. In a large
    /// index every insert misses the cache (the buckets of random ids are far apart); reading the buckets of
    /// several ids one after another lets those misses overlap instead of each stalling its own insert.
    /// - Returns: the bucket's contents, meaningless: keep it somewhere (folded into a value the caller stores) so
    ///   the read is not optimised away.
    func touch(_ id: UUID) -> UInt64 {
        let hash = Self.hash(id)
        return shards[Self.shard(hash)].touch(hash)
    }

    /// Removes `id`'s entry.
    /// - Returns: the position that was stored for it, or nil when it was not there.
    mutating func remove(_ id: UUID, idAt: (Int) -> UUID?) -> Int? {
        let hash = Self.hash(id)
        let removed = shards[Self.shard(hash)].remove(id, hash: hash, idAt: idAt)
        if removed != nil { count -= 1 }
        return removed
    }

    /// Where each shard's table is stored (for tests: after a change, the shards it did not touch are still the
    /// ones a snapshot shares).
    var shardAddresses: [UInt] {
        shards.map { shard in shard.table.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }
    }

    /// Buckets in all shards together (for tests: the index shrinks with the list when it is compacted).
    var capacity: Int {
        shards.reduce(0) { $0 + $1.table.count }
    }

    /// The number of shards: the top 6 bits of a hash pick one.
    static let shardCount = 64

    private static func shard(_ hash: UInt64) -> Int {
        Int(truncatingIfNeeded: hash >> 26)
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

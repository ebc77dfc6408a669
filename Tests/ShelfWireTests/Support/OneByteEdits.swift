/// Every line one byte away from a seed line: each byte deleted, and each of `replacements` put in its place and
/// inserted before it. The fast request paths are checked against the general one on these.
enum OneByteEdits {
    static func of(_ seed: [UInt8], using replacements: [UInt8]) -> [[UInt8]] {
        var variants: [[UInt8]] = []
        for position in seed.indices {
            var deleted = seed
            deleted.remove(at: position)
            variants.append(deleted)
            for byte in replacements {
                var replaced = seed
                replaced[position] = byte
                variants.append(replaced)
                var inserted = seed
                inserted.insert(byte, at: position)
                variants.append(inserted)
            }
        }
        return variants
    }
}

/// A fixed-size log-linear histogram of durations in nanoseconds (like HdrHistogram): exact below 64 ns, then
/// 32 buckets per power of two, so any recorded value is reported within 1/32 (about 3 %). 16 KiB whatever the
/// number of samples; histograms of different connections merge by adding.
struct LatencyHistogram: Sendable {
    private static let subBuckets = 32
    private static let linearLimit = 64
    /// 64 exact buckets, then 32 per octave for bit widths 7...63.
    private static let bucketCount = linearLimit + (63 - 6) * subBuckets

    private var buckets = [UInt64](repeating: 0, count: bucketCount)
    private(set) var count: UInt64 = 0
    private(set) var sumNanoseconds: Double = 0
    private(set) var maxNanoseconds: Int64 = 0

    /// Records one duration (negative ones count as 0).
    mutating func record(_ duration: Duration) {
        let nanoseconds = max(0, Self.nanoseconds(duration))
        buckets[Self.bucket(of: nanoseconds)] += 1
        count += 1
        sumNanoseconds += Double(nanoseconds)
        maxNanoseconds = max(maxNanoseconds, nanoseconds)
    }

    /// Adds `other`'s samples to this histogram.
    mutating func merge(_ other: LatencyHistogram) {
        for index in buckets.indices { buckets[index] += other.buckets[index] }
        count += other.count
        sumNanoseconds += other.sumNanoseconds
        maxNanoseconds = max(maxNanoseconds, other.maxNanoseconds)
    }

    /// The smallest recorded value that at least `quantile` (0...1) of the samples do not exceed, as the middle of
    /// its bucket, in nanoseconds; 0 when empty.
    func percentile(_ quantile: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = max(1, UInt64((quantile * Double(count)).rounded(.up)))
        var seen: UInt64 = 0
        for (index, samples) in buckets.enumerated() where samples > 0 {
            seen += samples
            if seen >= rank { return min(Self.middle(of: index), Double(maxNanoseconds)) }
        }
        return Double(maxNanoseconds)
    }

    /// The mean in nanoseconds; 0 when empty.
    var meanNanoseconds: Double {
        count == 0 ? 0 : sumNanoseconds / Double(count)
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let parts = duration.components
        return parts.seconds &* 1_000_000_000 &+ parts.attoseconds / 1_000_000_000
    }

    static func bucket(of nanoseconds: Int64) -> Int {
        guard nanoseconds >= Int64(linearLimit) else { return Int(nanoseconds) }
        let width = 64 - nanoseconds.leadingZeroBitCount  // 7...63
        let shift = width - 6
        let mantissa = Int(nanoseconds >> Int64(shift))  // 32...63
        return linearLimit + (width - 7) * subBuckets + (mantissa - subBuckets)
    }

    /// The middle of bucket `index`'s value range.
    static func middle(of index: Int) -> Double {
        guard index >= linearLimit else { return Double(index) }
        let octave = (index - linearLimit) / subBuckets
        let mantissa = (index - linearLimit) % subBuckets + subBuckets
        let shift = octave + 1
        let low = Double(mantissa) * Double(1 << shift)
        return low + Double(1 << shift) / 2
    }
}

/// The word-at-a-time scan shared by the parser and the writer: skipping string bytes that need no attention.
enum StringByteScan {
    /// Skips whole 8-byte words that contain no `"`, no `\` and no byte below 0x20, starting at `start`.
    ///
    /// SWAR: `(x - 0x01..) & ~x & 0x80..` is non-zero exactly when some byte of `x` is zero, so applying it to
    /// `word ^ repeated(c)` finds a byte equal to `c`; `(word - 0x20..) & ~word & 0x80..` is non-zero exactly when
    /// some byte is below 0x20. Bytes ≥ 0x80 (UTF-8 sequences) never trigger either test on their own.
    /// - Returns: the first index of a word that may contain such a byte, or of the final partial word; the caller
    ///   looks at the remaining bytes one by one.
    @inline(__always)
    static func skipPlainWords(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return start }
        let raw = UnsafeRawPointer(base)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var i = start
        while i + 8 <= bytes.count {
            let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let quotes = word ^ (ones &* 0x22)
            let backslashes = word ^ (ones &* 0x5C)
            let special = ((quotes &- ones) & ~quotes)
                | ((backslashes &- ones) & ~backslashes)
                | ((word &- ones &* 0x20) & ~word)
            if special & highs != 0 { break }
            i += 8
        }
        return i
    }

    /// True for the bytes a JSON string cannot hold raw (RFC 8259 §7): `"`, `\` and U+0000–U+001F.
    @inline(__always)
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}

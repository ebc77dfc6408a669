// UTF-8 validation, done once over the whole input before parsing (RFC 8259 §8.1: JSON text is UTF-8).

extension JSONParser {
    /// Checks that `bytes` is well-formed UTF-8 per Unicode §3.9, table 3-7.
    ///
    /// Rejects stray continuation bytes, overlong encodings (`C0 80`), encoded surrogates (`ED A0 80`), code
    /// points above U+10FFFF (`F4 90 ...`, `F5`–`FF`) and sequences cut short. ASCII is checked eight bytes at a
    /// time.
    /// - Throws: ``JSONParseError/invalidUTF8(offset:)`` at the first byte of the first ill-formed sequence.
    static func validateUTF8(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) {
        guard let base = bytes.baseAddress else { return }
        let count = bytes.count
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i < count {
            // Fast path: skip whole words of ASCII.
            while i + 8 <= count && raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
            }
            guard i < count else { return }
            let lead = base[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var secondLow: UInt8 = 0x80
            var secondHigh: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF:
                length = 2
            case 0xE0:
                length = 3
                secondLow = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF:
                length = 3
            case 0xED:
                length = 3
                secondHigh = 0x9F
            case 0xF0:
                length = 4
                secondLow = 0x90
            case 0xF1...0xF3:
                length = 4
            case 0xF4:
                length = 4
                secondHigh = 0x8F
            default:
                throw .invalidUTF8(offset: i)
            }
            guard i + length <= count else { throw .invalidUTF8(offset: i) }
            let second = base[i + 1]
            guard second >= secondLow && second <= secondHigh else { throw .invalidUTF8(offset: i) }
            for k in 2..<length where base[i + k] & 0xC0 != 0x80 {
                throw .invalidUTF8(offset: i)
            }
            i += length
        }
    }
}

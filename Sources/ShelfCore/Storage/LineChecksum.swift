/// The checksum every line of a format 3 snapshot and of a journal with a header ends with (protocol/STORAGE.md,
/// "Checksums"): the JSON object's last member is `"crc":"XXXXXXXX"`, 8 lowercase hex digits of the CRC-32C of the
/// line's bytes before `,"crc":"`. So a line stays one JSON object (a reader that ignores unknown members reads it
/// as before), the checksum is found at a fixed distance from the line's end, and writing it costs one pass over
/// bytes already encoded, not a second encoding.
enum LineChecksum {
    /// `,"crc":"` + 8 hex digits + `"}`.
    static let suffixLength = 18
    private static let opening: [UInt8] = Array(#","crc":""#.utf8)

    /// What a line's end says about its checksum.
    enum Check {
        /// No `"crc"` member at the end: a line of a format without checksums.
        case absent
        /// The checksum matches; `body` is the line without its suffix (ending where `,"crc"` began).
        case valid(body: ArraySlice<UInt8>)
        /// The line ends with a `"crc"` member whose digits are not the CRC-32C of the bytes before it.
        case mismatch
    }

    /// Turns the JSON object that ends `bytes` and starts at `start` (its last byte being `}`) into a checksummed
    /// line: the `}` is replaced by `,"crc":"XXXXXXXX"}`. No LF is added.
    static func seal(_ bytes: inout [UInt8], from start: Int) {
        bytes.removeLast()
        let crc = bytes.withUnsafeBufferPointer { CRC32C.checksum(UnsafeBufferPointer(rebasing: $0[start...])) }
        // The suffix is made whole, then appended at once: one capacity check, not eighteen. Written byte by byte
        // and the digits computed: a static table's lazy initialisation and bounds checks cost more than that.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: suffixLength) { suffix in
            guard let out = suffix.baseAddress else { return }
            // `,"crc":"`, a byte at a time (iterating a literal's UTF-8 view costs more than the checksum).
            out[0] = UInt8(ascii: ",")
            out[1] = UInt8(ascii: "\"")
            out[2] = UInt8(ascii: "c")
            out[3] = UInt8(ascii: "r")
            out[4] = UInt8(ascii: "c")
            out[5] = UInt8(ascii: "\"")
            out[6] = UInt8(ascii: ":")
            out[7] = UInt8(ascii: "\"")
            for digit in 0..<8 {
                let nibble = UInt8(truncatingIfNeeded: crc >> UInt32(28 - 4 * digit)) & 0xF
                out[8 + digit] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
            }
            out[suffixLength - 2] = UInt8(ascii: "\"")
            out[suffixLength - 1] = UInt8(ascii: "}")
            bytes.append(contentsOf: UnsafeBufferPointer(start: out, count: suffixLength))
        }
    }

    /// Checks the checksum at the end of `line` (without its LF).
    static func check(_ line: ArraySlice<UInt8>) -> Check {
        guard line.count > suffixLength, line.last == UInt8(ascii: "}") else { return .absent }
        let suffixStart = line.endIndex - suffixLength
        guard line[line.endIndex - 2] == UInt8(ascii: "\""), line[suffixStart..<(suffixStart + 8)].elementsEqual(opening)
        else { return .absent }
        var stored: UInt32 = 0
        for byte in line[(suffixStart + 8)..<(line.endIndex - 2)] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: return .mismatch
            }
            stored = stored << 4 | UInt32(digit)
        }
        let body = line[..<suffixStart]
        return CRC32C.checksum(body) == stored ? .valid(body: body) : .mismatch
    }
}

import Foundation

extension UUID {
    /// The id as sent on the wire and stored: lowercase, hyphenated (protocol/PROTOCOL.md, `Item`).
    public var wireString: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(36)
        appendWireText(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the 36 characters of `wireString` without building a String: written into a stack buffer, then
    /// appended at once (one capacity check instead of 36; this runs for every item of every reply).
    public func appendWireText(to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { text in
            withUnsafeBytes(of: uuid) { raw in
                var offset = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[offset] = UInt8(ascii: "-")
                        offset += 1
                    }
                    text[offset] = Self.hexDigit(raw[index] >> 4)
                    text[offset + 1] = Self.hexDigit(raw[index] & 0x0F)
                    offset += 2
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(text))
        }
    }

    /// The lowercase hex digit of a value 0...15.
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
    }

    /// Parses the 36-character hyphenated form, hex digits in either case — what `UUID(uuidString:)` accepts, at a
    /// fraction of its cost (a million-item store parses a million ids at start-up). `nil` for anything else.
    public init?(wireText text: String) {
        let parsed: UUID?? = text.utf8.withContiguousStorageIfAvailable { UUID(wireBytes: $0) }
        switch parsed {
        case .some(let id?):
            self = id
        case .some(nil):
            return nil
        case nil:
            // Not contiguous UTF-8 (a bridged string): let Foundation read it.
            guard let id = UUID(uuidString: text) else { return nil }
            self = id
        }
    }

    /// `init(wireText:)` on the UTF-8 bytes of the text.
    public init?(wireBytes chars: UnsafeBufferPointer<UInt8>) {
        guard chars.count == 36 else { return nil }
        var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                    UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed = withUnsafeMutableBytes(of: &bytes) { out in
            var index = 0
            for byteIndex in 0..<16 {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard chars[index] == UInt8(ascii: "-") else { return false }
                    index += 1
                }
                guard let high = Self.hexValue(chars[index]), let low = Self.hexValue(chars[index + 1]) else { return false }
                out[byteIndex] = high << 4 | low
                index += 2
            }
            return true
        }
        guard parsed else { return nil }
        self.init(uuid: bytes)
    }

    private static func hexValue(_ char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): char - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): char - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): char - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

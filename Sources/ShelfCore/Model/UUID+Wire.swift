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
            guard let start = text.baseAddress else { return }
            writeWireText(to: start)
            bytes.append(contentsOf: UnsafeBufferPointer(text))
        }
    }

    /// Writes the 36 characters of `wireString` at `text`.
    /// - Important: `text` must have room for 36 bytes; nothing is checked.
    func writeWireText(to text: UnsafeMutablePointer<UInt8>) {
        let digits = Self.hexDigits.utf8Start
        withUnsafeBytes(of: uuid) { raw in
            var out = text
            for index in 0..<16 {
                let byte = raw[index]
                out[0] = digits[Int(byte >> 4)]
                out[1] = digits[Int(byte & 0x0F)]
                out += 2
                if index == 3 || index == 5 || index == 7 || index == 9 {
                    out.pointee = UInt8(ascii: "-")
                    out += 1
                }
            }
        }
    }

    private static let hexDigits: StaticString = "0123456789abcdef"

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

    /// `init(wireText:)` on the UTF-8 bytes of the text (for the package's request parsers).
    package init?(wireBytes chars: UnsafeBufferPointer<UInt8>) {
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

import Foundation

extension UUID {
    /// The id as sent on the wire and stored: lowercase, hyphenated (protocol/PROTOCOL.md, `Item`).
    public var wireString: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(36)
        appendWireText(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the 36 characters of `wireString` without building a String.
    public func appendWireText(to bytes: inout [UInt8]) {
        let digits: StaticString = "0123456789abcdef"
        withUnsafeBytes(of: uuid) { raw in
            digits.withUTF8Buffer { hex in
                for (index, byte) in raw.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 { bytes.append(UInt8(ascii: "-")) }
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0x0F)])
                }
            }
        }
    }
}

/// Writes JSON pieces into memory the caller has already sized (typically a stack buffer), each a copy and a
/// pointer bump: what a fast encoder uses instead of many small `Array.append`s, each of which checks capacity and
/// uniqueness. For the package's encoders (`Item.appendJSON`, `MethodResult.appendResponse`).
///
/// - Important: nothing is checked: the caller sizes the memory for the most it writes.
package struct JSONByteCursor {
    /// Where the next byte goes.
    package private(set) var position: UnsafeMutablePointer<UInt8>

    /// A cursor at `start`.
    package init(_ start: UnsafeMutablePointer<UInt8>) {
        position = start
    }

    /// Copies a fixed piece of JSON, e.g. `{"revision":`.
    package mutating func put(_ text: StaticString) {
        position.update(from: text.utf8Start, count: text.utf8CodeUnitCount)
        position += text.utf8CodeUnitCount
    }

    /// Copies `bytes` as they are.
    package mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        position.update(from: base, count: bytes.count)
        position += bytes.count
    }

    /// Writes one byte.
    package mutating func put(_ byte: UInt8) {
        position.pointee = byte
        position += 1
    }

    /// Writes `value` in decimal: 1 to 20 bytes.
    package mutating func putInteger(_ value: UInt64) {
        var digits = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        rest = value
        for offset in stride(from: digits - 1, through: 0, by: -1) {
            position[offset] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        position += digits
    }

    /// Moves past `count` bytes another writer put at `position`.
    package mutating func advance(by count: Int) {
        position += count
    }
}

import Foundation

/// A cursor over the narrow JSON subset the store's writers produce (no whitespace, strings without escapes,
/// integers as plain digits), for the readers that take their own layouts straight from the bytes
/// (`ItemLineParser`, `PlainRecord`). Each method answers `nil` or `false` for anything outside the subset, and the
/// caller then reads the line with `JSONParser`, which decides it exactly.
struct PlainLineCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    var atEnd: Bool { index == bytes.count }

    /// Skips `literal` if the bytes continue with it.
    mutating func skip(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count, let base = bytes.baseAddress,
              memcmp(base + index, literal.utf8Start, count) == 0
        else { return false }
        index += count
        return true
    }

    /// The bytes up to the next `"`, which is skipped; `nil` when they hold a backslash or a control character
    /// (an escape, or a string JSON forbids: the general parser decides).
    mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)])
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    mutating func boolean() -> Bool? {
        if skip("true") { return true }
        if skip("false") { return false }
        return nil
    }

    /// Digits without a leading zero (JSON's integer form), within `UInt64`.
    mutating func wholeNumber() -> UInt64? {
        let start = index
        var value: UInt64 = 0
        while index < bytes.count, bytes[index] &- 48 < 10 {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[index] &- 48))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
            index += 1
        }
        let digits = index - start
        guard digits >= 1, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        return value
    }
}

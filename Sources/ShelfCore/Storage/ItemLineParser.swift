import Foundation

/// Reads a stored item line laid out exactly as `Item.appendJSON` writes it —
/// `{"id":"…","title":"…","isRead":true|false,"addedAt":"…","revision":N}`, no whitespace, no escapes in the
/// strings — without building a `JSONValue`: start-up reads a million of them.
///
/// Anything else (another member order, whitespace, an escape, invalid UTF-8, a number that is not plain digits)
/// gives `nil`, and the caller parses the line as general JSON, which accepts every valid layout and says what is
/// wrong with an invalid one. So this only ever accepts lines the general path accepts, with the same fields.
enum ItemLineParser {
    /// The members of one item line, before the checks every stored item gets (`SnapshotCodec.checkedItem`).
    struct Fields {
        let id: UUID
        let title: String
        let isRead: Bool
        let addedAt: Date
        let revision: Revision
    }

    /// - Parameter closed: whether the line ends with the object's `}`; `false` for the body of a checksummed line
    ///   (`LineChecksum.Check.valid`), which ends right after the revision's digits.
    static func parse(_ line: ArraySlice<UInt8>, closed: Bool = true) -> Fields? {
        line.withUnsafeBufferPointer { buffer -> Fields? in
            var cursor = Cursor(bytes: buffer)
            guard cursor.skip(#"{"id":""#), let idText = cursor.plainString(), idText.count == 36,
                  let id = UUID(wireBytes: idText),
                  cursor.skip(#","title":""#), let titleBytes = cursor.plainString(),
                  let title = String(validating: titleBytes, as: UTF8.self),
                  cursor.skip(#","isRead":"#), let isRead = cursor.boolean(),
                  cursor.skip(#","addedAt":""#), let addedText = cursor.plainString(),
                  let milliseconds = Timestamp.parseMilliseconds(addedText),
                  cursor.skip(#","revision":"#), let revision = cursor.wholeNumber(),
                  !closed || cursor.skip("}"), cursor.atEnd
            else { return nil }
            return Fields(
                id: id, title: title, isRead: isRead, addedAt: Timestamp.date(milliseconds: milliseconds),
                revision: revision)
        }
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

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
}

import Foundation

/// RFC 3339 UTC timestamps with millisecond precision, e.g. `2026-11-29T13:14:15.123Z`: the text form of
/// `Item.addedAt` on the wire (protocol/PROTOCOL.md) and in the file store (protocol/STORAGE.md).
///
/// Dates are reduced to whole milliseconds and rebuilt from that integer, so equal milliseconds give equal dates:
/// `Date` is binary floating point, and most decimal milliseconds (`.123`) have no exact form in it.
///
/// Formatting and parsing are done here by calendar arithmetic rather than with `Date.ISO8601FormatStyle`: a
/// million-item store parses a million of them at start-up and formats them at compaction, where the format style
/// costs microseconds each, and its parser is lenient (it takes 2023-02-29 as March 1st).
public enum Timestamp {
    /// Milliseconds from 1970-01-01 to the reference date 2001-01-01, which `Date` counts from.
    private static let referenceOffset: Int64 = 978_307_200_000
    private static let millisecondsPerDay: Int64 = 86_400_000

    /// Drops sub-millisecond precision so that `parse(format(date)) == date`.
    public static func truncated(_ date: Date) -> Date {
        Self.date(milliseconds: milliseconds(date))
    }

    /// Formats `date` as RFC 3339 UTC with milliseconds: `YYYY-MM-DDTHH:MM:SS.mmmZ` (years 0000–9999).
    public static func format(_ date: Date) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(24)
        append(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the 24 characters of `format(date)` without building a String: written into a stack buffer, then
    /// appended at once (one capacity check instead of 24; this runs for every item of every reply).
    public static func append(_ date: Date, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
            guard let start = text.baseAddress else { return }
            write(date, to: start)
            bytes.append(contentsOf: UnsafeBufferPointer(text))
        }
    }

    /// Writes the 24 bytes `append(_:to:)` appends at `start`.
    /// - Important: `start` must have room for 24 bytes; nothing is checked.
    static func write(_ date: Date, to start: UnsafeMutablePointer<UInt8>) {
        let ms = milliseconds(date)
        let days = floorDivide(ms, millisecondsPerDay)
        let inDay = ms - days * millisecondsPerDay
        let (year, month, day) = civil(fromDays: days)
        let text = UnsafeMutableBufferPointer(start: start, count: 24)
        put(max(0, min(9999, year)), digits: 4, at: 0, in: text)
        text[4] = UInt8(ascii: "-")
        put(month, digits: 2, at: 5, in: text)
        text[7] = UInt8(ascii: "-")
        put(day, digits: 2, at: 8, in: text)
        text[10] = UInt8(ascii: "T")
        put(inDay / 3_600_000, digits: 2, at: 11, in: text)
        text[13] = UInt8(ascii: ":")
        put(inDay / 60_000 % 60, digits: 2, at: 14, in: text)
        text[16] = UInt8(ascii: ":")
        put(inDay / 1000 % 60, digits: 2, at: 17, in: text)
        text[19] = UInt8(ascii: ".")
        put(inDay % 1000, digits: 3, at: 20, in: text)
        text[23] = UInt8(ascii: "Z")
    }

    /// Parses RFC 3339 text (`YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, `T` and `Z` in either case) with a real
    /// calendar date; fractions of any length are truncated to milliseconds, and a leap second (`:60`, at any
    /// minute: offsets move it) is the next second's start, as POSIX time counts. `nil` when it is not such a
    /// timestamp, or when the instant falls outside years 0000–9999 UTC (`9999-12-31T23:30:00-01:00`, and so
    /// `9999-12-31T23:59:60Z`).
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parseMilliseconds($0) }.map { date(milliseconds: $0) }
    }

    /// Milliseconds since 1970 for RFC 3339 text, or `nil`.
    static func parseMilliseconds(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard b.count >= 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] | 0x20 == UInt8(ascii: "t"),
              b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
              let year = number(b, 0, 4), let month = number(b, 5, 2), let day = number(b, 8, 2),
              let hour = number(b, 11, 2), let minute = number(b, 14, 2), let second = number(b, 17, 2),
              (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              // 60: a leap second (RFC 3339 §5.7), counted as the next second's start, as POSIX time does.
              hour < 24, minute < 60, second <= 60
        else { return nil }
        var index = 19
        var millis: Int64 = 0
        if b[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < b.count, b[index] &- 48 < 10 { index += 1 }
            // RFC 3339 allows any number of digits; past the third they are dropped (truncation, not rounding).
            let digits = index - start
            guard digits >= 1 else { return nil }
            for position in 0..<3 { millis = millis * 10 + (position < digits ? Int64(b[start + position] - 48) : 0) }
        }
        var offset: Int64 = 0
        if index == b.count - 1, b[index] | 0x20 == UInt8(ascii: "z") {
            offset = 0
        } else if index == b.count - 6, b[index] == UInt8(ascii: "+") || b[index] == UInt8(ascii: "-"),
                  b[index + 3] == UInt8(ascii: ":"), let hours = number(b, index + 1, 2), let minutes = number(b, index + 4, 2),
                  hours < 24, minutes < 60 {
            offset = (hours * 60 + minutes) * 60_000 * (b[index] == UInt8(ascii: "+") ? 1 : -1)
        } else {
            return nil
        }
        let days = self.days(fromCivil: year, month, day)
        let ms = days * millisecondsPerDay + hour * 3_600_000 + minute * 60_000 + second * 1000 + millis - offset
        // An offset can carry 0000-01-01 or 9999-12-31 out of the years `format` writes: such an instant has no UTC
        // form here, and served or stored it would be rewritten as another date.
        return representable.contains(ms) ? ms : nil
    }

    /// The instants `format` writes faithfully, in milliseconds since 1970: 0000-01-01T00:00:00.000Z through
    /// 9999-12-31T23:59:59.999Z.
    private static let representable: ClosedRange<Int64> =
        days(fromCivil: 0, 1, 1) * millisecondsPerDay...(days(fromCivil: 9999, 12, 31) + 1) * millisecondsPerDay - 1

    static func date(milliseconds ms: Int64) -> Date {
        Date(timeIntervalSinceReferenceDate: Double(ms - referenceOffset) / 1000)
    }

    /// Whole milliseconds since 1970, rounded down; a value within 2 µs below a boundary counts as on it, since that
    /// is binary rounding noise (a parsed `.123` can come back as `.12299999…`).
    private static func milliseconds(_ date: Date) -> Int64 {
        let sinceReference = date.timeIntervalSinceReferenceDate * 1000
        let slack = max(0.002, 4 * sinceReference.ulp)
        return Int64((sinceReference + slack).rounded(.down)) + referenceOffset
    }

    private static func number(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int64? {
        var value: Int64 = 0
        for index in start..<(start + count) {
            let digit = b[index] &- 48
            guard digit < 10 else { return nil }
            value = value * 10 + Int64(digit)
        }
        return value
    }

    /// Writes `value` (0 ≤ value < 10^digits) as `digits` decimal digits, zero-padded, from `start`.
    private static func put(_ value: Int64, digits: Int, at start: Int, in text: UnsafeMutableBufferPointer<UInt8>) {
        var rest = value
        for index in stride(from: start + digits - 1, through: start, by: -1) {
            text[index] = UInt8(48 + rest % 10)
            rest /= 10
        }
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (the well-known era-based algorithm).
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (inverse of `days(fromCivil:)`).
    private static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

import Foundation

/// RFC 3339 UTC timestamps with millisecond precision, e.g. `2026-11-29T13:14:15.123Z`: the text form of
/// `Item.addedAt` on the wire (protocol/PROTOCOL.md) and in the file store (protocol/STORAGE.md).
///
/// Dates are reduced to whole milliseconds and rebuilt from that integer, so equal milliseconds give equal dates:
/// `Date` is binary floating point, and most decimal milliseconds (`.123`) have no exact form in it.
public enum Timestamp {
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
    private static let wholeSeconds = Date.ISO8601FormatStyle(timeZone: .gmt)
    /// Milliseconds from 1970-01-01 to the reference date 2001-01-01, which `Date` counts from.
    private static let referenceOffset: Int64 = 978_307_200_000

    /// Drops sub-millisecond precision so that `parse(format(date)) == date`.
    public static func truncated(_ date: Date) -> Date {
        Date(timeIntervalSinceReferenceDate: Double(milliseconds(date) - referenceOffset) / 1000)
    }

    /// Formats `date` as RFC 3339 UTC with milliseconds.
    public static func format(_ date: Date) -> String {
        let ms = milliseconds(date)
        var seconds = ms / 1000
        var fraction = ms % 1000
        if fraction < 0 {
            seconds -= 1
            fraction += 1000
        }
        // "…T13:14:15Z": exact for a whole number of seconds; the milliseconds are added as digits.
        let whole = wholeSeconds.format(Date(timeIntervalSince1970: Double(seconds)))
        let digits = String(fraction)
        return whole.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// Parses RFC 3339 text with or without fractional seconds (truncated to milliseconds); `nil` when it is not
    /// a timestamp.
    public static func parse(_ text: String) -> Date? {
        guard let date = (try? style.parse(text)) ?? (try? wholeSeconds.parse(text)) else { return nil }
        return truncated(date)
    }

    /// Whole milliseconds since 1970, rounded down; a value within 2 µs below a boundary counts as on it, since
    /// that is binary rounding noise (a parsed `.123` can come back as `.12299999…`).
    private static func milliseconds(_ date: Date) -> Int64 {
        let sinceReference = date.timeIntervalSinceReferenceDate * 1000
        let slack = max(0.002, 4 * sinceReference.ulp)
        return Int64((sinceReference + slack).rounded(.down)) + referenceOffset
    }
}

import Foundation

/// RFC 3339 UTC timestamps with millisecond precision, e.g. `2026-11-29T13:14:15.123Z`: the text form of
/// `Item.addedAt` on the wire (protocol/PROTOCOL.md) and in the file store (protocol/STORAGE.md).
public enum Timestamp {
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    /// Drops sub-millisecond precision so that `parse(format(date)) == date`.
    public static func truncated(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }

    /// Formats `date` as RFC 3339 UTC with milliseconds.
    public static func format(_ date: Date) -> String {
        style.format(truncated(date))
    }

    /// Parses RFC 3339 text with or without fractional seconds; `nil` when it is not a timestamp.
    public static func parse(_ text: String) -> Date? {
        if let date = try? style.parse(text) { return date }
        return try? Date.ISO8601FormatStyle(timeZone: .gmt).parse(text)
    }
}

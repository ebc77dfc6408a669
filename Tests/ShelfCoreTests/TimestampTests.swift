import Foundation
import ShelfCore
import Testing

/// `Timestamp`: RFC 3339 UTC text with milliseconds, and exact round trips.
struct TimestampTests {
    @Test("a timestamp with milliseconds parses and formats back to the same text")
    func textRoundTrip() throws {
        let date = try #require(Timestamp.parse("2026-11-29T13:14:15.123Z"))

        #expect(Timestamp.format(date) == "2026-11-29T13:14:15.123Z")
        #expect(Timestamp.truncated(Date(timeIntervalSince1970: 1_795_958_055.123)) == date)
        #expect(abs(date.timeIntervalSince1970 - 1_795_958_055.123) < 0.000_001)
    }

    @Test("every millisecond of a second formats as itself and parses back to the same date")
    func everyMillisecond() throws {
        for ms in 0..<1_000 {
            let text = "2026-11-29T13:14:15." + String(String(1_000 + ms).dropFirst()) + "Z"
            let date = try #require(Timestamp.parse(text), "\(text)")
            #expect(Timestamp.format(date) == text)
            #expect(Timestamp.truncated(date) == date, "\(text)")
            #expect(Timestamp.parse(Timestamp.format(date)) == date, "\(text)")
        }
    }

    @Test("a truncated date survives format then parse exactly", arguments: [
        1_795_958_055.123_456, 1_795_958_055.001, 1_795_958_055.002_9, 1_800_000_000.999_999, 0.5, 1_234_567_890.007,
    ])
    func dateRoundTrip(seconds: Double) {
        let truncated = Timestamp.truncated(Date(timeIntervalSince1970: seconds))

        #expect(Timestamp.parse(Timestamp.format(truncated)) == truncated)
        #expect(Timestamp.truncated(truncated) == truncated)
    }

    @Test("truncation drops sub-millisecond precision rather than rounding to the nearest millisecond")
    func truncation() {
        let date = Date(timeIntervalSince1970: 1_795_958_055.123_9)
        #expect(Timestamp.format(date) == "2026-11-29T13:14:15.123Z")
        #expect(Timestamp.truncated(date) == Timestamp.parse("2026-11-29T13:14:15.123Z"))
    }

    @Test("text without fractional seconds or with an offset is accepted and normalised to UTC")
    func lenientParse() {
        #expect(Timestamp.parse("2026-11-29T13:14:15Z").map(Timestamp.format) == "2026-11-29T13:14:15.000Z")
        #expect(Timestamp.parse("2026-11-29T14:14:15.500+01:00").map(Timestamp.format) == "2026-11-29T13:14:15.500Z")
    }

    @Test("text that is not a timestamp parses to nil", arguments: ["", "yesterday", "2026-11-29", "2026-13-40T99:99:99Z"])
    func notATimestamp(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }
}

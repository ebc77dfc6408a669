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

    @Test("times in one millisecond format alike, the next one apart, and threads formatting at once each get their own")
    func millisecondsFromManyThreads() async {
        let base = 1_764_420_855.0  // 2025-11-29T12:54:15Z
        #expect(Timestamp.format(Date(timeIntervalSince1970: base + 0.1231)) == "2025-11-29T12:54:15.123Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: base + 0.1239)) == "2025-11-29T12:54:15.123Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: base + 0.124)) == "2025-11-29T12:54:15.124Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: base + 0.1231)) == "2025-11-29T12:54:15.123Z")
        // Threads writing different milliseconds at once each get their own text.
        let wrong = await withTaskGroup(of: Int.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    var wrong = 0
                    for step in 0..<5_000 {
                        let ms = (step * 4 + thread) % 1000
                        let text = Timestamp.format(Date(timeIntervalSince1970: base + Double(ms) / 1000 + 0.0001))
                        if text != "2025-11-29T12:54:15.\(String(ms + 1000).dropFirst())Z" { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }

    @Test("text that is not a timestamp parses to nil", arguments: ["", "yesterday", "2026-11-29", "2026-13-40T99:99:99Z"])
    func notATimestamp(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    /// Found by a hostile-input run: these loaded from a snapshot and were served as 9999-01-01T00:59:59.999Z and
    /// 0000-12-31T23:00:00.000Z, nearly a year off.
    @Test("an offset that carries the instant outside years 0000-9999 UTC parses to nil", arguments: [
        "9999-12-31T23:59:59.999-01:00", "9999-12-31T23:00:00-01:00", "0000-01-01T00:00:00.000+01:00", "0000-01-01T00:59:59+01:00",
    ])
    func outsideTheYearsFormatWrites(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test("the first and last instants of years 0000-9999 UTC parse and format back, with or without an offset")
    func edgesOfTheYears() {
        #expect(Timestamp.parse("0000-01-01T00:00:00.000Z").map(Timestamp.format) == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp.parse("0000-01-01T01:00:00.000+01:00").map(Timestamp.format) == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp.parse("9999-12-31T23:59:59.999Z").map(Timestamp.format) == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp.parse("9999-12-31T22:59:59.999-01:00").map(Timestamp.format) == "9999-12-31T23:59:59.999Z")
    }
}

/// The hand-written calendar arithmetic must agree with Foundation's ISO 8601 formatter everywhere.
@Suite struct TimestampCalendarTests {
    /// Compared to whole seconds: Foundation's own millisecond digits round binary noise down (`.123` can print as
    /// `.122`), which is the very thing `Timestamp` avoids; the millisecond digits are checked against the integer.
    @Test("format and parse agree with Foundation's ISO 8601 style for 20,000 seeded dates from 1970 to 9999")
    func agreesWithFoundation() throws {
        let style = Date.ISO8601FormatStyle(timeZone: .gmt)
        var state: UInt64 = 0x5EED
        for _ in 0..<20_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let ms = Int64(state >> 20) % 253_402_300_799_999
            let date = Date(timeIntervalSince1970: Double(ms) / 1000)
            let text = Timestamp.format(date)
            let seconds = style.format(Date(timeIntervalSince1970: Double(ms / 1000)))
            let millis = String(ms % 1000)
            #expect(text == seconds.dropLast() + "." + String(repeating: "0", count: 3 - millis.count) + millis + "Z", "ms \(ms)")
            #expect(Timestamp.parse(text) == Timestamp.truncated(date), "\(text)")
        }
    }

    @Test("leap days, month ends and impossible dates", arguments: [
        ("2024-02-29T00:00:00.000Z", true), ("2023-02-29T00:00:00.000Z", false), ("2000-02-29T12:00:00Z", true),
        ("1900-02-29T12:00:00Z", false), ("2026-04-31T00:00:00Z", false), ("2026-12-31T23:59:59.999Z", true),
        ("2026-13-01T00:00:00Z", false), ("2026-01-01T24:00:00Z", false), ("2026-01-01T00:00:00.1234567891Z", true),
        ("2026-01-01T00:00:61Z", false), ("2026-01-01T00:00:00.Z", false),
    ])
    func calendarRules(text: String, valid: Bool) {
        #expect((Timestamp.parse(text) != nil) == valid, "\(text)")
    }

    @Test("fractions are truncated to milliseconds and offsets still parse through Foundation")
    func fractionsAndOffsets() throws {
        #expect(Timestamp.format(try #require(Timestamp.parse("2026-11-29T13:14:15.1239Z"))) == "2026-11-29T13:14:15.123Z")
        #expect(Timestamp.format(try #require(Timestamp.parse("2026-11-29T13:14:15.5Z"))) == "2026-11-29T13:14:15.500Z")
        #expect(Timestamp.format(try #require(Timestamp.parse("2026-11-29T14:14:15.000+01:00"))) == "2026-11-29T13:14:15.000Z")
        // Found by a hostile-input run: RFC 3339 forms that refused a whole store.
        #expect(Timestamp.format(try #require(Timestamp.parse("2026-01-02T03:04:05.1234567890123Z"))) == "2026-01-02T03:04:05.123Z")
        #expect(Timestamp.format(try #require(Timestamp.parse("2016-12-31T23:59:60.500Z"))) == "2017-01-01T00:00:00.500Z")
    }
}

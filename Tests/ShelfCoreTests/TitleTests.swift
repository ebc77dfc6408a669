import ShelfCore
import Testing

/// `Title.validate`: trimming, blank, length and control characters.
struct TitleTests {
    static let controlScalars: [UInt32] = Array(0x00...0x1F) + [0x7F]

    @Test("whitespace, tabs and newlines around a title are trimmed; inside they are kept", arguments: [
        ("  Protocols  ", "Protocols"),
        ("\tProtocols\n", "Protocols"),
        ("\r\n\t Swift  Concurrency \t\r\n", "Swift  Concurrency"),
        ("\u{A0}Title\u{2003}", "Title"),
        ("Plain", "Plain"),
    ])
    func trimming(raw: String, trimmed: String) {
        #expect(Title.validate(raw) == .success(trimmed))
    }

    @Test("a title that is empty after trimming is blank", arguments: ["", " ", "   \n", "\t\r\n", "\u{A0}\u{2028}"])
    func blank(raw: String) {
        #expect(Title.validate(raw) == .failure(.blank))
        #expect(Title.Problem.blank.description == "Enter a title")
    }

    @Test("a control character inside a title is refused, naming the scalar", arguments: controlScalars)
    func controlCharacterInside(value: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(value))
        let raw = "Before" + String(Character(scalar)) + "After"

        #expect(Title.validate(raw) == .failure(.controlCharacter(scalar: value)))
    }

    @Test("a control character at either end is not trimmed away but refused")
    func controlCharacterAtEnds() {
        #expect(Title.validate("\u{0}Title") == .failure(.controlCharacter(scalar: 0)))
        #expect(Title.validate("Title\u{7F}") == .failure(.controlCharacter(scalar: 0x7F)))
        #expect(Title.validate("  Title\u{1B}  ") == .failure(.controlCharacter(scalar: 0x1B)))
    }

    @Test("the control character message names the scalar as U+XXXX")
    func controlCharacterDescription() {
        #expect(
            Title.Problem.controlCharacter(scalar: 0x09).description
                == "Title contains a control character (U+0009); remove it and try again")
        #expect(
            Title.Problem.controlCharacter(scalar: 0x7F).description
                == "Title contains a control character (U+007F); remove it and try again")
    }

    @Test("characters next to the control range are accepted")
    func nearControlAccepted() {
        #expect(Title.validate("a b") == .success("a b"))
        #expect(Title.validate("a~b") == .success("a~b"))
        #expect(Title.validate("a\u{A0}b") == .success("a\u{A0}b"))
    }

    @Test("1,000 characters are accepted and 1,001 are too long")
    func length() {
        let limit = String(repeating: "x", count: 1_000)
        #expect(Title.maxLength == 1_000)
        #expect(Title.validate(limit) == .success(limit))
        #expect(Title.validate("  " + limit + "\n") == .success(limit))
        #expect(Title.validate(limit + "y") == .failure(.tooLong(length: 1_001)))
        #expect(
            Title.Problem.tooLong(length: 1_001).description
                == "Title is too long: 1001 characters, the limit is 1000")
    }

    @Test("length counts characters, not scalars or bytes")
    func lengthInCharacters() {
        let accented = String(repeating: "e\u{301}", count: 1_000)
        let flags = String(repeating: "🇸🇪", count: 1_000)
        #expect(Title.validate(accented) == .success(accented))
        #expect(Title.validate(flags) == .success(flags))
        #expect(Title.validate(flags + "🇸🇪") == .failure(.tooLong(length: 1_001)))
    }

    @Test("a new title over 32 KiB of UTF-8 is too long even in few characters; a stored one is still read")
    func byteLimit() {
        // One character: "e" and 400,000 combining acute accents, 800,001 bytes (found by a newcomer's attack).
        let heavy = "e" + String(repeating: "\u{301}", count: 400_000)
        #expect(Title.maxBytes == 32_768)
        #expect(Title.validate(heavy) == .failure(.tooManyBytes(count: 800_001)))
        #expect(Title.Problem.tooManyBytes(count: 800_001).description
            == "Title is too long: 800001 bytes of UTF-8, the limit is 32768")
        #expect(Title.validate(heavy, checkingBytes: false) == .success(heavy))
        let families = String(repeating: "👨‍👩‍👧‍👦", count: 1_000)
        #expect(families.utf8.count == 25_000)
        #expect(Title.validate(families) == .success(families))
    }
}

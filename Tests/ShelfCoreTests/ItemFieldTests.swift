import Foundation
@testable import ShelfCore
import Testing

/// `ItemField`'s limits by bytes (protocol/PROTOCOL.md §9): a character may be one letter and any number of combining
/// marks, so the character limits alone let one "character" of hundreds of kilobytes through.
@Suite struct ItemFieldTests {
    /// "e" and `marks` combining acute accents: one character, 1 + 2 × marks bytes.
    private static func accented(_ base: String, marks: Int) -> String {
        base + String(repeating: "\u{301}", count: marks)
    }

    /// Found by an attack run: `"a"+"\u0301"*200000` (one character, 400 KB) was a valid tag, 32 of them ~13 MB per
    /// item, and the error for a bad one repeated `prefix(70)` characters of it, the whole tag.
    @Test("a tag of one character and 400,001 bytes is refused by its bytes, and the message quotes 64 bytes of it")
    func tagBytes() throws {
        let tag = Self.accented("a", marks: 200_000)
        let problem = ItemField.validateTag(tag)
        let quoted = "a" + String(repeating: "\u{301}", count: 31) + "…"
        #expect(problem == .failure(.tagTooManyBytes(tag: quoted, count: 400_001)))
        #expect(problem.failureDescription == "Tag \"\(quoted)\" is too long: 400001 bytes of UTF-8, the limit is 256")
        #expect(ItemField.validateTags(Array(repeating: tag, count: 32)).failureDescription?.utf8.count ?? .max < 200)
        // At the limit: 1 + 2 × 127 = 255 bytes; one mark more is 257.
        #expect(ItemField.validateTag(Self.accented("a", marks: 127)) == .success(Self.accented("a", marks: 127)))
        #expect(ItemField.validateTag(Self.accented("a", marks: 128)) == .failure(.tagTooManyBytes(tag: quoted, count: 257)))
        // Stored before the rule: still read.
        #expect(ItemField.validateTags([Self.accented("a", marks: 128)], checkingBytes: false) == .success([Self.accented("a", marks: 128)]))
    }

    @Test("a refused tag is quoted whole when short, and cut at 64 bytes of whole scalars when long")
    func tagExcerpts() {
        #expect(ItemField.validateTag("sci fi").failureDescription
            == "Tag \"sci fi\" contains U+0020; tags hold no whitespace, control characters or commas")
        let long = String(repeating: "b", count: 100_000) + " x"
        #expect(ItemField.validateTag(long).failureDescription
            == "Tag \"\(String(repeating: "b", count: 64))…\" contains U+0020; tags hold no whitespace, control characters or commas")
        // 22 three-byte characters are 66 bytes: 21 fit.
        let wide = String(repeating: "語", count: 65)
        #expect(ItemField.validateTag(wide) == .failure(.tagTooLong(tag: String(repeating: "語", count: 21) + "…", length: 65)))
    }

    /// Found by review: `author:"e"+"\u0301"*9000` was refused as "Author is too long: 1 characters, the limit is 500".
    @Test("an author or note over its byte limit in few characters says so with the byte count and the limit")
    func authorAndNoteBytes() {
        let author = ItemField.validateAuthor(Self.accented("e", marks: 9_000))
        #expect(author == .failure(.authorTooManyBytes(count: 18_001)))
        #expect(author.failureDescription == "Author is too long: 18001 bytes of UTF-8, the limit is 16384")
        let note = ItemField.validateNote(Self.accented("e", marks: 40_000))
        #expect(note == .failure(.noteTooManyBytes(count: 80_001)))
        #expect(note.failureDescription == "Note is too long: 80001 bytes of UTF-8, the limit is 65536")
        #expect(ItemField.validateAuthor(String(repeating: "a", count: 501)).failureDescription
            == "Author is too long: 501 characters, the limit is 500")
    }
}

extension Result where Failure == ItemField.Problem {
    /// The message of the problem, `nil` on success.
    fileprivate var failureDescription: String? {
        if case .failure(let problem) = self { return problem.description }
        return nil
    }
}

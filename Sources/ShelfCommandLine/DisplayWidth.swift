/// How many terminal columns text takes, counted per character (grapheme cluster) as terminals lay it out: East
/// Asian wide and fullwidth characters and emoji take two, combining marks and other zero-width characters none,
/// the rest one (Unicode UAX #11 and UTS #51). Text is assumed already made safe (`TerminalText.visible`): control
/// characters count one here.
package enum DisplayWidth {
    /// The columns `character` takes: 0, 1 or 2.
    package static func of(_ character: Character) -> Int {
        var sawVisible = false
        for scalar in character.unicodeScalars {
            // U+FE0F asks for the emoji presentation (❤️ is U+2764 U+FE0F): two columns.
            if scalar.value == 0xFE0F || isWide(scalar) { return 2 }
            if !isZeroWidth(scalar) { sawVisible = true }
        }
        return sawVisible ? 1 : 0
    }

    /// The columns `text` takes.
    package static func of<S: StringProtocol>(_ text: S) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// `text` cut to at most `columns` columns, ending in `…` when something was cut; whole characters only, so a
    /// wide character that would straddle the edge is left out.
    package static func truncate(_ text: String, to columns: Int) -> String {
        guard of(text) > columns else { return text }
        guard columns > 0 else { return "" }
        var result = ""
        var used = 0
        for character in text {
            let width = of(character)
            if used + width > columns - 1 { break }
            result.append(character)
            used += width
        }
        return result + "…"
    }

    private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return true
        default:
            // Hangul medial vowels and final consonants join the syllable before them.
            return (0x1160...0x11FF).contains(scalar.value) || scalar.value == 0x200B
        }
    }

    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.properties.isEmojiPresentation { return true }
        let value = scalar.value
        return wideRanges.contains { $0.contains(value) }
    }

    /// East Asian Wide (W) and Fullwidth (F) blocks outside the emoji (EastAsianWidth.txt, in blocks).
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
        0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
        0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18AFF, 0x1B000...0x1B2FF,
        0x1F200...0x1F202, 0x1F210...0x1F23B, 0x1F240...0x1F248, 0x1F250...0x1F251, 0x20000...0x2FFFD,
        0x30000...0x3FFFD,
    ]
}

/// How many terminal columns text takes: wide East Asian characters and emoji two, combining marks and other
/// zero-width scalars none, everything else one, counted per grapheme cluster (an emoji sequence joined with ZWJ
/// is one picture, two columns). Text is first made safe with `TerminalText.visible`, so it holds no control
/// characters.
public enum DisplayWidth {
    /// The columns `character` takes.
    public static func of(_ character: Character) -> Int {
        var width = 0
        for scalar in character.unicodeScalars {
            if scalar.value == 0xFE0F, width == 1 { return 2 }
            width = max(width, of(scalar))
        }
        return width
    }

    /// The columns `text` takes.
    public static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// The columns `scalar` takes on its own.
    static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x300 { return value < 0x20 || (0x7F..<0xA0).contains(value) ? 0 : 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if value == 0x200B || (0x1160...0x11FF).contains(value) { return 0 }
        if scalar.properties.isEmojiPresentation { return 2 }
        switch value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
             0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
             0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF,
             0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    /// `text` cut to at most `width` columns, ending with `…` when cut, and the columns it takes.
    public static func truncate(_ text: String, to width: Int) -> (text: String, width: Int) {
        guard width > 0 else { return ("", 0) }
        var result = ""
        var used = 0
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let columns = of(character)
            if used + columns > width {
                // Room for the ellipsis: drop characters until it fits.
                while used + 1 > width, let last = result.last {
                    result.removeLast()
                    used -= of(last)
                }
                return (result + "…", used + 1)
            }
            result.append(character)
            used += columns
            index = text.index(after: index)
        }
        return (result, used)
    }

    /// `text` cut or padded with spaces to exactly `width` columns.
    public static func fit(_ text: String, to width: Int) -> String {
        let (cut, used) = truncate(text, to: width)
        return used < width ? cut + String(repeating: " ", count: width - used) : cut
    }
}

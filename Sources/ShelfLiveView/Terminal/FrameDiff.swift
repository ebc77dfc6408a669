/// The bytes that turn the screen from one frame into the next: only the rows that changed are rewritten, each
/// with its style, then the cursor is placed or hidden; all of it is written with one `write`, so the terminal
/// never shows half a frame. A first frame, or one of another size, clears and draws everything.
public enum FrameDiff {
    /// The bytes from `old` (`nil`: the screen is in an unknown state) to `new`; `color` false draws styles with
    /// attributes only (`NO_COLOR`).
    public static func bytes(from old: Frame?, to new: Frame, color: Bool) -> [UInt8] {
        var out = "\u{1b}[?25l"
        let redraw = old == nil || old?.width != new.width || old?.height != new.height
        if redraw { out += "\u{1b}[H\u{1b}[2J" }
        for (index, row) in new.rows.enumerated() {
            if !redraw, let old, index < old.rows.count, old.rows[index] == row { continue }
            out += "\u{1b}[\(index + 1);1H" + sgr(row.style, color: color) + row.text + "\u{1b}[0m"
        }
        if let cursor = new.cursor {
            out += "\u{1b}[\(cursor.row + 1);\(cursor.column + 1)H\u{1b}[?25h"
        }
        return Array(out.utf8)
    }

    private static func sgr(_ style: Frame.Style, color: Bool) -> String {
        switch style {
        case .normal: ""
        case .selected, .bar: "\u{1b}[7m"
        case .error: color ? "\u{1b}[31m" : "\u{1b}[1m"
        case .dim: color ? "\u{1b}[2m" : ""
        }
    }
}

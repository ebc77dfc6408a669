/// One screenful: each row's text, exactly `width` columns, with the row's style; and where the cursor goes.
public struct Frame: Sendable, Equatable {
    /// How a row is drawn.
    public enum Style: Sendable, Equatable {
        case normal
        /// The selected item (reverse video).
        case selected
        /// The header and the status line (reverse video).
        case bar
        /// A refusal or failure (red, or bold without colour).
        case error
        /// A read item (dim).
        case dim
    }

    /// One row.
    public struct Row: Sendable, Equatable {
        /// Exactly the frame's width in columns, made safe.
        public var text: String
        public var style: Style

        /// A row showing `text` in `style`.
        public init(_ text: String, _ style: Style = .normal) {
            self.text = text
            self.style = style
        }
    }

    /// Columns.
    public let width: Int
    /// Rows.
    public let height: Int
    /// Top to bottom, `height` of them.
    public var rows: [Row]
    /// Where the cursor shows (row, column, 0-based); `nil` hides it.
    public var cursor: (row: Int, column: Int)?

    /// A frame of `height` rows.
    public init(width: Int, height: Int, rows: [Row], cursor: (row: Int, column: Int)? = nil) {
        self.width = width
        self.height = height
        self.rows = rows
        self.cursor = cursor
    }

    /// Same size, rows and cursor.
    public static func == (lhs: Frame, rhs: Frame) -> Bool {
        lhs.width == rhs.width && lhs.height == rhs.height && lhs.rows == rhs.rows
            && lhs.cursor?.row == rhs.cursor?.row && lhs.cursor?.column == rhs.cursor?.column
    }

    /// The rows' text, one line each (golden frames).
    public var text: String {
        rows.map(\.text).joined(separator: "\n") + "\n"
    }
}

import ShelfCommandLine

extension DisplayWidth {
    /// `text` cut (`truncate(_:to:)`, ending in `…`) or padded with spaces to exactly `width` columns: a frame's
    /// rows are whole, so a shorter row overwrites what the last frame had there.
    package static func fit(_ text: String, to width: Int) -> String {
        let cut = truncate(text, to: width)
        let used = of(cut)
        return used < width ? cut + String(repeating: " ", count: width - used) : cut
    }
}

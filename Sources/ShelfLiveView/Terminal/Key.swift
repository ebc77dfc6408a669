/// One key (or paste) the terminal sent, decoded (`KeyDecoder`).
public enum Key: Sendable, Equatable {
    /// A printable character (UTF-8 input decoded).
    case character(Character)
    /// Text pasted in bracketed-paste mode, as one piece.
    case paste(String)
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, escape, backspace, delete, tab, backTab
    /// Ctrl with a letter (`ctrl("c")`), other than the ones named above (Tab is Ctrl-I, Enter Ctrl-M).
    case control(Character)
}

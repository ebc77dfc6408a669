import Glibc

/// How wide standard output is, for cutting rows to fit: the terminal's width (TIOCGWINSZ) when standard output is
/// one, else `$COLUMNS`, else no limit (a pipe or a file gets whole rows).
package enum TerminalWidth {
    /// The columns rows may take; `nil` for no limit.
    package static func current(environment: [String: String]) -> Int? {
        choose(terminal: terminalColumns(), columns: environment["COLUMNS"])
    }

    /// The rule alone: the terminal's width when known and non-zero, else `columns` when it is a positive whole
    /// number, else no limit.
    package static func choose(terminal: Int?, columns: String?) -> Int? {
        if let terminal, terminal > 0 { return terminal }
        guard let columns, columns.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int(columns), value > 0
        else { return nil }
        return value
    }

    /// Whether standard output is a terminal.
    package static var outputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    private static func terminalColumns() -> Int? {
        guard outputIsTerminal else { return nil }
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 else { return nil }
        return Int(size.ws_col)
    }
}

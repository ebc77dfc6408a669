import Glibc

/// The terminal device calls the live view makes: its settings (saved, raw, restored), its size, and writes that
/// retry `EINTR` and finish partial writes. Blocking calls: made on the screen's own thread.
enum TTY {
    /// The settings of the terminal on `fd`, or `nil` when it is not a terminal.
    static func settings(_ fd: Int32) -> termios? {
        var settings = termios()
        while tcgetattr(fd, &settings) != 0 {
            if errno != EINTR { return nil }
        }
        return settings
    }

    /// Applies `settings` once the output written so far has gone out (`TCSADRAIN`: typed input is kept).
    static func apply(_ settings: termios, to fd: Int32) {
        var settings = settings
        while tcsetattr(fd, TCSADRAIN, &settings) != 0 {
            if errno != EINTR { return }
        }
    }

    /// `settings` in raw mode: no echo, no line editing, no signals from keys (Ctrl-C, Ctrl-Z arrive as bytes and
    /// the view handles them), no CR/LF translation; a read returns as soon as one byte is there.
    static func raw(_ settings: termios) -> termios {
        var raw = settings
        cfmakeraw(&raw)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        return raw
    }

    /// The size of the terminal on `fd` (columns, rows); 80x24 when it does not say.
    static func size(_ fd: Int32) -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Writes all of `bytes` to `fd`, waiting while it is full; gives up on an error other than `EINTR`/`EAGAIN`.
    static func write(_ bytes: [UInt8], to fd: Int32) {
        var offset = 0
        bytes.withUnsafeBytes { buffer in
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = Glibc.write(fd, base + offset, buffer.count - offset)
                if written >= 0 {
                    offset += written
                    continue
                }
                switch errno {
                case EINTR: continue
                case EAGAIN:
                    var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&poller, 1, -1)
                default: return
                }
            }
        }
    }
}

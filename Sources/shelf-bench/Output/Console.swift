import Glibc

/// Unbuffered writes to standard output and error, so a script waiting for a result line sees it at once.
enum Console {
    /// Writes `line` and a LF to standard output.
    static func out(_ line: String) {
        write(1, line + "\n")
    }

    /// Writes `line` and a LF to standard error.
    static func err(_ line: String) {
        write(2, line + "\n")
    }

    private static func write(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}

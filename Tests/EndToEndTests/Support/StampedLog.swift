import Testing

/// `shelfd`'s standard-error log lines start with the time they were logged (RFC 3339 UTC, milliseconds) and a
/// space; these helpers compare lines without it, and check that it is there.
enum StampedLog {
    /// `2026-12-01T20:15:03.123Z `.
    static var stamp: Regex<Substring> { #/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /# }

    /// `line` without its leading stamp, or `nil` when it has none.
    static func untimed<S: StringProtocol>(_ line: S) -> String? where S.SubSequence == Substring {
        guard let match = Substring(line).prefixMatch(of: stamp) else { return nil }
        return String(line[match.range.upperBound...])
    }

    /// Every line of `stderr` without its stamp (with its newline); records an issue for a line that has none.
    static func untimedText(_ stderr: String, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { line in
            guard let text = untimed(line) else {
                Issue.record("a log line without a time stamp: \(line)", sourceLocation: sourceLocation)
                return String(line) + "\n"
            }
            return text + "\n"
        }.joined()
    }
}

extension ChildProcess {
    /// Waits for the first stamped line of standard error whose text after the stamp starts with `prefix`.
    /// - Returns: that text, or `nil` when the child exits or `timeout` passes first.
    func waitForLogLine(startingWith prefix: String, timeout: Duration) async -> String? {
        let line = await waitForLine(in: .error, timeout: timeout) { StampedLog.untimed($0)?.hasPrefix(prefix) == true }
        return line.flatMap(StampedLog.untimed)
    }
}

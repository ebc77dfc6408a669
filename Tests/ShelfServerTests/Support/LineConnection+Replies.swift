import Testing

extension LineConnection {
    /// The next reply line; throws `LineConnectionError.closed` (recording an issue) when the server closed first.
    func nextLine(sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        guard let line = try await readLine() else {
            Issue.record("the server closed the connection instead of replying", sourceLocation: sourceLocation)
            throw LineConnectionError.closed
        }
        return line
    }

    /// Sends one line (LF added) and returns the next reply line as text.
    func exchange(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        try await send(line + "\n")
        return try await nextLine(sourceLocation: sourceLocation)
    }

    /// The next `count` reply lines.
    func nextLines(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        var lines: [String] = []
        lines.reserveCapacity(count)
        for _ in 0..<count {
            lines.append(try await nextLine(sourceLocation: sourceLocation))
        }
        return lines
    }
}

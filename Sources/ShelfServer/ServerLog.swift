import Foundation
import ShelfCore

/// Where `shelfd` logs: one line per event (connections, errors), never request bodies or titles.
public struct ServerLog: Sendable {
    private let sink: @Sendable (String) -> Void

    /// A log that hands each line, without newline, to `sink`.
    public init(sink: @escaping @Sendable (String) -> Void) {
        self.sink = sink
    }

    /// Lines go to standard error, prefixed with an RFC 3339 timestamp.
    public static let standardError = ServerLog { line in
        FileHandle.standardError.write(Data("\(Timestamp.format(Date())) \(line)\n".utf8))
    }

    /// Lines are dropped (tests).
    public static let silent = ServerLog { _ in }

    /// Logs one line.
    public func callAsFunction(_ line: String) { sink(line) }
}

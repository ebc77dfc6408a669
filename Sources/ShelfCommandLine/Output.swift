import Foundation


/// Where a command prints: standard output for results, standard error for errors and logs. Injected so tests
/// can run the commands in-process and read what they printed.
public struct Output: Sendable {
    /// Prints one piece of text to standard output (the caller adds newlines).
    public let out: @Sendable (String) -> Void
    /// Prints one piece of text to standard error.
    public let err: @Sendable (String) -> Void

    /// An output that hands standard-output text to `out` and standard-error text to `err`.
    public init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void) {
        self.out = out
        self.err = err
    }

    /// The process's standard output and error, unbuffered (so `shelfd listening on …` reaches a pipe at once);
    /// text for a reader that went away is dropped (`StandardStream`).
    public static let standard = Output(out: { StandardStream.output.write($0) }, err: { StandardStream.error.write($0) })

    /// Prints `line` and a newline to standard output.
    package func line(_ line: String) { out(line + "\n") }

    /// Prints `line` and a newline to standard error, control characters escaped (`TerminalText.visibleLines`): an
    /// error's message may come from the server, and a server could otherwise drive the terminal.
    package func error(_ line: String) { err(TerminalText.visibleLines(line) + "\n") }
}

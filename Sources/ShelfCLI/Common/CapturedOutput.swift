import Synchronization

/// Collects what a command printed (tests).
public final class CapturedOutput: Sendable {
    private let text = Mutex<(out: String, err: String)>(("", ""))

    public init() {}

    /// An `Output` that appends to this capture.
    public var output: Output {
        Output(out: { s in self.text.withLock { $0.out += s } }, err: { s in self.text.withLock { $0.err += s } })
    }

    /// Everything printed to standard output so far.
    public var out: String { text.withLock { $0.out } }
    /// Everything printed to standard error so far.
    public var err: String { text.withLock { $0.err } }
}

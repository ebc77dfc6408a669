/// A command line that cannot be run: printed as `error: <message>` followed by the usage, exit status 64.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. `unknown option --lisen`.
    public let message: String

    /// A usage error saying `message`.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// A command line that cannot be run: printed as `error: <message>`, then where to find the usage (the command's
/// own usage line when it is known), exit status 64.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. `unknown option --lisen`.
    public let message: String
    /// The `shelf` command the error is about, when the command line named one (`add` for `shelf add -x`).
    public let command: String?

    /// A usage error saying `message`.
    public init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    public var description: String { message }
}

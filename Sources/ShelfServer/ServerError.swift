/// Misuse of the `Server` life cycle.
public enum ServerError: Error, CustomStringConvertible {
    /// `start()` was called twice, or after `shutdown()`.
    case notIdle

    public var description: String {
        switch self {
        case .notIdle: "the server was already started"
        }
    }
}

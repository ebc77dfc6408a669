import ShelfCore

/// What `hello` answers.
public struct HelloResult: Sendable, Equatable {
    /// The server's name, `shelfd`.
    public let server: String
    /// The server's software version, e.g. `0.1.0`.
    public let version: String
    /// The wire protocol version (1).
    public let protocolVersion: Int
    /// The list revision when `hello` was answered.
    public let revision: Revision
}

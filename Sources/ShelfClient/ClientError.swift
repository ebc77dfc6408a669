import Glibc
import ShelfSockets
import ShelfWire

/// Why a client call failed. `description` is what `shelf` prints after `error: `.
public enum ClientError: Error, Sendable, CustomStringConvertible {
    /// The server could not be reached at all.
    case cannotConnect(HostPort, SocketError)
    /// The connection broke or closed before the answer came.
    case connectionLost(String)
    /// The server refused the request (an error response).
    case server(RPCError)
    /// The server sent something that is not a valid answer.
    case protocolViolation(String)
    /// No reply came within the client's timeout (`ShelfClient.connect(to:token:timeout:)`) to a call of `method`
    /// (the first that timed out); the connection was closed.
    case noReply(HostPort, Duration, method: String)

    public var description: String {
        switch self {
        case .cannotConnect(let address, .addressResolution(let host, let message)):
            "cannot connect to \(address): cannot resolve '\(host)': \(message) — check the host name"
        case .cannotConnect(let address, let error):
            "cannot connect to \(address): \(Self.reason(error)) — is shelfd running?"
        case .connectionLost(let why):
            "lost the connection to the server: \(why)"
        case .server(let error):
            error.message
        case .protocolViolation(let what):
            "the server sent an unexpected answer: \(what)"
        case .noReply(let address, let limit, _):
            "no reply from \(address) within \(limit.components.seconds) s (is shelfd stopped or overloaded?)"
        }
    }

    private static func reason(_ error: SocketError) -> String {
        if case .failed(_, let code) = error { return String(cString: strerror(code)) }
        return error.description
    }
}

import Foundation
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
    /// The server's run id, new at each start (protocol/PROTOCOL.md §5); `nil` from a server that sends none.
    public let run: String?
    /// The stored list's identity, the same across the server's restarts (protocol/PROTOCOL.md §5): a client that
    /// saw this id before may resume a watch from the revision it reached; a different one is another list, to be
    /// listed again. `nil` from a server that sends none.
    public let listID: UUID?
    /// What the server offers beyond protocol 1's first methods (`ProtocolInfo.features`); empty from an older one.
    public var features: [String] = []
    /// Whether the server requires `auth` before most methods (`"auth":"required"`, protocol/PROTOCOL.md §12); false
    /// for `"none"` and from a server that does not say.
    public var authRequired = false
}

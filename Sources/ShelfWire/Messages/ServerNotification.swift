import Foundation
import ShelfCore
import ShelfJSON

/// Notifications the server sends on its own (protocol/PROTOCOL.md, "Watching"): JSON-RPC 2.0 §4.1 requests
/// without an id, one per line.
public enum ServerNotification: Sendable, Equatable {
    /// `{"method":"changed","params":{"revision","change":{"kind":"added"|"updated","item"}|{"kind":"removed","id"}}}`.
    case changed(RevisionedChange)
    /// `{"method":"closing","params":{"reason","message"}}`: the server is about to close this connection.
    case closing(reason: String, message: String)

    /// The notification as one JSON object.
    public var json: JSONValue {
        switch self {
        case .changed(let change):
            Self.notification("changed", change.json)
        case .closing(let reason, let message):
            Self.notification("closing", .object(JSONObject([("reason", .string(reason)), ("message", .string(message))])))
        }
    }

    /// The notification as one line (JSON + LF), ready to write; a `changed` one is written straight to bytes.
    public var line: [UInt8] {
        var bytes: [UInt8]
        if case .changed(let change) = self {
            bytes = Array(#"{"jsonrpc":"2.0","method":"changed","params":"#.utf8)
            change.appendJSON(to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        } else {
            bytes = JSONWriter.encode(json)
        }
        bytes.append(0x0A)
        return bytes
    }

    /// Reads a `changed` notification's params back into a change (for clients); `nil` when malformed.
    public static func change(fromParams params: JSONObject) -> RevisionedChange? {
        RevisionedChange(json: .object(params))
    }

    private static func notification(_ method: String, _ params: JSONValue) -> JSONValue {
        .object(JSONObject([("jsonrpc", "2.0"), ("method", .string(method)), ("params", params)]))
    }
}

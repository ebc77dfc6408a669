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
            Self.notification("changed", [("revision", .number(JSONNumber(change.revision))), ("change", Self.json(change.change))])
        case .closing(let reason, let message):
            Self.notification("closing", [("reason", .string(reason)), ("message", .string(message))])
        }
    }

    /// The notification as one line (JSON + LF), ready to write.
    public var line: [UInt8] {
        var bytes = JSONWriter.encode(json)
        bytes.append(0x0A)
        return bytes
    }

    /// Reads a `changed` notification's params back into a change (for clients); `nil` when malformed.
    public static func change(fromParams params: JSONObject) -> RevisionedChange? {
        guard let revision = params["revision"]?.numberValue?.uint64, case .object(let change)? = params["change"],
              let kind = change["kind"]?.stringValue
        else { return nil }
        switch kind {
        case "added", "updated":
            guard let value = change["item"], let item = Item(json: value) else { return nil }
            return RevisionedChange(revision: revision, change: kind == "added" ? .added(item) : .updated(item))
        case "removed":
            guard let text = change["id"]?.stringValue, let id = UUID(uuidString: text) else { return nil }
            return RevisionedChange(revision: revision, change: .removed(id))
        default:
            return nil
        }
    }

    private static func json(_ change: ListChange) -> JSONValue {
        switch change {
        case .added(let item): .object(JSONObject([("kind", "added"), ("item", item.json)]))
        case .updated(let item): .object(JSONObject([("kind", "updated"), ("item", item.json)]))
        case .removed(let id): .object(JSONObject([("kind", "removed"), ("id", .string(id.wireString))]))
        }
    }

    private static func notification(_ method: String, _ params: [(String, JSONValue)]) -> JSONValue {
        .object(JSONObject([("jsonrpc", "2.0"), ("method", .string(method)), ("params", .object(JSONObject(params)))]))
    }
}

import Foundation
import ShelfCore
import ShelfJSON

/// The `result` shapes of each method (protocol/PROTOCOL.md, "Methods"), except `list`, whose reply the server
/// writes straight to bytes around its cached items (ShelfServer's `listReply`).
public enum MethodResult: Sendable, Equatable {
    /// `hello`: `{"server":"shelfd","version","protocol","revision","auth":"required"|"none","run","list","features"}`,
    /// `run` being the server's run id, new at each start, `list` the stored list's identity, kept across restarts
    /// (both UUID strings; protocol/PROTOCOL.md §5, §6), and `features` `ProtocolInfo.features`.
    case hello(revision: Revision, authRequired: Bool, run: UUID, list: UUID)
    /// `ping`: `"pong"`.
    case pong
    /// `get`, `add`, `mark`, `toggle`, `rename`: `{"revision","item"}`.
    case item(revision: Revision, item: Item)
    /// `remove`: `{"revision","id"}`.
    case removed(revision: Revision, id: UUID)
    /// `watch`, `unwatch`: `{"revision"}`.
    case revision(Revision)
    /// `auth`: `{}`.
    case empty

    /// The result as JSON.
    public var json: JSONValue {
        switch self {
        case .hello(let revision, let authRequired, let run, let list):
            .object(JSONObject([
                ("server", "shelfd"), ("version", .string(ProtocolInfo.serverVersion)),
                ("protocol", .number(JSONNumber(ProtocolInfo.protocolVersion))), ("revision", .number(JSONNumber(revision))),
                ("auth", authRequired ? "required" : "none"), ("run", .string(run.wireString)),
                ("list", .string(list.wireString)),
                ("features", .array(ProtocolInfo.features.map { .string($0) })),
            ]))
        case .pong:
            "pong"
        case .item(let revision, let item):
            .object(JSONObject([("revision", .number(JSONNumber(revision))), ("item", item.json)]))
        case .removed(let revision, let id):
            .object(JSONObject([("revision", .number(JSONNumber(revision))), ("id", .string(id.wireString))]))
        case .revision(let revision):
            .object(JSONObject([("revision", .number(JSONNumber(revision)))]))
        case .empty:
            .object(JSONObject())
        }
    }
}

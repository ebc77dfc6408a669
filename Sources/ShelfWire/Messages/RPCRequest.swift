import ShelfJSON

/// A well-formed JSON-RPC request (JSON-RPC 2.0 §4). A request without `id` is a notification (§4.1): it is
/// executed and never answered.
public struct RPCRequest: Sendable, Equatable {
    /// The id to echo; `nil` for a notification.
    public let id: RequestID?
    /// The method name, e.g. `add`.
    public let method: String
    /// The params object; an absent `params` is an empty object.
    public let params: JSONObject

    /// A request; `id` nil makes it a notification.
    public init(id: RequestID?, method: String, params: JSONObject = JSONObject()) {
        self.id = id
        self.method = method
        self.params = params
    }

    /// The request as one JSON object, with `"jsonrpc":"2.0"` (for clients).
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("jsonrpc", "2.0")]
        if let id { members.append(("id", id.json)) }
        members.append(("method", .string(method)))
        if !params.isEmpty { members.append(("params", .object(params))) }
        return .object(JSONObject(members))
    }
}

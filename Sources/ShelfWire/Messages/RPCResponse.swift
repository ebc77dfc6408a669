import ShelfJSON

/// A JSON-RPC response (JSON-RPC 2.0 §5): `{"jsonrpc":"2.0","id":…,"result":…}` or
/// `{"jsonrpc":"2.0","id":…,"error":{…}}`.
public struct RPCResponse: Sendable, Equatable {
    /// The request's id, exactly as sent; null when it could not be read.
    public let id: RequestID
    /// The result value or the error.
    public let outcome: Result<JSONValue, RPCError>

    /// A response to the request with `id`: its result, or its error.
    public init(id: RequestID, outcome: Result<JSONValue, RPCError>) {
        self.id = id
        self.outcome = outcome
    }

    /// The response as one JSON object; the server always sends `"jsonrpc":"2.0"`.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("jsonrpc", "2.0"), ("id", id.json)]
        switch outcome {
        case .success(let result): members.append(("result", result))
        case .failure(let error): members.append(("error", error.json))
        }
        return .object(JSONObject(members))
    }

    /// Reads a response (for clients); `nil` when `json` is not a response object.
    public init?(json: JSONValue) {
        guard case .object(let object) = json, let rawID = object["id"], let id = RequestID(json: rawID) else {
            return nil
        }
        if let result = object["result"] {
            self.init(id: id, outcome: .success(result))
            return
        }
        guard case .object(let error)? = object["error"],
              let code = error["code"]?.numberValue?.int64, let message = error["message"]?.stringValue
        else { return nil }
        let data = error["data"]?.objectValue ?? JSONObject()
        self.init(id: id, outcome: .failure(RPCError(code: Int(code), message: message, data: data)))
    }
}

import ShelfJSON

/// What one line from a client holds, after JSON-RPC 2.0 validation (§4, §5, §6).
public enum IncomingMessage: Sendable, Equatable {
    /// One request (or one request-shaped error).
    case single(IncomingRequest)
    /// A batch (§6): its elements in order. The reply is an array of the non-notification answers, or nothing.
    case batch([IncomingRequest])

    /// One element: a request to execute, or something that must be answered with an error.
    public enum IncomingRequest: Sendable, Equatable {
        case request(RPCRequest)
        /// A request already typed by the fast path (`decodeCall(line:)`): its id (`nil` for a notification) and
        /// call, exactly what `MethodCall.decode` gives for the same line.
        case call(id: RequestID?, MethodCall)
        /// Not a valid request: answered with `error` and `id` (`.null` when no id could be read), or, when `id` is
        /// `nil`, a notification with bad params, which is executed as nothing and never answered (§4.1).
        case invalid(RPCError, id: RequestID?)

        /// The id its response carries: `nil` for a notification, `.null` for an invalid request whose id could
        /// not be read.
        public var id: RequestID? {
            switch self {
            case .request(let request): request.id
            case .call(let id, _): id
            case .invalid(_, let id): id
            }
        }
    }

    /// Decodes one line (without its LF).
    ///
    /// Parse errors (including invalid UTF-8) give -32700 with id null (or, for an unpaired surrogate escape, the id
    /// read before it); a value that is not a request object, an
    /// empty batch, a bad `jsonrpc` (must be "2.0" when present), a missing or non-string `method`, or an id that is
    /// not a string, number or null give -32600; `params` that is not an object gives -32601 for an unknown method
    /// (the method is checked first, protocol/PROTOCOL.md §7) and -32602 otherwise. `jsonrpc` may be
    /// omitted, for people typing by hand.
    public static func decode(line: some Collection<UInt8>) -> IncomingMessage {
        let plain = line.withContiguousStorageIfAvailable { PlainRequestLine.decode($0) }
        if let request = plain ?? nil { return .single(.request(request)) }
        return decodeTree(line: line)
    }

    /// `decode(line:)`, except that the lines clients send most come back already typed (`IncomingRequest.call`,
    /// read by `PlainCallLine`): what a server decodes with, sparing itself the params object and the method-name
    /// look-ups.
    public static func decodeCall(line: ArraySlice<UInt8>) -> IncomingMessage {
        // Taken apart by the pattern, not copied out of the optional tuple member by member (with update's and
        // add-origin's payloads that copy went through the runtime's generic tuple witness).
        guard case let (id, call)? = line.withUnsafeBufferPointer(PlainCallLine.decode) else { return decode(line: line) }
        return .single(.call(id: id, call))
    }

    /// `decodeCall(line:)` for a whole array.
    public static func decodeCall(line: [UInt8]) -> IncomingMessage {
        decodeCall(line: line[...])
    }

    /// `decode(line:)` by way of a JSON tree, for every line `PlainRequestLine` does not take.
    static func decodeTree(line: some Collection<UInt8>) -> IncomingMessage {
        let value: JSONValue
        switch JSONParser.parseKeepingMembers(line) {
        case .success(let parsed):
            value = parsed
        case .failure(let failure):
            return .single(.invalid(RPCError(.parseError, "Parse error: \(failure.error)"), id: replyID(for: failure)))
        }
        switch value {
        case .array(let elements):
            if elements.isEmpty {
                return .single(.invalid(RPCError(.invalidRequest, "Invalid request: empty batch"), id: .null))
            }
            return .batch(elements.map(request(from:)))
        default:
            return .single(request(from: value))
        }
    }

    /// The id a -32700 carries: `null` (JSON-RPC 2.0 §5: the id could not be read), except for an unpaired
    /// surrogate escape such as `"\ud800"`, which RFC 8259's grammar allows (§8.2) but no Unicode string can hold:
    /// when the request's valid `id` was read before it, the error carries that id (the last one read, as with
    /// duplicate members), so a client that matches replies by id can tell which request failed
    /// (protocol/PROTOCOL.md §8).
    private static func replyID(for failure: JSONParser.Failure) -> RequestID {
        guard case .unpairedSurrogate = failure.error,
              let raw = failure.membersBefore.last(where: { $0.key == "id" })?.value
        else { return .null }
        return RequestID(json: raw) ?? .null
    }

    static func request(from value: JSONValue) -> IncomingRequest {
        guard case .object(let object) = value else {
            return .invalid(RPCError(.invalidRequest, "Invalid request: expected a JSON object like {\"id\":1,\"method\":\"ping\"}"), id: .null)
        }
        var id: RequestID?
        if let raw = object["id"] {
            guard let parsed = RequestID(json: raw) else {
                return .invalid(RPCError(.invalidRequest, "Invalid request: id must be a string, a number or null"), id: .null)
            }
            id = parsed
        }
        let replyID = id ?? .null
        if let version = object["jsonrpc"], version != .string("2.0") {
            return .invalid(RPCError(.invalidRequest, "Invalid request: \"jsonrpc\" must be \"2.0\""), id: replyID)
        }
        guard case .string(let method)? = object["method"] else {
            return .invalid(RPCError(.invalidRequest, "Invalid request: \"method\" must be a string"), id: replyID)
        }
        switch object["params"] {
        case nil:
            return .request(RPCRequest(id: id, method: method))
        case .object(let params)?:
            return .request(RPCRequest(id: id, method: method, params: params))
        case .some:
            // The method is checked before the params (protocol/PROTOCOL.md §7). A notification with bad params is
            // still a notification: nothing runs and nothing is answered.
            let error = MethodCall.unknownMethodError(method)
                ?? RPCError(.invalidParams, "Invalid params: \"params\" must be an object")
            return .invalid(error, id: id)
        }
    }
}

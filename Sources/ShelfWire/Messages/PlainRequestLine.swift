import ShelfJSON

/// Reads the request lines clients send most — one flat JSON-RPC request object of printable ASCII, such as
/// `{"jsonrpc":"2.0","id":7,"method":"add","params":{"title":"Dune"}}` — straight into an `RPCRequest`, without
/// building a JSON tree first (the tree costs more than the rest of decoding such a line).
///
/// It accepts a narrow subset of JSON and answers `nil` for anything else, so the general path
/// (`JSONParser`, then JSON-RPC 2.0 §4 validation) still decides every other line, errors included. For a line it
/// accepts it gives exactly the request the general path gives (`PlainRequestLineTests` checks both on the same
/// inputs). The subset: the members `jsonrpc` (only `"2.0"`), `id` (an integer, a string or `null`), `method` (a
/// string) and `params` (an object whose values are strings, integers, `true`, `false` or `null`; a key may repeat),
/// each at most once, in any order, with spaces allowed between tokens; strings of printable ASCII without escapes;
/// integers without fraction or exponent.
enum PlainRequestLine {
    /// The request on `line`, or `nil` when the line is outside the subset (decode it the general way).
    static func decode(_ line: UnsafeBufferPointer<UInt8>) -> RPCRequest? {
        var scanner = PlainLineScanner(bytes: line)
        return scanner.request()
    }
}

extension PlainLineScanner {
    fileprivate mutating func request() -> RPCRequest? {
        guard let (id, method, params) = requestObject(
            id: { $0.scalar().flatMap(RequestID.init(json:)) }, params: { $0.flatObject() })
        else { return nil }
        return RPCRequest(id: id, method: String(decoding: method, as: UTF8.self), params: params ?? JSONObject())
    }

    /// `{}` or `{"k":scalar,…}`. A key given twice is kept twice, in order, as `JSONParser` keeps it, so the object
    /// is the one the general path builds (its look-ups take the last, protocol/PROTOCOL.md §2): nothing is searched
    /// per member, and each member costs the same however many there are.
    private mutating func flatObject() -> JSONObject? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var object = JSONObject()
        if take(UInt8(ascii: "}")) { return object }
        repeat {
            guard let key = string(), take(UInt8(ascii: ":")), let value = scalar() else { return nil }
            object.append(key, value)
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}")) ? object : nil
    }
}
